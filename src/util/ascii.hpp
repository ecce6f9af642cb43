#pragma once

namespace conform {

// Locale-free ASCII classification, for parsers of formats and hex keys.
constexpr bool is_ascii_digit(char c) {
    return c >= '0' && c <= '9';
}

constexpr bool is_ascii_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// The value of hex digit `c`, or -1 when it is not one.
constexpr int hex_value(char c) {
    if (is_ascii_digit(c)) {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

constexpr bool is_hex_digit(char c) {
    return hex_value(c) >= 0;
}

}  // namespace conform
