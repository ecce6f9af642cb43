#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "json/fwd.hpp"

namespace conform::json {

// One place where two JSON values differ: the RFC 6901 pointer of the place and each side's value
// there as canonical JSON, empty when that side has nothing there.
struct Difference {
    std::string pointer;
    std::string expected;
    std::string actual;
};

struct Differences {
    std::vector<Difference> shown;  // the first `limit`, in the expected value's document order
    std::size_t total = 0;
};

// Where `actual` differs from `expected`: object members by name in any order, array elements by
// index, numbers by value (1 and 1.0 are equal). A member or element one side lacks is one
// difference at its own pointer; so is a different type or scalar. `prefix` starts every
// pointer. Never recurses (any nesting depth is safe).
Differences differences(const rapidjson::Value& expected, const rapidjson::Value& actual,
                        std::size_t limit, const std::string& prefix = "");

}  // namespace conform::json
