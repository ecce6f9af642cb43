// Cursor date-times read as instants (protocol/instant.*): the spellings one stream's cursors
// come in compare by the time they name.
#include <doctest/doctest.h>

#include "protocol/instant.hpp"
#include "protocol/observation.hpp"

using conform::protocol::CursorValue;
using conform::protocol::parse_instant;

TEST_CASE("instant: dates and date-times in their usual spellings") {
    CHECK(parse_instant("1970-01-01")->seconds == 0);
    CHECK(parse_instant("1970-01-02T00:00:00Z")->seconds == 86'400);
    CHECK(parse_instant("2025-05-20T12:30:00Z") == parse_instant("2025-05-20T12:30:00.000000Z"));
    CHECK(parse_instant("2025-05-20T12:30:00Z") == parse_instant("2025-05-20 12:30:00+00:00"));
    CHECK(parse_instant("2025-05-20T14:30:00+02:00") == parse_instant("2025-05-20T12:30:00z"));
    CHECK(parse_instant("2025-05-20T12:30:00-0130") == parse_instant("2025-05-20T14:00:00Z"));
    CHECK(parse_instant("2025-05-20T12:30") == parse_instant("2025-05-20T12:30:00"));
    CHECK(parse_instant("2025-05-20T12:30:00.25Z")->nanoseconds == 250'000'000);
    CHECK(parse_instant("1969-12-31T23:59:59Z")->seconds == -1);
}

TEST_CASE("instant: anything else is not one") {
    for (const char* text :
         {"", "2025", "2025-13-01", "2025-02-30", "2025-05-20T", "2025-05-20X",
          "2025-05-20T25:00:00Z", "2025-05-20T12:30:00.Z", "2025-05-20T12:30:00Zjunk",
          "2025-05-20T12:30:00+2", "abc", "2025-05-20T12:30:00+24:00"}) {
        CAPTURE(text);
        CHECK_FALSE(parse_instant(text).has_value());
    }
}

TEST_CASE("cursor value: date-times compare as instants, other strings as strings") {
    CursorValue bookmark{std::nullopt, "2025-05-20T12:30:00Z"};
    CursorValue record{std::nullopt, "2025-05-20T12:30:00.000000Z"};
    CursorValue later{std::nullopt, "2025-05-20T12:30:00.250000Z"};
    // As strings '.' sorts before 'Z': the same instant would be "older" (singer-io/tap-gitlab).
    CHECK(record.compare(bookmark) == 0);
    CHECK(later.compare(bookmark) == 1);
    CHECK(bookmark.compare(later) == -1);
    CursorValue west{std::nullopt, "2025-05-20T10:00:00-05:00"};
    CHECK(west.compare(bookmark) == 1);
    CursorValue word{std::nullopt, "b"};
    CHECK(word.compare(bookmark) == 1);
}

TEST_CASE("cursor value: cursors written alike order as text, others as instants") {
    auto order = [](const char* a, const char* b) {
        return CursorValue{std::nullopt, a}.compare(CursorValue{std::nullopt, b});
    };
    CHECK(order("2025-05-20T12:30:00Z", "2025-05-21T00:00:00Z") == -1);
    CHECK(order("2025-05-20 12:30:00", "2025-05-20 12:29:59") == 1);
    CHECK(order("2025-05-20", "2025-05-20") == 0);
    // The same layout with an offset: by instant (14:30+02:00 is 12:30Z, before 13:00+00:00).
    CHECK(order("2025-05-20T14:30:00+02:00", "2025-05-20T13:00:00+00:00") == -1);
    CHECK(order("2025-05-20T10:00:00-05:00", "2025-05-20T12:00:00-00:00") == 1);
    // Layouts that differ: by instant.
    CHECK(order("2025-05-20T12:30:00Z", "2025-05-20T12:30:00.000000Z") == 0);
    CHECK(order("b", "abc") == 1);
    // Strings of digits (epoch times, ClickUp's "1764646901000") order as numbers.
    CHECK(order("999", "1000") == -1);
    CHECK(order("0010", "9") == 1);
    CHECK(order("1764646901000", "1764646901000") == 0);
    CHECK(order("1764646901000", "1764633706000") == 1);
}
