#include "schema/formats.hpp"
#include "schema/uri.hpp"
#include "util/ascii.hpp"

#include <cstddef>
#include <optional>

namespace conform::schema {

namespace {

constexpr std::string_view k_sub_delims = "!$&'()*+,;=";
constexpr std::string_view k_unreserved_symbols = "-._~";

bool is_unreserved(char c) {
    return is_ascii_alpha(c) || is_ascii_digit(c) ||
           k_unreserved_symbols.find(c) != std::string_view::npos;
}

bool is_sub_delim(char c) {
    return k_sub_delims.find(c) != std::string_view::npos;
}

// True when every character of `text` is unreserved, a sub-delimiter, one of `extra`, or part
// of a %XX escape.
bool has_only_uri_chars(std::string_view text, std::string_view extra) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '%') {
            if (i + 2 >= text.size() || !is_hex_digit(text[i + 1]) || !is_hex_digit(text[i + 2])) {
                return false;
            }
            i += 2;
        } else if (!is_unreserved(c) && !is_sub_delim(c) &&
                   extra.find(c) == std::string_view::npos) {
            return false;
        }
    }
    return true;
}

bool is_scheme(std::string_view text) {
    if (text.empty() || !is_ascii_alpha(text.front())) {
        return false;
    }
    for (char c : text) {
        if (!is_ascii_alpha(c) && !is_ascii_digit(c) && c != '+' && c != '-' && c != '.') {
            return false;
        }
    }
    return true;
}

bool is_ip_future(std::string_view text) {
    std::size_t dot = text.find('.');
    if (text.size() < 4 || (text.front() != 'v' && text.front() != 'V') ||
        dot == std::string_view::npos || dot < 2 || dot + 1 == text.size()) {
        return false;
    }
    for (char c : text.substr(1, dot - 1)) {
        if (!is_hex_digit(c)) {
            return false;
        }
    }
    return has_only_uri_chars(text.substr(dot + 1), ":");
}

bool is_port(std::string_view text) {
    for (char c : text) {
        if (!is_ascii_digit(c)) {
            return false;
        }
    }
    return true;
}

bool is_authority(std::string_view text) {
    std::size_t at = text.find('@');
    if (at != std::string_view::npos) {
        if (!has_only_uri_chars(text.substr(0, at), ":")) {
            return false;
        }
        text.remove_prefix(at + 1);
    }
    std::string_view rest;
    if (text.starts_with('[')) {
        std::size_t close = text.find(']');
        if (close == std::string_view::npos) {
            return false;
        }
        std::string_view literal = text.substr(1, close - 1);
        if (!is_ipv6(literal) && !is_ip_future(literal)) {
            return false;
        }
        rest = text.substr(close + 1);
    } else {
        std::size_t colon = text.find(':');
        if (!has_only_uri_chars(text.substr(0, colon), "")) {
            return false;
        }
        rest = colon == std::string_view::npos ? std::string_view() : text.substr(colon);
    }
    return rest.empty() || (rest.front() == ':' && is_port(rest.substr(1)));
}

bool is_valid_reference(const UriComponents& parts) {
    if (parts.scheme && !is_scheme(*parts.scheme)) {
        return false;
    }
    if (parts.authority && !is_authority(*parts.authority)) {
        return false;
    }
    if (!parts.scheme && !parts.authority) {
        // A relative path's first segment must not look like a scheme.
        std::string_view first_segment = parts.path.substr(0, parts.path.find('/'));
        if (first_segment.find(':') != std::string_view::npos) {
            return false;
        }
    }
    return has_only_uri_chars(parts.path, ":@/") &&
           has_only_uri_chars(parts.query.value_or(""), ":@/?") &&
           has_only_uri_chars(parts.fragment.value_or(""), ":@/?");
}

}  // namespace

bool is_uri(std::string_view text) {
    UriComponents parts = split_uri_components(text);
    return parts.scheme && is_valid_reference(parts);
}

bool is_uri_reference(std::string_view text) {
    return is_valid_reference(split_uri_components(text));
}

bool is_json_pointer(std::string_view text) {
    if (text.empty()) {
        return true;
    }
    if (text.front() != '/') {
        return false;
    }
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '~' &&
            (i + 1 == text.size() || (text[i + 1] != '0' && text[i + 1] != '1'))) {
            return false;
        }
    }
    return true;
}

bool is_relative_json_pointer(std::string_view text) {
    std::size_t digits = 0;
    while (digits < text.size() && is_ascii_digit(text[digits])) {
        ++digits;
    }
    if (digits == 0 || (digits > 1 && text.front() == '0')) {
        return false;
    }
    std::string_view rest = text.substr(digits);
    return rest == "#" || is_json_pointer(rest);
}

}  // namespace conform::schema
