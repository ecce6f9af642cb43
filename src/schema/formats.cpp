#include "schema/formats.hpp"

#include "schema/regex.hpp"

#include <array>
#include <utility>

namespace conform::schema {

namespace {

constexpr std::array<std::pair<std::string_view, Format>, 12> k_format_names{{
    {"date-time", Format::date_time},
    {"date", Format::date},
    {"time", Format::time},
    {"email", Format::email},
    {"hostname", Format::hostname},
    {"ipv4", Format::ipv4},
    {"ipv6", Format::ipv6},
    {"uri", Format::uri},
    {"uri-reference", Format::uri_reference},
    {"json-pointer", Format::json_pointer},
    {"relative-json-pointer", Format::relative_json_pointer},
    {"regex", Format::regex},
}};

}  // namespace

Format format_from_name(std::string_view name) {
    for (const auto& [format_name, format] : k_format_names) {
        if (format_name == name) {
            return format;
        }
    }
    return Format::none;
}

std::string_view format_name(Format format) {
    for (const auto& [name, candidate] : k_format_names) {
        if (candidate == format) {
            return name;
        }
    }
    return "";
}

std::string format_problem(Format format, std::string_view text, FormatOptions options) {
    switch (format) {
        case Format::date_time:
            return date_time_problem(text, options);
        case Format::time:
            return time_problem(text, options);
        default:
            return {};
    }
}

bool check_format(Format format, std::string_view text, FormatOptions options) {
    switch (format) {
        case Format::none:
            return true;
        case Format::date_time:
            return is_date_time(text, options);
        case Format::date:
            return is_date(text);
        case Format::time:
            return is_time(text, options);
        case Format::email:
            return is_email(text);
        case Format::hostname:
            return is_hostname(text);
        case Format::ipv4:
            return is_ipv4(text);
        case Format::ipv6:
            return is_ipv6(text);
        case Format::uri:
            return is_uri(text);
        case Format::uri_reference:
            return is_uri_reference(text);
        case Format::json_pointer:
            return is_json_pointer(text);
        case Format::relative_json_pointer:
            return is_relative_json_pointer(text);
        case Format::regex:
            return is_regex(text);
    }
    return true;
}

bool is_regex(std::string_view text) {
    // Building the regex is the only faithful check of what the pattern keyword will accept;
    // `format: regex` is rare in records, so its cost does not matter.
    try {
        Regex regex(text, /*cache=*/false);
        return true;
    } catch (const RegexError&) {
        return false;
    }
}

}  // namespace conform::schema
