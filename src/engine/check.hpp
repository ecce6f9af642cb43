#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

#include "report/model.hpp"

namespace conform::engine {

// What describes a check in reports, --only and `conform list`: a stable id, the contract clauses
// it enforces, MUST or SHOULD, and what it verifies. Ids are part of conform's interface; never
// rename one.
struct CheckInfo {
    std::string_view id;
    std::vector<std::string_view> clauses;
    report::Level level = report::Level::must;
    std::string_view title;
};

// The check of `checks` (any protocol's table: rows with an `info`) whose id is `id`, or nullptr.
template <typename CheckT>
const CheckT* find_check(const std::vector<CheckT>& checks, std::string_view id) {
    auto found = std::find_if(checks.begin(), checks.end(),
                              [id](const CheckT& check) { return check.info.id == id; });
    return found == checks.end() ? nullptr : &*found;
}

}  // namespace conform::engine
