#include "protocol/batch_pipeline.hpp"

#include <cassert>
#include <system_error>
#include <utility>

namespace conform::protocol {

BatchPipeline::BatchPipeline(std::size_t slots, Prepare prepare, bool with_worker)
    : m_prepare(std::move(prepare)), m_slots(slots), m_without_worker(!with_worker) {}

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
    {
        std::lock_guard lock(m_mutex);
        assert(m_slots[slot].state == State::free);
        m_slots[slot] = Slot{State::waiting, nullptr};
        m_order.push_back(slot);
        if (!m_worker.joinable() && !m_without_worker) {
            try {
                m_worker = std::thread([this] { work(); });
            } catch (const std::system_error&) {
                // No thread to be had (a process limit): the caller prepares every slot.
                m_without_worker = true;
            }
        }
    }
    m_work.notify_one();
}

BatchPipeline::Taken BatchPipeline::take_oldest() {
    std::unique_lock lock(m_mutex);
    assert(!m_order.empty());
    for (;;) {
        std::size_t oldest = m_order.front();
        if (m_slots[oldest].state == State::prepared) {
            break;
        }
        std::size_t waiting = first_waiting();
        if (waiting != m_slots.size()) {
            prepare_claimed(waiting, false, lock);
            continue;
        }
        m_done.wait(lock, [&] { return m_slots[oldest].state == State::prepared; });
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
    for (;;) {
        m_work.wait(lock, [&] { return m_stopping || first_waiting() != m_slots.size(); });
        if (m_stopping) {
            return;
        }
        prepare_claimed(first_waiting(), true, lock);
    }
}

void BatchPipeline::prepare_claimed(std::size_t slot, bool on_worker,
                                    std::unique_lock<std::mutex>& lock) {
    m_slots[slot].state = State::preparing;
    lock.unlock();
    std::exception_ptr error;
    try {
        m_prepare(slot, on_worker);
    } catch (...) {
        error = std::current_exception();
    }
    lock.lock();
    m_slots[slot].state = State::prepared;
    m_slots[slot].error = error;
    m_done.notify_all();
}

std::size_t BatchPipeline::first_waiting() const {
    for (std::size_t slot : m_order) {
        if (m_slots[slot].state == State::waiting) {
            return slot;
        }
    }
    return m_slots.size();
}

}  // namespace conform::protocol
