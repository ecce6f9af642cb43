#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string_view>

#include "protocol/observation.hpp"

// Cursor values moved far into the future: what a state that lies ahead of every record holds
// (Airbyte's future_state, AP-STATE-4; Singer's far-future bookmarks, SG-INC-2).
namespace conform::protocol {

// A date or date-time: four digits and a dash, at least ten characters.
bool looks_like_date(std::string_view text);

// A time since the Unix epoch between 1973 and 2286, in seconds, milliseconds or microseconds,
// and the last second of the year 9999 in that unit: what a source that reads the cursor as a
// time can still read (Python's datetime ends there; a million times a millisecond time does not).
struct EpochUnit {
    double from;
    double to;
    std::int64_t year_9999_end;
};

// The unit of `number` as a time since the epoch; null for any other number.
const EpochUnit* epoch_unit_of(double number);
// The unit of a time since the epoch written as a string of digits (ClickUp's "1764646901000",
// which Faros's source keeps in its state as it came); null for any other text.
const EpochUnit* epoch_unit_of_text(std::string_view text);
// A date or a time since the epoch in digits.
bool is_time_text(std::string_view text);

// Moves `value` far into the future: a date-like string gets the year 9999, a time since the epoch
// the end of the year 9999 in its unit, any other number a value a million times larger. False
// when it is not a value that can be moved.
bool move_to_future(rapidjson::Value& value, rapidjson::Document::AllocatorType& allocator);

// `cursor` moved as move_to_future moves a value; none when it cannot be.
std::optional<CursorValue> far_future(const CursorValue& cursor);

}  // namespace conform::protocol
