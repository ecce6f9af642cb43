#include "engine/run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "engine/selection.hpp"
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

}  // namespace

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
    for_each_selected(
        scenarios, options,
        [&](std::size_t index, std::size_t position, const std::vector<std::string>& checks) {
            const auto& header = scenarios[index];
            reporter.scenario_started(header.id, header.title);
            auto scenario_started = Clock::now();
            auto result = source.run(index, checks, options.strict);
            result.duration_ms = milliseconds_since(scenario_started);
            result.rerun = options.rerun_prefix + " --only " + header.id;
            result.position = position;
            report::redact(result, [&source](std::string_view text) { return source.mask(text); });
            reporter.scenario_finished(result);
            report.scenarios.push_back(std::move(result));
            if (options.fail_fast && report.scenarios.back().status == report::Status::failed) {
                report.filtered = true;  // what did not run is not certified
                return false;
            }
            return true;
        });
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
