#pragma once

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "util/error.hpp"

namespace conform::engine {

// Binds a protocol's scenario table to its checks: for every check a scenario lists, the steps
// each of its needs reads (`scenario.inputs`, in the order of `scenario.checks`). `find(checks,
// id)` returns the check or null, `match(check, scenario)` its Matching. Throws an internal error
// for an unknown check or unmet needs: the tables are conform's own.
template <typename Scenario, typename Checks, typename Find, typename Match>
std::vector<Scenario> bind_scenarios(std::vector<Scenario> scenarios, const Checks& checks,
                                     Find find, Match match) {
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
    return scenarios;
}

}  // namespace conform::engine
