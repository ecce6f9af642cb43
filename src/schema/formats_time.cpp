#include "schema/formats.hpp"

#include <fmt/format.h>

#include <array>
#include <cstddef>

namespace conform::schema {

namespace {

// Fixed-position parsing: these checks run on every timestamp of every record.
constexpr std::string_view k_era_suffix = " BC";
constexpr std::size_t k_date_length = 10;  // YYYY-MM-DD
constexpr std::size_t k_time_length = 8;   // HH:MM:SS
constexpr int k_minutes_per_day = 24 * 60;
constexpr int k_last_minute_of_day = 23 * 60 + 59;

int digit(char c) {
    auto value = static_cast<unsigned>(c) - '0';
    return value <= 9 ? static_cast<int>(value) : -1000;
}

// The two-digit number at `pos`, or a negative value when either character is not a digit.
int two_digits(std::string_view text, std::size_t pos) {
    return digit(text[pos]) * 10 + digit(text[pos + 1]);
}

bool is_leap_year(int year) {
    return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
}

int days_in_month(int year, int month) {
    constexpr std::array<int, 12> k_days{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && is_leap_year(year) ? 29 : k_days[static_cast<std::size_t>(month - 1)];
}

std::string_view without_era_suffix(std::string_view text) {
    if (text.ends_with(k_era_suffix)) {
        text.remove_suffix(k_era_suffix.size());
    }
    return text;
}

// Checks the full-date at the start of `text`, which must hold at least k_date_length bytes.
bool is_full_date_prefix(std::string_view text) {
    int century = two_digits(text, 0);
    int year_of_century = two_digits(text, 2);
    int month = two_digits(text, 5);
    int day = two_digits(text, 8);
    return century >= 0 && year_of_century >= 0 && text[4] == '-' && text[7] == '-' && month >= 1 &&
           month <= 12 && day >= 1 && day <= days_in_month(century * 100 + year_of_century, month);
}

// Parses the time offset in `text` (the rest after partial-time) as minutes east of UTC.
bool parse_offset(std::string_view text, FormatOptions options, int& offset_minutes) {
    offset_minutes = 0;
    if (text.empty()) {
        return options.offset_optional;
    }
    if (text.size() == 1) {
        return text[0] == 'Z' || text[0] == 'z';
    }
    if (text.size() != 6 || (text[0] != '+' && text[0] != '-') || text[3] != ':') {
        return false;
    }
    int hours = two_digits(text, 1);
    int minutes = two_digits(text, 4);
    offset_minutes = (text[0] == '-' ? -1 : 1) * (hours * 60 + minutes);
    return hours >= 0 && hours <= 23 && minutes >= 0 && minutes <= 59;
}

bool is_full_time(std::string_view text, FormatOptions options) {
    if (text.size() < k_time_length || text[2] != ':' || text[5] != ':') {
        return false;
    }
    int hour = two_digits(text, 0);
    int minute = two_digits(text, 3);
    int second = two_digits(text, 6);
    if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) {
        return false;
    }
    std::size_t pos = k_time_length;
    if (pos < text.size() && text[pos] == '.') {
        std::size_t first_digit = ++pos;
        while (pos < text.size() && digit(text[pos]) >= 0) {
            ++pos;
        }
        if (pos == first_digit) {
            return false;
        }
    }
    int offset_minutes = 0;
    if (!parse_offset(text.substr(pos), options, offset_minutes)) {
        return false;
    }
    if (second == 60) {
        int utc_minute =
            ((hour * 60 + minute - offset_minutes) % k_minutes_per_day + k_minutes_per_day) %
            k_minutes_per_day;
        return utc_minute == k_last_minute_of_day;
    }
    return true;
}

// Why a partial-time and offset is not a full-time, when its offset is why; empty otherwise.
std::string offset_problem(std::string_view time, FormatOptions options, std::string_view kind) {
    if (is_full_time(time, options)) {
        return {};
    }
    if (!options.offset_optional && is_full_time(time, FormatOptions{true})) {
        return fmt::format(
            "no time-zone offset: RFC 3339 wants Z or ±hh:mm "
            "(only airbyte_type {}_without_timezone allows none)",
            kind);
    }
    constexpr std::size_t k_offset_without_colon = 5;  // +hhmm
    if (time.size() > k_offset_without_colon) {
        auto offset = time.substr(time.size() - k_offset_without_colon);
        std::string with_colon(time.substr(0, time.size() - 2));
        with_colon += ':';
        with_colon += offset.substr(3);
        if ((offset[0] == '+' || offset[0] == '-') && is_full_time(with_colon, options)) {
            return fmt::format("the offset {} lacks its colon ({})", offset,
                               with_colon.substr(with_colon.size() - 6));
        }
    }
    return {};
}

}  // namespace

std::string time_problem(std::string_view text, FormatOptions options) {
    return offset_problem(text, options, "time");
}

std::string date_time_problem(std::string_view text, FormatOptions options) {
    text = without_era_suffix(text);
    if (text.size() < k_date_length || text[4] != '-' || text[7] != '-' ||
        two_digits(text, 0) < 0 || two_digits(text, 2) < 0 || two_digits(text, 5) < 0 ||
        two_digits(text, 8) < 0) {
        return {};
    }
    int year = two_digits(text, 0) * 100 + two_digits(text, 2);
    int month = two_digits(text, 5);
    int day = two_digits(text, 8);
    if (month < 1 || month > 12) {
        return fmt::format("there is no month {:02}", month);
    }
    if (day < 1 || day > days_in_month(year, month)) {
        return fmt::format("{} has no day {:02}", text.substr(0, 7), day);
    }
    if (text.size() == k_date_length) {
        return "a date without a time";
    }
    auto time = text.substr(k_date_length + 1);
    char separator = text[k_date_length];
    auto time_wrong = offset_problem(time, options, "timestamp");
    if (separator == 'T' || separator == 't') {
        return time_wrong;
    }
    if (separator != ' ' || (time_wrong.empty() && !is_full_time(time, options))) {
        return {};
    }
    constexpr std::string_view k_space = "a space between date and time, where RFC 3339 wants a T";
    return time_wrong.empty() ? std::string(k_space) : fmt::format("{}; {}", k_space, time_wrong);
}

bool is_date(std::string_view text) {
    text = without_era_suffix(text);
    return text.size() == k_date_length && is_full_date_prefix(text);
}

bool is_time(std::string_view text, FormatOptions options) {
    return is_full_time(text, options);
}

bool is_date_time(std::string_view text, FormatOptions options) {
    text = without_era_suffix(text);
    return text.size() > k_date_length && is_full_date_prefix(text) &&
           (text[k_date_length] == 'T' || text[k_date_length] == 't') &&
           is_full_time(text.substr(k_date_length + 1), options);
}

}  // namespace conform::schema
