#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/judge.hpp"
#include "engine/verdict.hpp"
#include "report/model.hpp"
#include "util/error.hpp"

// What the protocols whose scenarios are built in (Meltano extensions, Singer taps, Airbyte
// destinations) share: the test config's "protocol", the binding of each scenario's checks to its
// steps, and the run of one scenario (its steps, then each selected check judged on the steps its
// needs matched; destinations judge "not run" per check and keep their own loop).
namespace conform::engine {

// True when the JSON file at `path` says "protocol": `protocol`. False for any other file,
// including one that cannot be read or parsed (another loader then reports the problem).
bool declares_protocol(const std::filesystem::path& path, std::string_view protocol);

// Binds each check a scenario lists to the steps its needs read: `find(checks, id)` gives the
// check (or nullptr), `match(check, scenario)` its engine::Matching. An unknown check or an unmet
// need is an internal error: the tables are conform's own.
template <typename ScenarioT, typename Checks, typename Find, typename Match>
void bind_checks(std::vector<ScenarioT>& scenarios, const Checks& checks, Find find, Match match) {
    for (auto& scenario : scenarios) {
        for (const auto& id : scenario.checks) {
            const auto* check = find(checks, id);
            if (check == nullptr) {
                throw_internal_error(
                    fmt::format("scenario '{}' lists the unknown check '{}'", scenario.id, id));
            }
            auto matching = match(*check, scenario);
            if (!matching.matched()) {
                throw_internal_error(fmt::format("scenario '{}': check '{}' {}", scenario.id, id,
                                                 matching.problems.front()));
            }
            scenario.inputs.push_back(std::move(matching));
        }
    }
}

// One scenario: unless `unmet`, `run_step(step, earlier)` runs its steps in order; then each check
// of `selected` is judged (`judge_check(id, steps, matching, circumstances)`), and `summarize(step,
// result)` adds every step's runs to the result.
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
    }
    for (const auto& step : steps) {
        summarize(step, result);
    }
    result.status = scenario_status(result.checks);
    return result;
}

}  // namespace conform::engine
