#pragma once

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

}  // namespace conform::engine
