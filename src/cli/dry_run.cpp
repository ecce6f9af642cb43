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
    using Split = suite::SplitChoice::Kind;
    RunCount count;
    switch (step.split.kind) {
        case Split::halves:
        case Split::one_key_at_end:
        case Split::one_key_at_start:
            count.runs = 2;
            break;
        case Split::equal:
            count.runs = step.split.parts;
            break;
        case Split::cuts:
            count.runs = step.split.cuts.size() + 1;
            break;
        case Split::around_key:
            count.exact = false;
            break;
        case Split::none:
            if (step.range.kind == suite::RangeChoice::Kind::malformed) {
                count.runs = 3;
            }
            break;
    }
    if (step.resumes()) {
        count.exact = false;  // fewer when the base run emitted fewer checkpoints
        if (step.state_checkpoint.kind == suite::CheckpointChoice::Kind::sample) {
            count.runs *= resume_sample + 3;  // first, middle, last and the sample, at most
        }
    }
    return count;
}

std::string range_text(const suite::RangeChoice& range) {
    switch (range.kind) {
        case suite::RangeChoice::Kind::full:
            return "full";
        case suite::RangeChoice::Kind::malformed:
            return "malformed";
        case suite::RangeChoice::Kind::given:
            return range.begin + "-" + range.end;
        case suite::RangeChoice::Kind::absent:
            break;
    }
    return "absent";
}

std::string step_shape(const suite::Step& step) {
    std::vector<std::string> parts{std::string(to_string(step.run))};
    if (step.config != suite::ConfigChoice::main) {
        parts.push_back(fmt::format("config {}", to_string(step.config)));
    }
    if (step.tail != suite::TailFlag::absent) {
        parts.push_back(fmt::format("tail {}", to_string(step.tail)));
    }
    if (step.splits()) {
        parts.push_back("split " + to_string(step.split));
    } else if (step.range.kind != suite::RangeChoice::Kind::absent) {
        parts.push_back("range " + range_text(step.range));
    }
    if (step.resumes()) {
        parts.push_back(fmt::format("resume from {} ({} checkpoint)", step.state_from,
                                    to_string(step.state_checkpoint)));
    }
    if (step.projections != suite::ProjectionChoice::none) {
        parts.emplace_back(step.projections == suite::ProjectionChoice::configured
                               ? "projections configured"
                               : "projections identity");
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
