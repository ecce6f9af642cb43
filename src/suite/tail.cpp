#include "suite/tail.hpp"

#include <algorithm>

namespace conform::suite {

TailDriver::TailDriver(const protocol::RecordStore& backlog, Settings settings)
    : m_settings(std::move(settings)) {
    m_backlog.reserve(backlog.size());
    backlog.scan([this](std::size_t, const protocol::RecordEntry& record) {
        m_backlog.push_back(record.identity);
    });
    std::sort(m_backlog.begin(), m_backlog.end());
    m_emitted.assign(m_backlog.size(), false);
    m_remaining_total = m_backlog.size();
}

bool TailDriver::take_from_backlog(const json::Digest& identity) {
    auto index = static_cast<std::size_t>(
        std::lower_bound(m_backlog.begin(), m_backlog.end(), identity) - m_backlog.begin());
    for (; index < m_backlog.size() && m_backlog[index] == identity; ++index) {
        if (!m_emitted[index]) {
            m_emitted[index] = true;
            return true;
        }
    }
    return false;
}

bool TailDriver::take_new_records(const protocol::Observation& seen) {
    bool beyond_backlog = m_first_new_line != 0;
    seen.records.scan(m_records_taken, [&](std::size_t index, const protocol::RecordEntry& record) {
        m_records_taken = index + 1;
        if (take_from_backlog(record.identity)) {
            --m_remaining_total;
        } else if (m_first_new_line == 0 && m_remaining_total == 0) {
            m_first_new_line = record.line;
            beyond_backlog = true;
        }
    });
    return beyond_backlog;
}

bool TailDriver::state_after(const protocol::Observation& seen, std::uint64_t line) {
    return !seen.checkpoints.empty() && seen.checkpoints.back().line > line;
}

process::Decision TailDriver::on_tick(const protocol::Observation& seen,
                                      std::chrono::milliseconds elapsed) {
    bool beyond_backlog = take_new_records(seen);
    auto waited = elapsed - m_phase_started;
    switch (m_phase) {
        case Phase::catching_up: {
            bool caught_up = m_remaining_total == 0;
            if (caught_up) {
                if (!m_caught_up_noted) {
                    note("caught up with the backlog", elapsed);
                    m_caught_up_noted = true;
                }
            } else if (waited < m_settings.wait_limit) {
                return process::Decision::keep_going;
            } else {
                note("gave up waiting for the backlog", elapsed);
            }
            if (elapsed < m_settings.inject_not_before) {
                return process::Decision::keep_going;
            }
            m_phase_started = elapsed;
            if (!m_settings.inject) {
                m_phase = Phase::observing;
                return process::Decision::keep_going;
            }
            m_settings.inject();
            note("injected new data", elapsed);
            m_phase = Phase::awaiting_new_data;
            return process::Decision::keep_going;
        }
        case Phase::awaiting_new_data:
            if (beyond_backlog && state_after(seen, m_first_new_line)) {
                note("delivered new data and a STATE after it", elapsed);
            } else if (waited < m_settings.wait_limit) {
                return process::Decision::keep_going;
            } else {
                note("gave up waiting for new data and a STATE after it", elapsed);
            }
            m_phase = Phase::observing;
            m_phase_started = elapsed;
            return process::Decision::keep_going;
        case Phase::observing:
            return waited < m_settings.observe ? process::Decision::keep_going
                                               : process::Decision::stop;
    }
    return process::Decision::keep_going;
}

}  // namespace conform::suite
