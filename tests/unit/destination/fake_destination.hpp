#pragma once

// An Airbyte destination written in C++ for the executor seam: `fake-destination` answers spec,
// check and write, and `fake-verify` prints what it holds, without spawning anything; the real
// DestinationSource, engine and dst checks judge it. It keeps its rows in memory per
// destination_path, commits a stream's records when a STATE of it arrives and echoes the STATE
// then, and honours generation ids like the reference destination. Correct unless one of the
// model's faults is set.

#include <string>
#include <vector>

#include "destination/source.hpp"
#include "destination/test_config.hpp"
#include "report/model.hpp"

namespace conform::testing {

struct DestinationModel {
    bool log_invalid_level = false;           // write logs at level "LOUD"
    bool spec_twice = false;                  // spec emits two SPEC messages
    bool spec_without_dedup = false;          // supported_destination_sync_modes lacks append_dedup
    bool spec_documentation_moved = false;    // the SPEC gains a documentationUrl
    bool spec_token_unmarked = false;         // the spec's token property lacks airbyte_secret
    bool check_always_succeeds = false;       // check answers SUCCEEDED for the invalid config
    bool leak_secret = false;                 // write prints the api_key on stderr
    bool write_exit_nonzero = false;          // a sync whose streams COMPLETEd ends with exit 1
    bool stops_reading_early = false;         // write exits 0 at the first COMPLETE status
    bool crash_on_unknown_stream = false;     // a record of an unknown stream kills it (SIGSEGV)
    bool echo_out_of_order = false;           // the first STATE is echoed after its stream's next
    bool echo_before_commit = false;          // STATEs echoed as read; records written by threes
    bool stats_off_by_one = false;            // destinationStats.recordCount is one too many
    bool retry_discards_attempt = false;      // a write drops the append rows of its own sync_id
    bool append_replaces_on_success = false;  // a finished write drops older syncs' append rows
    bool overwrite_keeps_old = false;         // overwrite never drops older generations
    bool overwrite_truncates_first = false;   // a new generation empties an overwrite stream first
    bool dedup_keeps_first = false;           // append_dedup keeps the first row of a key
    bool no_stats = false;                    // echoes carry no destinationStats
};

// The test config of the fake destination: users (append_dedup), events (append), tags
// (overwrite), a verify command, every check served.
destination::TestConfig fake_destination_config();

// The seam: answers each process conform starts as the model says.
destination::Executor executor_for(const DestinationModel& model);

// Runs the built-in destination suite against the model.
report::RunReport run_destination(
    const DestinationModel& model, std::vector<std::string> only = {}, bool strict = false,
    const destination::TestConfig& config = fake_destination_config());

// "passed", "failed", "warned", "skipped" or "absent" for `check` in scenario `scenario` (any
// scenario when empty) of `report`; a check in several scenarios takes the worst status.
std::string status_of(const report::RunReport& report, const std::string& check,
                      const std::string& scenario = "");
// The examples' messages and the note of `check`, in every scenario.
std::string message_of(const report::RunReport& report, const std::string& check);

}  // namespace conform::testing
