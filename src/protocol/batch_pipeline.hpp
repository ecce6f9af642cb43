#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace conform::protocol {

// Batches prepared on two threads, a worker's and the caller's, then judged one at a time in the
// order they were submitted, each by the thread that prepared it: what preparing built stays in
// that core's cache (judged by the other core, a batch took about a quarter more CPU on the
// benchmark's host, bench/README.md, fourteenth round). The caller owns the batches (numbered
// slots); the pipeline only says who prepares and judges which and when. The worker starts with
// the first submission.
class BatchPipeline {
public:
    // Prepares slot `slot`; `on_worker` says which thread runs it, so that each thread can use
    // scratch state of its own. Slots are prepared in any order, two at a time.
    using Prepare = std::function<void(std::size_t slot, bool on_worker)>;
    // Judges a prepared slot. Slots are judged in the order submitted, one at a time, on either
    // thread: what one judging leaves, the next one sees.
    using Judge = std::function<void(std::size_t slot)>;

    struct Taken {
        std::size_t slot = 0;
        // What preparing or judging it threw; once that happened, what the first failure threw,
        // for every later slot, which is neither judged nor (if not yet) prepared.
        std::exception_ptr error;
    };

    // Without a worker (`with_worker` false, or no thread to be had) the caller prepares and judges
    // every slot in take_oldest().
    BatchPipeline(std::size_t slots, Prepare prepare, Judge judge, bool with_worker = true);
    ~BatchPipeline();
    BatchPipeline(const BatchPipeline&) = delete;
    BatchPipeline& operator=(const BatchPipeline&) = delete;

    // Hands over a filled slot; then judges the slots the caller prepared that are next in line.
    void submit(std::size_t slot);
    // The oldest submitted slot once it is judged, free to be filled again: prepares and judges
    // slots on the caller's thread meanwhile where it can. Needs a slot in flight.
    Taken take_oldest();
    std::size_t in_flight() const;

private:
    enum class State { free, waiting, preparing, prepared, judging, judged };
    struct Slot {
        State state = State::free;
        bool by_worker = false;  // who prepared it, and so judges it
        std::exception_ptr error;
    };
    static constexpr std::size_t k_none = static_cast<std::size_t>(-1);

    void work();
    // Prepares or judges `slot`, claimed under `lock`, with the lock released meanwhile.
    void prepare_claimed(std::size_t slot, bool on_worker, std::unique_lock<std::mutex>& lock);
    void judge_claimed(std::size_t slot, std::unique_lock<std::mutex>& lock);
    // The first submitted slot nobody prepares yet; k_none when none waits.
    std::size_t first_waiting() const;
    // The slot to be judged next if the thread (`by_worker` or the caller) can judge it now.
    std::size_t judgeable(bool by_worker) const;
    // After a failure: the oldest slot if nobody works on it, marked judged with the failure.
    bool give_up_oldest();

    Prepare m_prepare;
    Judge m_judge;
    std::vector<Slot> m_slots;
    std::deque<std::size_t> m_order;  // submitted and not taken, oldest first
    std::exception_ptr m_failure;     // the first slot's error: nothing is judged after it
    mutable std::mutex m_mutex;
    std::condition_variable m_work;
    std::condition_variable m_done;
    bool m_stopping = false;
    bool m_without_worker = false;  // none asked for, or it could not be started
    std::thread m_worker;
};

}  // namespace conform::protocol
