#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

// What a check reads, as typed needs matched against a scenario's steps: one function decides,
// when the suite is loaded (an unmatched need is a load error) and when the check runs (the check
// receives exactly the matched steps).
namespace conform::engine {

// How many steps a need takes.
enum class Count {
    one,          // exactly one
    two,          // exactly two
    one_or_more,  // at least one
    any,          // none or more (the check judges what there is)
};

// Which reference of a step points at the step it is based on.
enum class Reference {
    state,    // the step it resumes from
    backlog,  // the step whose records a tailing read delivers first
};

template <typename Role>
struct Basis {
    Reference reference = Reference::state;
    Role role;
};

template <typename Role>
struct Need {
    // Not explicit: a role alone is the commonest need.
    Need(Role needed, std::vector<Role> also = {}, std::vector<Role> never = {},
         std::optional<Basis<Role>> base = std::nullopt, Count how_many = Count::one_or_more,
         std::optional<std::size_t> after_need = std::nullopt)
        : role(needed),
          with(std::move(also)),
          without(std::move(never)),
          based_on(base),
          count(how_many),
          after(after_need) {}

    Role role;
    std::vector<Role> with;     // roles the same step must also provide
    std::vector<Role> without;  // roles it must not provide
    std::optional<Basis<Role>> based_on;
    Count count;
    std::optional<std::size_t> after;  // its steps come after those of need `after`
};

// A step as the matcher sees it: its id, the roles it provides and the steps it refers to.
template <typename Role>
struct StepShape {
    std::string id;
    std::vector<Role> roles;
    std::optional<std::size_t> state_base = std::nullopt;    // index of the step it resumes from
    std::optional<std::size_t> backlog_base = std::nullopt;  // index of its backlog step
};

// For each need, the indexes of the steps it takes, in scenario order; or why it cannot be met.
struct Matching {
    std::vector<std::vector<std::size_t>> steps;
    std::vector<std::string> problems;

    bool matched() const { return problems.empty(); }
};

namespace detail {

template <typename Role>
bool provides(const StepShape<Role>& step, Role role) {
    return std::find(step.roles.begin(), step.roles.end(), role) != step.roles.end();
}

template <typename Role>
std::optional<std::size_t> base_index(const StepShape<Role>& step, Reference reference) {
    return reference == Reference::state ? step.state_base : step.backlog_base;
}

template <typename Role>
bool fits(const Need<Role>& need, const std::vector<StepShape<Role>>& steps, std::size_t index,
          std::optional<std::size_t> not_before) {
    const auto& step = steps[index];
    if (!provides(step, need.role) || (not_before && index <= *not_before)) {
        return false;
    }
    for (auto role : need.with) {
        if (!provides(step, role)) {
            return false;
        }
    }
    for (auto role : need.without) {
        if (provides(step, role)) {
            return false;
        }
    }
    if (need.based_on) {
        auto base = base_index(step, need.based_on->reference);
        return base && *base < steps.size() && provides(steps[*base], need.based_on->role);
    }
    return true;
}

inline bool count_met(Count count, std::size_t found) {
    switch (count) {
        case Count::one:
            return found == 1;
        case Count::two:
            return found == 2;
        case Count::one_or_more:
            return found >= 1;
        case Count::any:
            break;
    }
    return true;
}

inline std::string_view count_text(Count count) {
    switch (count) {
        case Count::one:
            return "exactly one step";
        case Count::two:
            return "exactly two steps";
        case Count::one_or_more:
            return "a step";
        case Count::any:
            break;
    }
    return "any number of steps";
}

}  // namespace detail

// What `need` asks for, in words: "a resumed read that is also a read with the merge config,
// resumed from a read with the merge config". `name` names a role.
template <typename Role, typename Name>
std::string describe(const Need<Role>& need, Name name) {
    std::string text(name(need.role));
    for (auto role : need.with) {
        text += fmt::format(" that is also {}", name(role));
    }
    for (auto role : need.without) {
        text += fmt::format(" that is not {}", name(role));
    }
    if (need.based_on) {
        text += need.based_on->reference == Reference::state ? ", resumed from "
                                                             : ", with the backlog of ";
        text += name(need.based_on->role);
    }
    return text;
}

// Matches each need of a check to the steps of a scenario. A need's steps must come after every
// step of its `after` need; the count must be met exactly.
template <typename Role, typename Name>
Matching match_needs(const std::vector<Need<Role>>& needs,
                     const std::vector<StepShape<Role>>& steps, Name name) {
    Matching matching;
    for (const auto& need : needs) {
        std::optional<std::size_t> not_before;
        if (need.after && *need.after < matching.steps.size() &&
            !matching.steps[*need.after].empty()) {
            not_before = matching.steps[*need.after].back();
        }
        std::vector<std::size_t> found;
        for (std::size_t i = 0; i < steps.size(); ++i) {
            if (detail::fits(need, steps, i, not_before)) {
                found.push_back(i);
            }
        }
        if (!detail::count_met(need.count, found.size())) {
            std::vector<std::string> ids;
            for (auto index : found) {
                ids.push_back("'" + steps[index].id + "'");
            }
            matching.problems.push_back(fmt::format(
                "needs {} that is {}{}, and the scenario has {}", detail::count_text(need.count),
                describe(need, name),
                not_before ? fmt::format(" after step '{}'", steps[*not_before].id) : "",
                found.empty() ? std::string("none")
                              : fmt::format("{} ({})", found.size(), fmt::join(ids, ", "))));
        }
        matching.steps.push_back(std::move(found));
    }
    return matching;
}

}  // namespace conform::engine
