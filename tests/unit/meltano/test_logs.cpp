#include <doctest/doctest.h>

#include "meltano/logs.hpp"

using namespace conform::meltano;

TEST_CASE("logs: structlog's console renderer with timestamp and level") {
    auto line =
        read_console_line("2026-11-30T17:58:00.123456Z [info     ] Starting scheduler key=v");
    CHECK(line.has_timestamp);
    REQUIRE(line.level);
    CHECK(*line.level == "info");
    CHECK(line.event == "Starting scheduler key=v");
}

TEST_CASE("logs: the seed's example format") {
    auto line = read_console_line("2022-07-26 17:30.32 [ERROR] message=\"Failed to start\"");
    CHECK(line.has_timestamp);
    REQUIRE(line.level);
    CHECK(*line.level == "error");
    CHECK(line.event == "message=\"Failed to start\"");
}

TEST_CASE("logs: bare, colon and key=value levels; warn and fatal are aliases") {
    CHECK(read_console_line("WARNING something").level == "warning");
    CHECK(read_console_line("warn: something").level == "warning");
    CHECK(read_console_line("level=error something broke").level == "error");
    CHECK(read_console_line("FATAL gone").level == "critical");
    CHECK(read_console_line("[debug] x").level == "debug");
}

TEST_CASE("logs: an event alone has no level and no timestamp") {
    auto line = read_console_line("Starting scheduler");
    CHECK_FALSE(line.has_timestamp);
    CHECK_FALSE(line.level);
    CHECK(line.event == "Starting scheduler");
    CHECK_FALSE(read_console_line("information about x").level);
    CHECK(read_console_line("2026-11-30T17:58:00Z [info     ]").event.empty());
}

TEST_CASE("logs: ISO 8601 timestamps, with zones and fractions") {
    CHECK(starts_with_iso8601("2026-11-30T17:58:00Z x"));
    CHECK(starts_with_iso8601("2026-11-30 17:58:00,123 x"));
    CHECK(starts_with_iso8601("2026-11-30T17:58:00+01:00"));
    CHECK_FALSE(starts_with_iso8601("17:58:00 2026-11-30"));
    CHECK_FALSE(starts_with_iso8601("2026-11-30"));
    CHECK_FALSE(starts_with_iso8601("Nov 30 17:58:00"));
}

TEST_CASE("logs: ANSI escapes are found and stripped") {
    std::string coloured = "[\x1b[32minfo     \x1b[0m] started";
    CHECK(has_ansi_escape(coloured));
    CHECK_FALSE(has_ansi_escape("[info] started"));
    CHECK(strip_ansi(coloured) == "[info     ] started");
    CHECK(read_console_line(strip_ansi(coloured)).level == "info");
}

TEST_CASE("logs: JSON log lines") {
    std::string level;
    CHECK_FALSE(
        json_log_problem(R"({"event": "x", "level": "info", "timestamp": "2026-11-30T17:58:00Z"})",
                         true, true, &level));
    CHECK(level == "info");
    CHECK_FALSE(json_log_problem(R"({"event": "x"})", false, false));
    CHECK(json_log_problem(R"({"event": "x"})", true, false) ==
          std::string("no string \"level\" (LOG_LEVELS=true)"));
    CHECK(json_log_problem(R"({"event": "x", "timestamp": "yesterday"})", false, true) ==
          std::string("\"timestamp\" is not ISO 8601"));
    CHECK(json_log_problem(R"({"message": "x"})", false, false) ==
          std::string("no string \"event\""));
    CHECK(json_log_problem("[info] x", false, false) == std::string("not one JSON value"));
    CHECK(json_log_problem(R"({"event": "x"} {"event": "y"})", false, false) ==
          std::string("not one JSON value"));
    CHECK(json_log_problem(R"(["event"])", false, false) ==
          std::string("a JSON value that is not an object"));
}

TEST_CASE("logs: non-empty lines") {
    auto lines = non_empty_lines("a\r\n\n  \nb");
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "a");
    CHECK(lines[1] == "b");
    CHECK(non_empty_lines("").empty());
}
