#include "cli/dry_run.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "cli/cli.hpp"

namespace conform::cli {

namespace {

struct RunCount {
    std::size_t runs = 1;
    bool exact = true;  // false: depends on what the connector emits (checkpoints, keys)
};

// How many connector runs `step` makes for each run of the step it resumes (or once).
RunCount runs_per_step(const suite::Step& step, std::size_t resume_sample) {
    RunCount count;
    if (step.split == "halves" || step.split.starts_with("one_key_at")) {
        count.runs = 2;
    } else if (step.split.starts_with("equal:")) {
        count.runs = std::stoul(step.split.substr(6));
    } else if (step.split.starts_with("cuts:")) {
        count.runs =
            static_cast<std::size_t>(std::count(step.split.begin(), step.split.end(), ',')) + 2;
    } else if (step.split == "around_key") {
        count.exact = false;
    } else if (step.range == "malformed") {
        count.runs = 3;
    }
    if (!step.state_from.empty()) {
        count.exact = false;  // fewer when the base run emitted fewer checkpoints
        if (step.state_checkpoint == "sample") {
            count.runs *= resume_sample;
        }
    }
    return count;
}

std::string step_shape(const suite::Step& step) {
    std::vector<std::string> parts{step.run};
    if (step.config != "main") {
        parts.push_back("config " + step.config);
    }
    if (step.tail != "absent") {
        parts.push_back("tail " + step.tail);
    }
    if (!step.split.empty()) {
        parts.push_back("split " + step.split);
    } else if (step.range != "absent") {
        parts.push_back("range " + step.range);
    }
    if (!step.state_from.empty()) {
        parts.push_back(
            fmt::format("resume from {} ({} checkpoint)", step.state_from,
                        step.state_checkpoint.empty() ? "last" : step.state_checkpoint));
    }
    if (step.projections != "none") {
        parts.push_back("projections " + step.projections);
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

int dry_run_command(const std::vector<suite::Scenario>& scenarios, const suite::RunOptions& options,
                    const config::TestConfig& config) {
    std::size_t position = 0;
    std::size_t selected = 0;
    std::size_t total_runs = 0;
    bool exact = true;
    for (const auto& scenario : scenarios) {
        if (!suite::is_selected(scenario, options) || !suite::in_shard(position++, options)) {
            continue;
        }
        ++selected;
        fmt::print("{:<28} {}\n", scenario.id, scenario.title);
        if (!scenario.requires_.empty()) {
            fmt::print("  requires: {}\n", fmt::join(scenario.requires_, ", "));
        }
        for (const auto& step : scenario.steps) {
            auto count = runs_per_step(step, config.resume_sample);
            total_runs += count.runs;
            exact = exact && count.exact;
            fmt::print("  step {:<22} {} -> {}{} run(s)\n", step.id, step_shape(step),
                       count.exact ? "" : "~", count.runs);
        }
        std::vector<std::string> checks;
        std::copy_if(
            scenario.checks.begin(), scenario.checks.end(), std::back_inserter(checks),
            [&options](const auto& check) { return suite::is_check_selected(check, options); });
        fmt::print("  checks: {}\n", fmt::join(checks, ", "));
    }
    fmt::print(
        "\n{} scenario(s) would run{}; the connector would start {}{} time(s), plus spec and "
        "discover once{}\n",
        selected,
        options.shard_count > 1 ? fmt::format(" (shard {}/{} of {})", options.shard_index + 1,
                                              options.shard_count, position)
                                : "",
        exact ? "" : "about ", total_runs,
        exact ? "" : " (~: resumes and key splits depend on the checkpoints and keys it emits)");
    return selected == 0 ? k_exit_nothing_ran : k_exit_passed;
}

}  // namespace conform::cli
