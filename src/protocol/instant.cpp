#include "protocol/instant.hpp"

#include <chrono>

namespace conform::protocol {

namespace {

// Reads `count` digits at `at` into `value`; false when they are not all there.
bool digits(std::string_view text, std::size_t& at, std::size_t count, int& value) {
    if (at + count > text.size()) {
        return false;
    }
    value = 0;
    for (std::size_t i = 0; i < count; ++i) {
        char c = text[at + i];
        if (c < '0' || c > '9') {
            return false;
        }
        value = value * 10 + (c - '0');
    }
    at += count;
    return true;
}

bool expect(std::string_view text, std::size_t& at, char wanted) {
    if (at < text.size() && text[at] == wanted) {
        ++at;
        return true;
    }
    return false;
}

// The fraction of a second after the '.', to nanoseconds (digits beyond the ninth dropped).
bool fraction(std::string_view text, std::size_t& at, std::uint32_t& nanoseconds) {
    std::size_t start = at;
    std::uint32_t scale = 100'000'000;
    nanoseconds = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
        nanoseconds += static_cast<std::uint32_t>(text[at] - '0') * scale;
        scale /= 10;
        ++at;
    }
    return at > start;
}

// The offset east of UTC in seconds: Z, or ±hh[[:]mm]; 0 when there is none.
bool offset(std::string_view text, std::size_t& at, int& seconds) {
    seconds = 0;
    if (at == text.size()) {
        return true;
    }
    if (text[at] == 'Z' || text[at] == 'z') {
        ++at;
        return true;
    }
    if (text[at] != '+' && text[at] != '-') {
        return false;
    }
    int sign = text[at++] == '-' ? -1 : 1;
    int hours = 0;
    int minutes = 0;
    if (!digits(text, at, 2, hours)) {
        return false;
    }
    if (at < text.size()) {
        expect(text, at, ':');
        if (!digits(text, at, 2, minutes)) {
            return false;
        }
    }
    if (hours > 23 || minutes > 59) {
        return false;
    }
    seconds = sign * (hours * 3600 + minutes * 60);
    return true;
}

}  // namespace

std::optional<Instant> parse_instant(std::string_view text) {
    std::size_t at = 0;
    int year = 0;
    int month = 0;
    int day = 0;
    if (!digits(text, at, 4, year) || !expect(text, at, '-') || !digits(text, at, 2, month) ||
        !expect(text, at, '-') || !digits(text, at, 2, day)) {
        return std::nullopt;
    }
    std::chrono::year_month_day date{std::chrono::year(year),
                                     std::chrono::month(static_cast<unsigned>(month)),
                                     std::chrono::day(static_cast<unsigned>(day))};
    if (!date.ok()) {
        return std::nullopt;
    }
    Instant instant;
    instant.seconds = std::chrono::sys_days(date).time_since_epoch().count() * 86'400LL;
    if (at == text.size()) {
        return instant;
    }
    if (text[at] != 'T' && text[at] != 't' && text[at] != ' ') {
        return std::nullopt;
    }
    ++at;
    int hour = 0;
    int minute = 0;
    int second = 0;
    if (!digits(text, at, 2, hour) || !expect(text, at, ':') || !digits(text, at, 2, minute)) {
        return std::nullopt;
    }
    if (expect(text, at, ':')) {
        if (!digits(text, at, 2, second)) {
            return std::nullopt;
        }
        if (expect(text, at, '.') && !fraction(text, at, instant.nanoseconds)) {
            return std::nullopt;
        }
    }
    int east = 0;
    // A leap second (:60) is the same instant as the next second's start here.
    if (hour > 23 || minute > 59 || second > 60 || !offset(text, at, east) || at != text.size()) {
        return std::nullopt;
    }
    instant.seconds += hour * 3600LL + minute * 60LL + second - east;
    return instant;
}

}  // namespace conform::protocol
