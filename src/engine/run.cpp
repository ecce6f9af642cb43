#include "engine/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <optional>

#include "engine/selection.hpp"
#include "engine/verdict.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::engine {

namespace {

using Clock = std::chrono::steady_clock;

std::int64_t milliseconds_since(Clock::time_point start) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
}

// Calls `visit(index, position, checks)` for each scenario that runs in this shard: selected by
// --only/--skip, with at least one selected check (a scenario that would judge nothing does not
// run), at its position among the selected ones.
template <typename Visit>
void for_each_selected(const std::vector<ScenarioHeader>& scenarios, const RunOptions& options,
                       Visit visit) {
    std::size_t position = 0;
    for (std::size_t index = 0; index < scenarios.size(); ++index) {
        const auto& scenario = scenarios[index];
        if (!scenario_selected(options.only, options.skip, scenario.id, scenario.suite,
                               scenario.checks)) {
            continue;
        }
        auto checks = selected_checks(scenario, options);
        if (checks.empty()) {
            continue;
        }
        auto selected_position = position++;
        if (in_shard(selected_position, options.shard_index, options.shard_count)) {
            if (!visit(index, selected_position, checks)) {
                return;
            }
        }
    }
}

// True when `result` has a failed check that no known-failures entry lists.
bool has_unexpected_failure(const report::ScenarioResult& result,
                            const std::optional<KnownFailureLedger>& ledger) {
    return std::any_of(result.checks.begin(), result.checks.end(),
                       [&](const report::CheckResult& check) {
                           return check.status == report::Status::failed &&
                                  !(ledger && ledger->expects(result, check));
                       });
}

std::string first_finding(const report::CheckResult& check) {
    if (!check.flaky_first_failure.empty()) {
        return check.flaky_first_failure;
    }
    return check.examples.empty() ? check.title : check.examples.front().message;
}

// Runs scenario `index` and, under --rerun-failed, again while it has unexpected failures.
report::ScenarioResult run_with_reruns(ScenarioSource& source, std::size_t index,
                                       const std::vector<std::string>& checks,
                                       const RunOptions& options,
                                       const std::optional<KnownFailureLedger>& ledger) {
    auto started = Clock::now();
    auto result = source.run(index, checks, options.strict);
    result.duration_ms = milliseconds_since(started);
    for (std::size_t attempt = 0;
         attempt < options.rerun_failed && has_unexpected_failure(result, ledger); ++attempt) {
        auto again_started = Clock::now();
        auto again = source.run(index, checks, options.strict);
        again.duration_ms = milliseconds_since(again_started);
        result = after_rerun(std::move(result), std::move(again));
    }
    return result;
}

}  // namespace

report::ScenarioResult after_rerun(report::ScenarioResult before, report::ScenarioResult again) {
    for (auto& check : again.checks) {
        auto earlier = std::find_if(
            before.checks.begin(), before.checks.end(),
            [&check](const report::CheckResult& candidate) { return candidate.id == check.id; });
        if (earlier == before.checks.end() || (earlier->status != report::Status::failed &&
                                               earlier->status != report::Status::flaky)) {
            continue;
        }
        if (check.status == report::Status::passed || check.status == report::Status::warned) {
            check.flaky_first_failure = first_finding(*earlier);
            check.status = report::Status::flaky;
        } else if (check.status == report::Status::skipped) {
            check = *earlier;
        }
    }
    again.status = scenario_status(again.checks);
    again.duration_ms += before.duration_ms;
    return again;
}

std::vector<std::string> selected_checks(const ScenarioHeader& scenario,
                                         const RunOptions& options) {
    std::vector<std::string> checks;
    std::copy_if(scenario.checks.begin(), scenario.checks.end(), std::back_inserter(checks),
                 [&options](const std::string& check) {
                     return check_selected(options.only, options.skip, check);
                 });
    return checks;
}

bool is_filtered(const RunOptions& options) {
    return !options.only.empty() || !options.skip.empty();
}

void check_selection_names(const std::vector<std::string>& names,
                           const std::vector<ScenarioHeader>& scenarios,
                           const std::vector<std::string>& known_checks) {
    std::vector<std::string> known = known_checks;
    for (const auto& scenario : scenarios) {
        known.push_back(scenario.id);
        known.push_back(scenario.suite);
    }
    for (const auto& name : names) {
        if (std::any_of(known.begin(), known.end(),
                        [&name](const std::string& id) { return glob_matches(name, id); })) {
            continue;
        }
        throw Error(
            ErrorKind::usage,
            fmt::format("unknown scenario, suite or check '{}'{}; `conform list` shows them", name,
                        did_you_mean(name, known)));
    }
}

report::RunReport run(ScenarioSource& source, const RunOptions& options,
                      report::Reporter& reporter) {
    auto started = Clock::now();
    report::RunReport report;
    report.strict = options.strict;
    report.filtered = is_filtered(options);
    if (options.shard_count > 1) {
        report.shard = fmt::format("{}/{}", options.shard_index + 1, options.shard_count);
    }
    source.prepare();
    auto target = source.target();
    report.connector = target.description;
    report.connector_version = target.version;
    report.connector_version_source = target.version_source;
    const auto& scenarios = source.scenarios();
    std::optional<KnownFailureLedger> ledger;
    if (options.known_failures != nullptr) {
        ledger.emplace(*options.known_failures);
    }
    for_each_selected(
        scenarios, options,
        [&](std::size_t index, std::size_t position, const std::vector<std::string>& checks) {
            const auto& header = scenarios[index];
            reporter.scenario_started(header.id, header.title);
            auto result = run_with_reruns(source, index, checks, options, ledger);
            result.rerun = options.rerun_prefix + " --only " + header.id;
            result.position = position;
            if (ledger) {
                ledger->apply(result);
            }
            report::redact(result, [&source](std::string_view text) { return source.mask(text); });
            reporter.scenario_finished(result);
            report.scenarios.push_back(std::move(result));
            if (options.fail_fast && report.scenarios.back().status == report::Status::failed) {
                report.filtered = true;  // what did not run is not certified
                return false;
            }
            return true;
        });
    if (ledger) {
        ledger->settle(report);
    }
    report.coverage = report::Coverage{source.stream_coverage(), {}};
    report.duration_ms = milliseconds_since(started);
    return report;
}

std::size_t print_dry_run(const ScenarioSource& source, const RunOptions& options) {
    std::size_t selected = 0;
    std::size_t runs = 0;
    bool exact = true;
    const auto& scenarios = source.scenarios();
    for_each_selected(scenarios, options,
                      [&](std::size_t index, std::size_t, const std::vector<std::string>& checks) {
                          const auto& header = scenarios[index];
                          auto planned = source.plan(index);
                          fmt::print("{:<28} {}\n", header.id, header.title);
                          if (!planned.unmet.empty()) {
                              fmt::print("  skipped without running: {}\n", planned.unmet);
                              return true;
                          }
                          ++selected;
                          for (const auto& line : planned.lines) {
                              fmt::print("  {}\n", line);
                          }
                          fmt::print("  checks: {}\n", fmt::join(checks, ", "));
                          runs += planned.runs;
                          exact = exact && planned.exact;
                          return true;
                      });
    fmt::print(
        "\n{} scenario(s) would run{}; {}{} run(s) of the target{}\n", selected,
        options.shard_count > 1
            ? fmt::format(" (shard {}/{})", options.shard_index + 1, options.shard_count)
            : "",
        exact ? "" : "about ", runs,
        exact ? "" : " (~: resumes and key splits depend on the checkpoints and keys it emits)");
    return selected;
}

}  // namespace conform::engine
