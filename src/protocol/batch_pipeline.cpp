#include "protocol/batch_pipeline.hpp"

#include <cassert>
#include <system_error>
#include <utility>

namespace conform::protocol {

namespace {

// Runs `step` and returns what it threw.
template <typename Step>
std::exception_ptr caught(const Step& step) {
    try {
        step();
    } catch (...) {
        return std::current_exception();
    }
    return nullptr;
}

}  // namespace

BatchPipeline::BatchPipeline(std::size_t slots, Prepare prepare, Judge judge, bool with_worker)
    : m_prepare(std::move(prepare)),
      m_judge(std::move(judge)),
      m_slots(slots),
      m_without_worker(!with_worker) {}

BatchPipeline::~BatchPipeline() {
    {
        std::lock_guard lock(m_mutex);
        m_stopping = true;
    }
    m_work.notify_all();
    if (m_worker.joinable()) {
        m_worker.join();
    }
}

void BatchPipeline::submit(std::size_t slot) {
    std::unique_lock lock(m_mutex);
    assert(m_slots[slot].state == State::free);
    m_slots[slot] = Slot{State::waiting, false, nullptr};
    m_order.push_back(slot);
    if (!m_worker.joinable() && !m_without_worker) {
        try {
            m_worker = std::thread([this] { work(); });
        } catch (const std::system_error&) {
            // No thread to be had (a process limit): the caller prepares every slot.
            m_without_worker = true;
        }
    }
    m_work.notify_one();
    for (std::size_t next = judgeable(false); next != k_none; next = judgeable(false)) {
        judge_claimed(next, lock);
    }
}

BatchPipeline::Taken BatchPipeline::take_oldest() {
    std::unique_lock lock(m_mutex);
    assert(!m_order.empty());
    while (m_slots[m_order.front()].state != State::judged) {
        if (std::size_t next = judgeable(false); next != k_none) {
            judge_claimed(next, lock);
        } else if (std::size_t waiting = first_waiting(); waiting != k_none) {
            prepare_claimed(waiting, false, lock);
        } else if (!give_up_oldest()) {
            m_done.wait(lock);
        }
    }
    std::size_t oldest = m_order.front();
    m_order.pop_front();
    Slot taken = std::exchange(m_slots[oldest], Slot{});
    return Taken{oldest, taken.error};
}

std::size_t BatchPipeline::in_flight() const {
    std::lock_guard lock(m_mutex);
    return m_order.size();
}

void BatchPipeline::work() {
    std::unique_lock lock(m_mutex);
    while (!m_stopping) {
        if (std::size_t next = judgeable(true); next != k_none) {
            judge_claimed(next, lock);
        } else if (std::size_t waiting = first_waiting(); waiting != k_none) {
            prepare_claimed(waiting, true, lock);
        } else {
            m_work.wait(lock);
        }
    }
}

void BatchPipeline::prepare_claimed(std::size_t slot, bool on_worker,
                                    std::unique_lock<std::mutex>& lock) {
    m_slots[slot].state = State::preparing;
    m_slots[slot].by_worker = on_worker;
    lock.unlock();
    std::exception_ptr error = caught([&] { m_prepare(slot, on_worker); });
    lock.lock();
    m_slots[slot].state = State::prepared;
    m_slots[slot].error = error;
    // A failed slot is settled by whichever thread finds it next in line.
    if (error) {
        m_work.notify_all();
    }
    m_done.notify_all();
}

void BatchPipeline::judge_claimed(std::size_t slot, std::unique_lock<std::mutex>& lock) {
    auto& claimed = m_slots[slot];
    if (!claimed.error) {
        claimed.state = State::judging;
        lock.unlock();
        std::exception_ptr error = caught([&] { m_judge(slot); });
        lock.lock();
        m_slots[slot].error = error;
    }
    m_slots[slot].state = State::judged;
    if (m_slots[slot].error && !m_failure) {
        m_failure = m_slots[slot].error;
    }
    m_work.notify_all();
    m_done.notify_all();
}

std::size_t BatchPipeline::first_waiting() const {
    if (m_failure) {
        return k_none;
    }
    for (std::size_t slot : m_order) {
        if (m_slots[slot].state == State::waiting) {
            return slot;
        }
    }
    return k_none;
}

std::size_t BatchPipeline::judgeable(bool by_worker) const {
    if (m_failure) {
        return k_none;
    }
    for (std::size_t slot : m_order) {
        const Slot& candidate = m_slots[slot];
        if (candidate.state == State::judged) {
            continue;
        }
        bool ours = candidate.by_worker == by_worker || candidate.error != nullptr;
        return candidate.state == State::prepared && ours ? slot : k_none;
    }
    return k_none;
}

bool BatchPipeline::give_up_oldest() {
    Slot& oldest = m_slots[m_order.front()];
    if (!m_failure || (oldest.state != State::waiting && oldest.state != State::prepared)) {
        return false;
    }
    oldest.state = State::judged;
    oldest.error = m_failure;
    return true;
}

}  // namespace conform::protocol
