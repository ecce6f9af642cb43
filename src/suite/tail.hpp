#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "json/digest.hpp"
#include "process/process.hpp"
#include "protocol/observation.hpp"

namespace conform::suite {

// Drives a tailing read (X-TAIL-2) by events, not by the clock: it waits until the connector has
// emitted the backlog (every record of a plain read made before), then injects new data, waits for
// a record beyond the backlog and a STATE after it, then lets the observation window run and asks
// for the stop (SIGTERM). Load on the machine only delays the events; it never changes what they
// prove. `wait_limit` bounds each wait; a connector that misses it is stopped and judged on what it
// did.
class TailDriver {
public:
    struct Settings {
        std::chrono::milliseconds inject_not_before{0};
        std::chrono::milliseconds observe{2'000};
        std::chrono::milliseconds wait_limit{60'000};
        std::function<void()> inject;  // injects and marks the run; empty: nothing to inject
    };
    using Events = std::vector<std::pair<std::string, std::int64_t>>;

    TailDriver(const protocol::RecordStore& backlog, Settings settings);

    // Called on every tick of the tailing run with what it has emitted so far.
    process::Decision on_tick(const protocol::Observation& seen, std::chrono::milliseconds elapsed);

    // What the run went through, with the milliseconds since its start.
    const Events& events() const { return m_events; }

private:
    enum class Phase { catching_up, awaiting_new_data, observing };

    // Consumes the records emitted since the last tick; true once a record beyond the backlog
    // arrived.
    bool take_new_records(const protocol::Observation& seen);
    // Marks one not yet emitted backlog copy of `identity` as emitted; false when there is none.
    bool take_from_backlog(const json::Digest& identity);
    static bool state_after(const protocol::Observation& seen, std::uint64_t line);

    void note(std::string what, std::chrono::milliseconds at) {
        m_events.emplace_back(std::move(what), at.count());
    }

    Settings m_settings;
    Events m_events;
    Phase m_phase = Phase::catching_up;
    // The backlog's identities, sorted, and which of them the tailing run has emitted: 16 bytes
    // and a bit per record, where a hash map costs several times that.
    std::vector<json::Digest> m_backlog;
    std::vector<bool> m_emitted;
    std::uint64_t m_remaining_total = 0;
    std::size_t m_records_taken = 0;
    std::uint64_t m_first_new_line = 0;
    bool m_caught_up_noted = false;
    std::chrono::milliseconds m_phase_started{0};
};

}  // namespace conform::suite
