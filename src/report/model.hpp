#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/coverage.hpp"

namespace conform::report {

// expected_failure: a failure the known-failures file lists (it does not fail the run); flaky: a
// check that failed, then passed when --rerun-failed ran its scenario again (never a plain pass).
enum class Status { passed, warned, failed, skipped, expected_failure, flaky };

// Every status, in the order reports list them.
inline constexpr Status k_statuses[] = {Status::passed,  Status::warned,           Status::failed,
                                        Status::skipped, Status::expected_failure, Status::flaky};
// A check's clause: MUST (its findings fail) or SHOULD (they warn, and fail under --strict).
enum class Level { must, should };

std::string_view level_name(Level level);  // "MUST", "SHOULD"

std::string_view status_name(Status status);

// One stdout line of a run's transcript, as a report shows it (masked, then cut).
struct TranscriptLine {
    std::uint64_t number = 0;
    std::string text;
};

// One example of what a check saw, already redacted.
struct Example {
    std::string message = {};
    std::string run = {};  // which connector run, e.g. "read [range 00000000-7fffffff]"
    std::uint64_t line = 0;
    std::string excerpt = {};
    // The transcript lines around `line`, itself included; empty when the run's transcript was
    // not kept or the example names no line.
    std::vector<TranscriptLine> context = {};
    // How many findings the example stands for: one record re-emitted after three checkpoints is
    // one example and three findings.
    std::uint64_t findings = 1;
};

// Where an example was seen, "run read, stdout line 12", as far as it says ("" when it names
// neither a run nor a line).
std::string location_of(const Example& example);

struct CheckResult {
    std::string id;
    std::vector<std::string> clauses;
    Level level = Level::must;
    std::string title;
    Status status = Status::passed;
    std::vector<Example> examples;
    std::uint64_t occurrences = 0;  // all findings, examples are the first few
    std::uint64_t advisories = 0;   // the SHOULD-level part of occurrences
    std::string note;               // why skipped, or what was compared
    // A check the scenario exists for. Its other checks judge what every run must do (valid
    // messages, exit codes, no leaked secrets): their passes alone do not make the scenario pass.
    bool purpose = true;
    std::int64_t duration_ms = 0;  // time spent judging, not running the connector
    // The reason the known-failures file gives, for an expected failure.
    std::string known_failure_reason = {};
    // For a flaky check: what it found on the run that failed, before the rerun passed.
    std::string flaky_first_failure = {};
};

// One STATE of a run, where the checkpoint timeline draws it.
struct CheckpointMark {
    std::uint64_t line = 0;            // stdout line of the STATE
    std::uint64_t records_before = 0;  // RECORDs the run emitted before it
    bool all_streams = true;           // a legacy or GLOBAL state commits every stream
    std::vector<std::string> streams;  // the streams a per-stream STATE commits
};

// What resuming from one checkpoint delivered, against the uninterrupted run that emitted it
// (state.resume_no_loss, state.resume_exactly_once, merge.resume_no_loss, the range shards'
// resumes of range.state_subdivision).
struct ResumedCheckpoint {
    std::uint64_t checkpoint = 0;  // 1-based number of the STATE in its run, as findings say
    std::uint64_t line = 0;
    std::uint64_t records_before = 0;
    std::string run;         // the resumed run's label
    std::uint64_t lost = 0;  // owed records (not committed by the checkpoint) never emitted
    std::string lost_example;
    std::uint64_t repeated = 0;  // incremental records the checkpoint committed, emitted again
    std::string repeated_example;

    bool clean() const { return lost == 0 && repeated == 0; }
};

// A run's STATE positions (the first k_timeline_checkpoints of `total`, so that a million STATEs
// cannot swell the report) and the checkpoints resumed from it.
struct CheckpointTimeline {
    std::uint64_t total = 0;
    std::vector<CheckpointMark> checkpoints;
    std::vector<ResumedCheckpoint> resumes;  // ordered by checkpoint
};

inline constexpr std::size_t k_timeline_checkpoints = 1000;

struct RunSummary {
    std::string label;
    std::string command;
    std::string exit;
    std::int64_t duration_ms = 0;
    std::uint64_t records = 0;
    std::uint64_t states = 0;
    std::uint64_t lines = 0;
    std::string stderr_tail;
    // Empty, or how cleaning up after the run failed (a container that could not be removed).
    std::string cleanup_problem;
    CheckpointTimeline timeline;  // empty when the run emitted no STATE
    // A connector run, whose RECORDs and STATEs count; false for a command of a Meltano extension.
    bool counts_messages = true;
};

struct ScenarioResult {
    std::string id;
    std::string suite;
    std::string title;
    Status status = Status::passed;
    std::vector<CheckResult> checks;
    std::vector<RunSummary> runs;
    std::string rerun;
    std::int64_t duration_ms = 0;
    std::string extension;     // the extension the scenario certifies; empty for the core protocol
    std::size_t position = 0;  // index among the selected scenarios, before --shard splits them
};

// Masks every text of `result` that can carry connector output or config values (messages,
// excerpts, notes, commands, stderr, the rerun command, resumed runs and their examples) with
// `mask`. The one place that knows them: every scenario result goes through it before any reporter
// sees it.
using Mask = std::function<std::string(std::string_view)>;
void redact(ScenarioResult& result, const Mask& mask);

struct Totals {
    std::size_t passed = 0;
    std::size_t warned = 0;
    std::size_t failed = 0;
    std::size_t skipped = 0;
    std::size_t expected_failures = 0;
    std::size_t flaky = 0;
};

// The counts kept apart from passed and failed, for a summary line: ", 2 expected failure(s), 1
// flaky"; "" when there are none (so a run without known failures or reruns reads as before).
std::string counted_apart(const Totals& totals);

// One difference between two versions of a connector (conform diff, run --baseline;
// docs/regression.md), as the reports show it.
struct Difference {
    std::string rule;  // stable id, e.g. "catalog.stream_removed"
    std::string where;
    std::string detail;
    bool breaking = false;
    std::string accepted_reason;  // set when the test config accepts it after review
};

// One stream's records and STATE messages in each version, and how its records were matched.
struct DifferenceStream {
    std::string stream;
    std::string identity;
    std::uint64_t control = 0;
    std::uint64_t target = 0;
    std::uint64_t added = 0;
    std::uint64_t removed = 0;
    std::uint64_t changed = 0;
    std::uint64_t control_states = 0;
    std::uint64_t target_states = 0;
};

struct Differences {
    std::string control;  // what the run was compared with
    std::vector<Difference> changes;
    std::vector<std::string> notes;  // what could not be compared, and how things were
    std::vector<DifferenceStream> streams = {};

    std::size_t unaccepted_breaking() const;
};

// What a report's target speaks: an Airbyte source (and its protocol extensions), a Meltano
// extension, an Airbyte destination or a Singer tap. The reports name areas, runs and
// certification in its terms.
inline constexpr std::string_view k_airbyte_source = "airbyte-source";
inline constexpr std::string_view k_meltano_extension = "meltano-extension";
inline constexpr std::string_view k_airbyte_destination = "airbyte-destination";
// RunReport::test_config of a run given by flags only (config::k_command_line_origin).
inline constexpr std::string_view k_command_line_origin = "<command line>";
// A Singer tap (docs/singer.md).
inline constexpr std::string_view k_singer = "singer";

struct RunReport {
    std::string protocol = std::string(k_airbyte_source);
    std::string conform_version;
    std::string connector;
    std::string connector_version;         // empty: unknown
    std::string connector_version_source;  // e.g. "image label io.airbyte.version"
    std::string test_config;
    std::string started_at;  // ISO 8601 UTC
    std::int64_t duration_ms = 0;
    bool strict = false;
    // Stopped by Ctrl-C, SIGTERM or SIGHUP: `scenarios` holds only those that finished before.
    bool interrupted = false;
    std::vector<std::string> claimed_extensions;
    // --only/--skip (or --fail-fast stopping early) left scenarios or checks out: the report
    // cannot certify anything.
    bool filtered = false;
    std::string shard;  // "K/N" for one shard of a run (--shard); empty for a whole run
    // conform validate: the messages of one recorded read, judged offline. It certifies nothing:
    // spec, check, discover and every check across runs never ran.
    bool recorded_transcript = false;
    std::uint64_t recorded_messages = 0;
    // Why the run could not test what it selected, whatever it was given (an
    // acceptance-test-config.yml that gives no connector config: only spec ran); empty: nothing
    // kept it. It certifies nothing.
    std::string untested;                    // the transcript's lines that are Airbyte messages
    std::optional<Differences> differences;  // set by conform diff and run --baseline
    std::vector<ScenarioResult> scenarios;
    // The known-failures file the run was given (empty: none), and what it said that the run
    // proved wrong: entries whose check now passes (stale: remove them).
    std::string known_failures_file;
    std::vector<std::string> stale_known_failures;
    // What the run tested (docs/coverage.md); absent in reports of a conform before it.
    std::optional<Coverage> coverage;

    Totals check_totals() const;
};

// The connector's version as reports show it: "unknown" when nothing named it.
std::string version_or_unknown(const RunReport& report);

// The findings of `check` beyond its examples, each level counted apart: "12 more" or "12 more,
// and 900 more (SHOULD)"; "" when every finding is an example.
std::string more_findings(const CheckResult& check);

// Receives a run as it happens. Console output streams; files are written at the end.
class Reporter {
public:
    virtual ~Reporter() = default;
    virtual void scenario_started(const std::string& /*id*/, const std::string& /*title*/) {}
    virtual void run_progress(const std::string& /*label*/, std::uint64_t /*records*/,
                              std::chrono::milliseconds /*elapsed*/) {}
    virtual void scenario_finished(const ScenarioResult& /*result*/) {}
    virtual void run_finished(const RunReport& /*report*/) {}
};

}  // namespace conform::report
