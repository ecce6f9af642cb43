#include <doctest/doctest.h>

#include "schema/formats.hpp"
#include "schema/schema.hpp"
#include "test_helpers.hpp"

using namespace conform::schema;
using namespace conform::schema::testing;

TEST_CASE("formats::names") {
    CHECK(format_from_name("date-time") == Format::date_time);
    CHECK(format_from_name("relative-json-pointer") == Format::relative_json_pointer);
    CHECK(format_from_name("uuid") == Format::none);
    CHECK(format_name(Format::uri_reference) == "uri-reference");
    CHECK(check_format(Format::none, "anything"));
}

TEST_CASE("formats::date-time") {
    CHECK(is_date_time("1985-04-12T23:20:50.52Z"));
    CHECK(is_date_time("1996-12-19T16:39:57-08:00"));
    CHECK(is_date_time("1963-06-19t08:30:06z"));
    CHECK(is_date_time("2024-02-29T00:00:00+00:00"));
    CHECK_FALSE(is_date_time("2023-02-29T00:00:00Z"));
    CHECK_FALSE(is_date_time("1985-04-12 23:20:50Z"));
    CHECK_FALSE(is_date_time("1985-04-12T23:20:50"));
    CHECK_FALSE(is_date_time("1985-04-12T23:20:50.Z"));
    CHECK_FALSE(is_date_time("1985-04-12T23:20:50+0100"));
    SUBCASE("leap seconds fall on 23:59 UTC") {
        CHECK(is_date_time("1998-12-31T23:59:60Z"));
        CHECK(is_date_time("1998-12-31T15:59:60.123-08:00"));
        CHECK_FALSE(is_date_time("1998-12-31T23:58:60Z"));
        CHECK_FALSE(is_date_time("1998-12-31T23:59:61Z"));
    }
    SUBCASE("Airbyte: era suffix and optional offset") {
        CHECK(is_date_time("2022-01-23T01:23:45.678-11:30 BC"));
        CHECK_FALSE(is_date_time("2022-01-23T01:23:45 BC"));
        FormatOptions without_timezone{.offset_optional = true};
        CHECK(is_date_time("2022-01-23T01:23:45", without_timezone));
        CHECK(is_date_time("2022-01-23T01:23:45.678 BC", without_timezone));
        CHECK(is_date_time("2022-01-23T01:23:45Z", without_timezone));
        CHECK_FALSE(is_date_time("2022-01-23T01:23", without_timezone));
        CHECK_FALSE(is_date_time("2022-01-23", without_timezone));
    }
}

TEST_CASE("formats::date and time") {
    CHECK(is_date("2020-02-29"));
    CHECK(is_date("0044-03-15 BC"));
    CHECK_FALSE(is_date("2100-02-29"));
    CHECK_FALSE(is_date("2020-1-01"));
    CHECK_FALSE(is_date("2020-01-01BC"));
    CHECK_FALSE(is_date("199x-01-01"));
    CHECK_FALSE(is_date("1999-1x-01"));
    CHECK(is_time("08:30:06.283185Z"));
    CHECK(is_time("23:59:60Z"));
    CHECK_FALSE(is_time("12:00:00"));
    CHECK(is_time("12:00:00", {.offset_optional = true}));
    CHECK_FALSE(is_time("12:00", {.offset_optional = true}));
}

TEST_CASE("formats::network names and addresses") {
    CHECK(is_email("joe.bloggs@example.com"));
    CHECK(is_email("\"joe bloggs\"@example.com"));
    CHECK(is_email("joe@[127.0.0.1]"));
    CHECK(is_email("joe@[IPv6:::1]"));
    CHECK_FALSE(is_email("joe..bloggs@example.com"));
    CHECK_FALSE(is_email("joe@"));
    CHECK(is_hostname("a-b.example.com"));
    CHECK_FALSE(is_hostname("-a.example.com"));
    CHECK_FALSE(is_hostname("a_b.com"));
    CHECK_FALSE(is_hostname(std::string(64, 'a') + ".com"));
    CHECK(is_ipv4("255.255.255.255"));
    CHECK_FALSE(is_ipv4("01.2.3.4"));
    CHECK_FALSE(is_ipv4("1.2.3"));
    CHECK(is_ipv6("2001:db8::ff00:42:8329"));
    CHECK(is_ipv6("::ffff:192.0.2.1"));
    CHECK_FALSE(is_ipv6("2001:db8:::1"));
    CHECK_FALSE(is_ipv6("1:2:3:4:5:6:7:8:9"));
}

TEST_CASE("formats::uri, json-pointer, regex") {
    CHECK(is_uri("https://user@example.com:8080/a/b?c=d#e"));
    CHECK(is_uri("urn:isbn:0451450523"));
    CHECK_FALSE(is_uri("/relative/path"));
    CHECK_FALSE(is_uri("http://exa mple.com"));
    CHECK(is_uri_reference("../a?b#c"));
    CHECK(is_uri_reference(""));
    CHECK_FALSE(is_uri_reference("a:b:c^"));
    CHECK(is_json_pointer("/a~1b/~0"));
    CHECK_FALSE(is_json_pointer("/a~2"));
    CHECK(is_relative_json_pointer("2/a"));
    CHECK(is_relative_json_pointer("0#"));
    CHECK_FALSE(is_relative_json_pointer("01"));
    CHECK(is_regex("^[a-z]+$"));
    CHECK_FALSE(is_regex("(unclosed"));
}

TEST_CASE("formats::why a timestamp is not one, where connectors usually get it wrong") {
    FormatOptions required;
    FormatOptions optional{true};
    auto why = [](std::string_view text, FormatOptions options) {
        CHECK_FALSE(is_date_time(text, options));
        return date_time_problem(text, options);
    };
    CHECK(why("2001-02-03T11:53:10.771720", required) ==
          "no time-zone offset: RFC 3339 wants Z or ±hh:mm (only airbyte_type "
          "timestamp_without_timezone allows none)");
    CHECK(why("2022-01-23T01:23:45 BC", required).starts_with("no time-zone offset"));
    CHECK(why("2021-02-30T00:00:00Z", required) == "2021-02 has no day 30");
    CHECK(why("2023-02-29T00:00:00Z", required) == "2023-02 has no day 29");
    CHECK(why("2021-13-01T00:00:00Z", required) == "there is no month 13");
    CHECK(why("2021-00-01T00:00:00Z", required) == "there is no month 00");
    CHECK(why("2021-01-01 12:00:00+00:00", required) ==
          "a space between date and time, where RFC 3339 wants a T");
    CHECK(why("2021-01-01 12:00:00", required) ==
          "a space between date and time, where RFC 3339 wants a T; no time-zone offset: RFC "
          "3339 wants Z or ±hh:mm (only airbyte_type timestamp_without_timezone allows none)");
    CHECK(why("2021-01-01 12:00:00", optional) ==
          "a space between date and time, where RFC 3339 wants a T");
    CHECK(why("2021-01-01T12:00:00+0000", required) == "the offset +0000 lacks its colon (+00:00)");
    CHECK(why("2021-01-01T12:00:00.5-0530", optional) ==
          "the offset -0530 lacks its colon (-05:30)");
    CHECK(why("2021-01-01", required) == "a date without a time");
    // Nothing specific to say: the message stays the plain one.
    CHECK(why("yesterday", required).empty());
    CHECK(why("2021-1-01T00:00:00Z", required).empty());
    CHECK(why("2021-01-01T25:00:00Z", required).empty());
    CHECK(why("2021-01-01X12:00:00Z", required).empty());
    CHECK(why("2021-01-01T12:00:00+25:00", required).empty());

    CHECK(time_problem("12:00:00", required) ==
          "no time-zone offset: RFC 3339 wants Z or ±hh:mm (only airbyte_type "
          "time_without_timezone allows none)");
    CHECK(time_problem("12:00:00+0530", required) == "the offset +0530 lacks its colon (+05:30)");
    CHECK(time_problem("noon", required).empty());
}

TEST_CASE("formats::as schema keywords") {
    SUBCASE("formats apply to strings only, unknown formats are annotations") {
        Schema date_time = Schema::compile_text(R"({"format": "date-time"})");
        CHECK(is_valid(date_time, "12"));
        CHECK_FALSE(is_valid(date_time, R"("yesterday")"));
        CHECK(is_valid(Schema::compile_text(R"({"format": "uuid"})"), R"("not-a-uuid")"));
    }
    SUBCASE("airbyte_type timestamp_without_timezone makes the offset optional") {
        Schema local = Schema::compile_text(R"({"type": "string", "format": "date-time",
            "airbyte_type": "timestamp_without_timezone"})");
        CHECK(is_valid(local, R"("2022-01-23T01:23:45")"));
        CHECK(is_valid(local, R"("2022-01-23T01:23:45+01:00")"));
        CHECK_FALSE(is_valid(local, R"("2022-01-23 01:23:45")"));
        auto violations = violations_of(local, R"("2022-01-23")");
        REQUIRE(violations.size() == 1);
        CHECK(violations[0].message ==
              "\"2022-01-23\" is not a valid date-time (offset optional): a date without a time");

        Schema with_zone = Schema::compile_text(R"({"type": "string", "format": "date-time",
            "airbyte_type": "timestamp_with_timezone"})");
        CHECK_FALSE(is_valid(with_zone, R"("2022-01-23T01:23:45")"));
        CHECK_FALSE(is_valid(Schema::compile_text(R"({"format": "date-time"})"),
                             R"("2022-01-23T01:23:45")"));
    }
    SUBCASE("airbyte_type time_without_timezone makes the offset optional") {
        Schema local =
            Schema::compile_text(R"({"format": "time", "airbyte_type": "time_without_timezone"})");
        CHECK(is_valid(local, R"("01:23:45.678")"));
        CHECK_FALSE(is_valid(Schema::compile_text(R"({"format": "time"})"), R"("01:23:45")"));
    }
}
