#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/check.hpp"
#include "engine/judge.hpp"
#include "engine/needs.hpp"
#include "engine/run.hpp"
#include "engine/verdict.hpp"
#include "report/model.hpp"
#include "util/error.hpp"

// What the protocols whose scenarios are built in (Meltano extensions, Singer taps, Airbyte
// destinations) share: the test config's "protocol", a scenario of the table, the binding of each
// scenario's checks to its steps, the headers the run loop sees, the run of one scenario (its
// steps, then each selected check judged on the steps its needs matched; destinations judge "not
// run" per check and keep their own loop) and the run of the whole suite.
namespace conform::engine {

// A scenario of a built-in table (Meltano extensions, Singer taps): its steps, what it requires
// of the test config (each protocol words why a requirement is unmet) and its checks, bound to the
// steps by bind_checks.
template <typename StepT>
struct Scenario {
    std::string id;
    std::string title;
    std::vector<std::string> requires_;
    std::vector<StepT> steps;
    std::vector<std::string> checks;
    std::vector<Matching> inputs;  // per check, the steps each of its needs reads
    // The checks the scenario exists for (report::CheckResult::purpose); empty: all of them.
    std::vector<std::string> purpose = {};
};

// True when the JSON file at `path` says "protocol": `protocol`. False for any other file,
// including one that cannot be read or parsed (another loader then reports the problem).
bool declares_protocol(const std::filesystem::path& path, std::string_view protocol);

// A step as the matcher sees it when it refers to no other step: its id and its roles.
struct ShapeOfRoles {
    template <typename StepT>
    auto operator()(const StepT& step) const {
        using Role = typename decltype(step.roles())::value_type;
        return StepShape<Role>{step.id, step.roles()};
    }
};

// Matches `needs` to `scenario`'s steps as `shape_of` shows them, a role named by its `to_string`
// in the problems.
template <typename Role, typename ScenarioT, typename ShapeOf>
Matching match_steps(const std::vector<Need<Role>>& needs, const ScenarioT& scenario,
                     ShapeOf shape_of) {
    std::vector<StepShape<Role>> shapes;
    shapes.reserve(scenario.steps.size());
    for (const auto& step : scenario.steps) {
        shapes.push_back(shape_of(step));
    }
    return match_needs(needs, shapes, [](Role role) { return to_string(role); });
}

// Binds each check a scenario lists to the steps its needs read (as `shape_of` shows a step). An
// unknown check or an unmet need is an internal error: the tables are conform's own.
template <typename ScenarioT, typename CheckT, typename ShapeOf = ShapeOfRoles>
void bind_checks(std::vector<ScenarioT>& scenarios, const std::vector<CheckT>& checks,
                 ShapeOf shape_of = {}) {
    for (auto& scenario : scenarios) {
        for (const auto& id : scenario.checks) {
            const auto* check = find_check(checks, id);
            if (check == nullptr) {
                throw_internal_error(
                    fmt::format("scenario '{}' lists the unknown check '{}'", scenario.id, id));
            }
            auto matching = match_steps(check->needs, scenario, shape_of);
            if (!matching.matched()) {
                throw_internal_error(fmt::format("scenario '{}': check '{}' {}", scenario.id, id,
                                                 matching.problems.front()));
            }
            scenario.inputs.push_back(std::move(matching));
        }
    }
}

// The scenarios of one suite as the run loop sees them.
template <typename ScenarioT>
std::vector<ScenarioHeader> headers_of(const std::vector<ScenarioT>& scenarios,
                                       std::string_view suite) {
    std::vector<ScenarioHeader> headers;
    headers.reserve(scenarios.size());
    for (const auto& scenario : scenarios) {
        headers.push_back({scenario.id, std::string(suite), scenario.title, scenario.checks});
    }
    return headers;
}

// One scenario: unless `unmet`, `run_step(step, earlier)` runs its steps in order; then each check
// of `selected` is judged (`judge_check(id, steps, matching, circumstances)`), and every run of
// every step is summarized in the result (`summarize(run)`).
template <typename StepResultT, typename ScenarioT, typename RunStep, typename JudgeCheck,
          typename Summarize>
report::ScenarioResult run_scenario(const ScenarioT& scenario, std::string_view suite,
                                    const std::vector<std::string>& selected, bool strict,
                                    const std::optional<std::string>& unmet, RunStep run_step,
                                    JudgeCheck judge_check, Summarize summarize) {
    report::ScenarioResult result;
    result.id = scenario.id;
    result.suite = std::string(suite);
    result.title = scenario.title;
    std::vector<StepResultT> steps;
    if (!unmet) {
        steps.reserve(scenario.steps.size());
        for (const auto& step : scenario.steps) {
            steps.push_back(run_step(step, steps));
        }
    }
    for (std::size_t c = 0; c < scenario.checks.size(); ++c) {
        const auto& id = scenario.checks[c];
        if (std::find(selected.begin(), selected.end(), id) == selected.end()) {
            continue;
        }
        Circumstances circumstances;
        circumstances.strict = strict;
        circumstances.not_run = unmet;
        result.checks.push_back(judge_check(id, steps, scenario.inputs[c], circumstances));
        result.checks.back().purpose = exists_for(scenario, id);
    }
    for (const auto& step : steps) {
        for (const auto& run : step.runs) {
            result.runs.push_back(summarize(run));
        }
    }
    result.status = scenario_status(result.checks);
    return result;
}

// The run loop over `source`, the report naming the test config and the protocol.
report::RunReport run_builtin_suite(ScenarioSource& source, const RunOptions& options,
                                    report::Reporter& reporter,
                                    const std::filesystem::path& test_config,
                                    std::string_view protocol);

}  // namespace conform::engine
