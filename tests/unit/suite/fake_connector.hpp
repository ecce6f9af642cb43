#pragma once

// The runner's test seam: a connector that is a C++ function answering each invocation with
// canned NDJSON, run through the real Runner, analyzer and checks without spawning anything.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/test_config.hpp"
#include "estuary/range.hpp"
#include "report/model.hpp"
#include "suite/runner.hpp"
#include "suite/scenario.hpp"

namespace conform::testing {

// One invocation as the connector sees it.
struct Invocation {
    std::string command;               // spec, check, discover, read; argv[0] for another program
    std::vector<std::string> argv;     // (the tail inject command is one)
    std::string config;                // the --config file's text
    std::optional<std::string> state;  // the --state file's text
    std::string catalog;               // the --catalog file's text
    estuary::KeyRange range;           // the catalog's range (full when absent)
    bool range_given = false;          // the catalog has a range
    bool range_malformed = false;      // the catalog's range does not parse
    bool tail = false;                 // the catalog asks for tail: true
};

// What the connector answers: its stdout lines and exit code.
struct Answer {
    std::vector<std::string> lines;
    int exit_code = 0;
    std::string stderr_text;
    bool hangs = false;  // never exits: conform's timeout stops it
    // Set: the connector keeps running after `lines` (tail). On every tick (50 ms of simulated
    // time) it writes what `follow` returns, until conform asks it to stop.
    std::function<std::vector<std::string>()> follow;
    bool ignores_sigterm = false;  // while following: killed after the grace period
};

// An answer that writes `lines` and exits.
Answer answer_with(std::vector<std::string> lines, int exit_code = 0, std::string stderr_text = {});

using Behaviour = std::function<Answer(const Invocation&)>;

// A test config for the fake connector, with `catalog_json` as its configured catalog.
config::TestConfig fake_test_config(const std::string& catalog_json,
                                    std::vector<std::string> extensions = {});

// Runs `suite_json` (one suite file's text) against `behaviour`; returns the report.
report::RunReport run_fake(const Behaviour& behaviour, const config::TestConfig& test_config,
                           const std::string& suite_json, bool strict = false);
// Runs the scenarios `only` of the built-in suites (suites/*.json) against `behaviour`.
report::RunReport run_builtin(const Behaviour& behaviour, const config::TestConfig& test_config,
                              std::vector<std::string> only, bool strict = false);

// The status of `check` in `scenario` of `report`, as its name ("passed", "failed", ...).
std::string status_of(const report::RunReport& report, const std::string& scenario,
                      const std::string& check);
// That check's result, or nullptr when the scenario has no such check.
const report::CheckResult* find_result(const report::RunReport& report, const std::string& scenario,
                                       const std::string& check);
// The first example message (or the note) of that check.
std::string first_message(const report::RunReport& report, const std::string& scenario,
                          const std::string& check);
// Every example message and the note of that check, one per line: what a test searches.
std::string all_messages(const report::RunReport& report, const std::string& scenario,
                         const std::string& check);

// A small source, correct unless a fault is set. "items": full refresh, ids 1-3. "events":
// incremental on seq, 1-6 plus 2 more each time the inject command runs; a STATE after every 2.
// Range keys: events seq * 0x10000000, items id * 0x10000000 + 0x08000000 (all distinct).
struct SourceModel {
    // spec, check, discover
    bool spec_twice = false;
    bool spec_silent = false;  // no SPEC message
    std::string connection_specification =
        R"({"type":"object","required":["api_key"],"properties":{)"
        R"("api_key":{"type":"string","airbyte_secret":true},)"
        R"("page_size":{"type":"integer","default":2},"region":{"type":"string"}}})";
    std::string check_status = "SUCCEEDED";  // for the main config
    bool check_accepts_invalid = false;
    bool check_fails_silently = false;          // FAILED for the invalid config, without a message
    bool check_crashes_without_region = false;  // the minimal config has no region
    bool check_crashes_without_key = false;     // exit 1, no status, when api_key is missing
    bool check_traces_without_key = false;      // a TRACE error, then exit 1 (the CDK's excepthook)
    bool check_echoes_key = false;              // the status message repeats the api_key
    bool spec_unstable = false;                 // each SPEC differs from the one before
    bool spec_reorders_keys = false;            // every other SPEC written in another key order
    bool discover_silent = false;               // exit 0, no CATALOG
    bool discover_unstable = false;             // each CATALOG differs from the one before
    std::string discovered_streams;             // replaces the discovered streams when set
    // read
    bool read_crashes = false;  // exit 1, no TRACE error
    bool read_fails = false;    // exit 1 after a TRACE error "cannot read"
    bool invalid_config_read_succeeds = false;
    bool items_change_between_reads = false;
    bool drops_item_3 = false;
    bool items_empty = false;  // the read emits no item
    bool duplicates_item_2 = false;
    bool items_incomplete = false;    // STREAM_STATUS INCOMPLETE for items; the read exits 0
    bool wrong_record_count = false;  // sourceStats.recordCount one more than the records
    bool states_every_4 = false;      // the last 2 events are after the final STATE
    bool state_ahead = false;         // an events STATE claims the next record too
    bool resume_inclusive = false;
    bool resume_ignores_state = false;      // resumed, events are read again from the start
    bool resume_skips_second = false;       // resumed, the window's second record is never emitted
    bool resume_regenerates_notes = false;  // resumed, every event has another note (seeded once)
    bool resume_skips_new_data = false;     // resumed from a final state: nothing new delivered
    bool inject_adds_nothing = false;
    bool inject_fails = false;                // the inject command exits 1 without adding anything
    bool plain_read_misses_injected = false;  // only a tailing read sees what was injected
    bool hangs_without_tail = false;
    bool accepts_invalid_catalog = false;  // an unknown stream or INVALID sync mode: read anyway
    // Every read logs an ERROR of its own (an upstream 500 in one slice) and still exits 0.
    bool logs_upstream_error = false;
    bool future_state_rereads = false;  // a seq far beyond the data: read from the start
    // tail
    bool tail_exits = false;
    bool tail_skips_backlog = false;  // with tail true, only what is added while it runs
    bool tail_ignores_sigterm = false;
    bool tail_misses_new_data = false;
    bool tail_state_before_new_data = false;  // new records come after the STATE that claims them
    // range
    bool ignores_range = false;
    bool absent_range_reads_half = false;  // without a range: keys below 0x40000000 only
    bool accepts_malformed_range = false;
    // merge
    bool merge_patch_keeps_pending = false;  // the reduced patches never clear "pending"
    bool merge_resume_skips_one = false;     // resuming from a merge-reduced state skips a record
    // projections and neutral keys
    bool ignores_projections = false;
    bool fails_on_extension_keys = false;

    Behaviour behaviour() const;
};

// Its configured catalog, and a test config with every file and setting its scenarios require
// (invalid, merge and full-state configs, inject command, projections, expected records).
extern const std::string k_source_catalog;
config::TestConfig source_test_config(std::vector<std::string> extensions = {
                                          "tail", "range", "merge", "projections"});

// Asserts (doctest CHECK) that `check` of `scenario` has `status` and that one of its messages
// contains `message_part`.
void expect_verdict(const report::RunReport& report, const std::string& scenario,
                    const std::string& check, const std::string& status,
                    const std::string& message_part);

// The checks across runs that a test file proves with a passing, a failing (or warning) and,
// where the check has one, a skipped case. Each file notes its own; a test compares the union
// with the registry.
bool note_covered(const std::vector<std::string>& check_ids);
const std::vector<std::string>& covered_checks();

// Message builders.
std::string record_line(const std::string& stream, const std::string& data_json);
std::string spec_line();

}  // namespace conform::testing
