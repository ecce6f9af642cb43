#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace conform::meltano {

// One stderr line read as a console log line (structlog's ConsoleRenderer, the seed's example or
// a similar "TIMESTAMP [LEVEL] event key=value" format).
struct ConsoleLine {
    bool has_timestamp = false;        // starts with an ISO 8601 date and time
    std::optional<std::string> level;  // lower case: debug, info, warning, error, critical
    std::string event;                 // what is left; empty when the line carries no event
};

// ANSI escape sequences (colour codes) in `text`.
bool has_ansi_escape(std::string_view text);

// `text` without ANSI escape sequences.
std::string strip_ansi(std::string_view text);

// True when `text` starts with an ISO 8601 date and time: 2026-11-30T17:58:00.123Z,
// "2026-11-30 17:58:00" or the seed's "2022-07-26 17:30.32".
bool starts_with_iso8601(std::string_view text);

// The log level named by `word` (case-insensitive, "warn" is warning, "fatal"/"exception" are
// critical/error), or nothing.
std::optional<std::string> level_name(std::string_view word);

// Reads `line` (ANSI codes already stripped): an optional leading timestamp, then a level as
// "[info     ]", "INFO", "INFO:" or "level=info" among the first words, then the event.
ConsoleLine read_console_line(std::string_view line);

// True when `line` carries a log event as MX-LOG-1 reads it in either format: a structured line
// (a timestamp or a level, as a JSON line with a string "event") is an event even when its text
// is empty, which structlog writes for an empty message; a bare line is an event by its text.
bool carries_event(const ConsoleLine& line);

// True when `text` holds a Python traceback ("Traceback (most recent call last):").
bool has_traceback(std::string_view text);

// Why `line` is not a JSON log object with a string "event" (and "level"/"timestamp" when
// `levels`/`timestamps`), or nothing when it is. `level` receives the level when present.
std::optional<std::string> json_log_problem(std::string_view line, bool levels, bool timestamps,
                                            std::string* level = nullptr);

// `text` split into lines without their '\n' (and a trailing '\r'); empty lines dropped.
std::vector<std::string_view> non_empty_lines(std::string_view text);

}  // namespace conform::meltano
