#pragma once

#include <string>

#include "json/fwd.hpp"

namespace conform::json {

// The writers below never recurse (any nesting depth is safe), write strings with the minimal
// escapes and non-ASCII bytes unchanged, and write NaN and infinities as null.

// Compact JSON, members in document order; doubles keep a fraction or exponent ("1.0").
std::string to_json(const rapidjson::Value& value);

// Canonical compact JSON: object members sorted by the bytes of their names (duplicate names keep
// their order); integral numbers within int64/uint64 written as integers, so 1 and 1.0 are
// equal; other doubles in shortest round-trip form. Equal text means equal JSON values.
std::string to_canonical_json(const rapidjson::Value& value);

}  // namespace conform::json
