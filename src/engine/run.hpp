#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "engine/known_failures.hpp"
#include "report/model.hpp"

// The one run loop: selection (--only, --skip), shards, --fail-fast, the reporter, redaction and
// rerun commands, for every protocol. A protocol is a ScenarioSource.
namespace conform::engine {

// What the loop needs of a scenario to select, shard and report it.
struct ScenarioHeader {
    std::string id;
    std::string suite;
    std::string title;
    std::vector<std::string> checks;  // in report order
};

// What a dry run says of one scenario.
struct PlannedScenario {
    std::vector<std::string> lines;  // the steps, one line each
    std::size_t runs = 0;            // connector (or extension) starts
    bool exact = true;               // false: the count depends on what the target emits
    std::string unmet;               // why it would be skipped without running anything
};

// The target's name and version for reports.
struct Target {
    std::string description;  // "native: python3 main.py", "podman image x:1"
    std::string version;      // empty: unknown
    std::string version_source;
};

// One protocol's scenarios against one target.
class ScenarioSource {
public:
    virtual ~ScenarioSource() = default;
    virtual const std::vector<ScenarioHeader>& scenarios() const = 0;
    // Runs once before the first scenario (e.g. spec for the secrets). Throws conform::Error for a
    // setup problem; the target's misbehaviour is a result, never an exception.
    virtual void prepare() = 0;
    virtual Target target() const = 0;
    // Runs scenario `index` and judges `checks` (the selected ones among its checks).
    virtual report::ScenarioResult run(std::size_t index, const std::vector<std::string>& checks,
                                       bool strict) = 0;
    // What a dry run prints of scenario `index`, starting nothing.
    virtual PlannedScenario plan(std::size_t index) const = 0;
    // `text` with the target's secrets masked.
    virtual std::string mask(std::string_view text) const = 0;
    // The streams the target offers, those conform configured and what the scenarios run so far
    // read of each (docs/coverage.md).
    virtual report::StreamsCoverage stream_coverage() const {
        return {true, false, "this source does not tell its streams", {}};
    }
};

struct RunOptions {
    bool strict = false;
    std::vector<std::string> only;  // scenario ids, check ids or suite names (globs)
    std::vector<std::string> skip;
    bool fail_fast = false;       // stop after the first scenario with a failed check
    std::size_t shard_index = 0;  // --shard K/N: K-1 and N
    std::size_t shard_count = 1;
    std::string rerun_prefix;  // the command line that reruns one scenario with --only ID
    // --known-failures: the failures reported as expected (docs/known-failures.md); null: none.
    const KnownFailures* known_failures = nullptr;
    // --rerun-failed N: a scenario with an unexpected failure runs again, up to N times, until it
    // has none; a check that failed and then passed is flaky (docs/known-failures.md).
    std::size_t rerun_failed = 0;
};

// The result of a scenario after one more attempt: `again`'s checks, except that a check failed
// in `before` is flaky when it passed (or warned) in `again` (with what it found first) and
// failed as before when `again` skipped it. Durations add up; the runs are `again`'s.
report::ScenarioResult after_rerun(report::ScenarioResult before, report::ScenarioResult again);

// Runs the selected scenarios of `source` and reports each to `reporter` as it finishes. Throws
// conform::Error (usage) for --only/--skip names that match nothing of `known_checks` or the
// scenarios.
report::RunReport run(ScenarioSource& source, const RunOptions& options,
                      report::Reporter& reporter);

// What a dry run of `source` with `options` would do, printed to stdout; returns the number of
// scenarios that would run.
std::size_t print_dry_run(const ScenarioSource& source, const RunOptions& options);

// Throws conform::Error (usage) for a name in `names` that matches no scenario, suite or check,
// with the nearest known name.
void check_selection_names(const std::vector<std::string>& names,
                           const std::vector<ScenarioHeader>& scenarios,
                           const std::vector<std::string>& known_checks);

// The selected checks of `scenario`, in its order.
std::vector<std::string> selected_checks(const ScenarioHeader& scenario, const RunOptions& options);

// True when --only/--skip leave part of the scenarios or checks out.
bool is_filtered(const RunOptions& options);

}  // namespace conform::engine
