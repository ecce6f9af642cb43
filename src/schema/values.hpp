#pragma once

// Internal: JSON value helpers for validation (type names, equality, lengths).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <rapidjson/document.h>

namespace conform::schema {

inline std::string_view view_of(const rapidjson::Value& string) {
    return {string.GetString(), string.GetStringLength()};
}

// A number with no fractional part, whatever its representation (1 and 1.0 both count).
bool is_integer(const rapidjson::Value& value);

// "integer", "number", "string", ... as a draft-07 `type` would name `value`.
std::string_view type_name_of(const rapidjson::Value& value);

// Names of the types in `bits`, joined with " or ".
std::string type_names(std::uint8_t bits);

// JSON Schema equality: numbers compare by value (1 == 1.0), objects ignore member order.
bool json_equal(const rapidjson::Value& a, const rapidjson::Value& b);

// Finds two equal elements of `array`; returns false when all are distinct.
bool find_duplicate(const rapidjson::Value& array, std::size_t& first, std::size_t& second);

// Number of Unicode code points in UTF-8 `text`.
std::size_t count_code_points(std::string_view text);

// A short rendering of `value` for messages: scalars as JSON (long strings cut), containers by
// their kind.
std::string describe_value(const rapidjson::Value& value);

}  // namespace conform::schema
