#include "meltano/logs.hpp"

#include <rapidjson/document.h>

#include <array>

#include "json/bounded_parse.hpp"
#include "util/ascii.hpp"

namespace conform::meltano {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    for (auto& c : out) {
        if (c >= 'A' && c <= 'Z') {
            c = static_cast<char>(c - 'A' + 'a');
        }
    }
    return out;
}

bool digits(std::string_view text, std::size_t at, std::size_t count) {
    if (at + count > text.size()) {
        return false;
    }
    for (std::size_t i = at; i < at + count; ++i) {
        if (!is_ascii_digit(text[i])) {
            return false;
        }
    }
    return true;
}

// Length of the leading ISO 8601 timestamp (with fraction and zone), 0 when there is none.
std::size_t timestamp_length(std::string_view text) {
    // YYYY-MM-DD[T ]HH:MM[:.]SS
    if (!digits(text, 0, 4) || text.size() < 19 || text[4] != '-' || !digits(text, 5, 2) ||
        text[7] != '-' || !digits(text, 8, 2) || (text[10] != 'T' && text[10] != ' ') ||
        !digits(text, 11, 2) || text[13] != ':' || !digits(text, 14, 2) ||
        (text[16] != ':' && text[16] != '.') || !digits(text, 17, 2)) {
        return 0;
    }
    std::size_t at = 19;
    if (at < text.size() && (text[at] == '.' || text[at] == ',')) {
        ++at;
        while (at < text.size() && is_ascii_digit(text[at])) {
            ++at;
        }
    }
    if (at < text.size() && text[at] == 'Z') {
        ++at;
    } else if (at < text.size() && (text[at] == '+' || text[at] == '-') &&
               digits(text, at + 1, 2)) {
        at += 3;
        if (at < text.size() && text[at] == ':') {
            ++at;
        }
        if (digits(text, at, 2)) {
            at += 2;
        }
    }
    return at;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) {
        text.remove_suffix(1);
    }
    return text;
}

}  // namespace

bool has_ansi_escape(std::string_view text) {
    return text.find('\x1b') != std::string_view::npos;
}

std::string strip_ansi(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\x1b') {
            out += text[i];
            continue;
        }
        // ESC [ parameters final-byte (CSI), or ESC and one more character.
        if (i + 1 < text.size() && text[i + 1] == '[') {
            i += 2;
            while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) {
                ++i;
            }
        } else {
            ++i;
        }
    }
    return out;
}

bool starts_with_iso8601(std::string_view text) {
    return timestamp_length(text) > 0;
}

std::optional<std::string> level_name(std::string_view word) {
    std::string name = lower(word);
    static const std::array<std::string_view, 5> k_levels = {"debug", "info", "warning", "error",
                                                             "critical"};
    for (auto level : k_levels) {
        if (name == level) {
            return std::string(level);
        }
    }
    if (name == "warn") {
        return "warning";
    }
    if (name == "fatal") {
        return "critical";
    }
    if (name == "exception" || name == "err") {
        return "error";
    }
    return std::nullopt;
}

ConsoleLine read_console_line(std::string_view line) {
    ConsoleLine result;
    std::string_view rest = trim(line);
    if (auto length = timestamp_length(rest); length > 0) {
        result.has_timestamp = true;
        rest = trim(rest.substr(length));
    }
    // A bracketed level: "[info     ]".
    if (!rest.empty() && rest.front() == '[') {
        auto close = rest.find(']');
        if (close != std::string_view::npos) {
            if (auto level = level_name(trim(rest.substr(1, close - 1)))) {
                result.level = level;
                result.event = std::string(trim(rest.substr(close + 1)));
                return result;
            }
        }
    }
    // "INFO event", "INFO: event", "level=info event": the first word only.
    auto space = rest.find_first_of(" \t");
    std::string_view word = rest.substr(0, space);
    std::string_view after = space == std::string_view::npos ? "" : trim(rest.substr(space));
    if (word.starts_with("level=")) {
        word.remove_prefix(6);
    }
    if (word.ends_with(':')) {
        word.remove_suffix(1);
    }
    if (auto level = level_name(word)) {
        result.level = level;
        result.event = std::string(after);
        return result;
    }
    result.event = std::string(rest);
    return result;
}

bool carries_event(const ConsoleLine& line) {
    return line.has_timestamp || line.level || !line.event.empty();
}

bool has_traceback(std::string_view text) {
    return text.find("Traceback (most recent call last):") != std::string_view::npos;
}

std::optional<std::string> json_log_problem(std::string_view line, bool levels, bool timestamps,
                                            std::string* level) {
    rapidjson::Document document;
    auto parse = json::parse_bounded(document, line);
    if (parse.too_deep) {
        return json::reason_of(parse);
    }
    if (parse.failed()) {
        return "not one JSON value";
    }
    if (!document.IsObject()) {
        return "a JSON value that is not an object";
    }
    auto event = document.FindMember("event");
    if (event == document.MemberEnd() || !event->value.IsString()) {
        return "no string \"event\"";
    }
    auto level_member = document.FindMember("level");
    if (level_member != document.MemberEnd() && level_member->value.IsString() && level) {
        *level =
            level_name(level_member->value.GetString()).value_or(level_member->value.GetString());
    }
    if (levels) {
        if (level_member == document.MemberEnd() || !level_member->value.IsString()) {
            return "no string \"level\" (LOG_LEVELS=true)";
        }
        if (!level_name(level_member->value.GetString())) {
            return "\"level\" is not a log level name";
        }
    }
    if (timestamps) {
        auto stamp = document.FindMember("timestamp");
        if (stamp == document.MemberEnd() || !stamp->value.IsString()) {
            return "no string \"timestamp\" (LOG_TIMESTAMPS=true)";
        }
        if (!starts_with_iso8601(stamp->value.GetString())) {
            return "\"timestamp\" is not ISO 8601";
        }
    }
    return std::nullopt;
}

std::vector<std::string_view> non_empty_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (!trim(line).empty()) {
            lines.push_back(line);
        }
        if (end == std::string_view::npos) {
            break;
        }
        text.remove_prefix(end + 1);
    }
    return lines;
}

}  // namespace conform::meltano
