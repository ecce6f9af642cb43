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

// Batches prepared on two threads, a worker's and the caller's, and handed back to the caller in
// the order they were submitted. The caller owns the batches (numbered slots); the pipeline only
// says who prepares which and when one is ready. The worker starts with the first submission.
class BatchPipeline {
public:
    // Prepares slot `slot`; `on_worker` says which thread runs it, so that each thread can use
    // scratch state of its own. An exception it throws is handed back by take_oldest().
    using Prepare = std::function<void(std::size_t slot, bool on_worker)>;

    struct Taken {
        std::size_t slot = 0;
        std::exception_ptr error;  // what preparing it threw
    };

    // Without a worker (`with_worker` false, or no thread to be had) the caller prepares every
    // slot in take_oldest().
    BatchPipeline(std::size_t slots, Prepare prepare, bool with_worker = true);
    ~BatchPipeline();
    BatchPipeline(const BatchPipeline&) = delete;
    BatchPipeline& operator=(const BatchPipeline&) = delete;

    // Hands over a filled slot to be prepared.
    void submit(std::size_t slot);
    // The oldest submitted slot once it is prepared, free to be filled again: prepares waiting
    // slots on the caller's thread while the worker holds the oldest one. Needs a slot in flight.
    Taken take_oldest();
    std::size_t in_flight() const;

private:
    enum class State { free, waiting, preparing, prepared };
    struct Slot {
        State state = State::free;
        std::exception_ptr error;
    };

    void work();
    // Prepares `slot`, claimed under `lock`, with the lock released meanwhile.
    void prepare_claimed(std::size_t slot, bool on_worker, std::unique_lock<std::mutex>& lock);
    // The first submitted slot nobody prepares yet; slots.size() when none waits.
    std::size_t first_waiting() const;

    Prepare m_prepare;
    std::vector<Slot> m_slots;
    std::deque<std::size_t> m_order;  // submitted and not taken, oldest first
    mutable std::mutex m_mutex;
    std::condition_variable m_work;
    std::condition_variable m_done;
    bool m_stopping = false;
    bool m_without_worker = false;  // none asked for, or it could not be started
    std::thread m_worker;
};

}  // namespace conform::protocol
