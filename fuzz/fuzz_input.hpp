#pragma once

// Shared by the fuzz targets: splitting one input into parts.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

namespace conform::fuzz {

inline std::string_view as_text(const std::uint8_t* data, std::size_t size) {
    return {reinterpret_cast<const char*>(data), size};
}

// The text before the first '\n' and the text after it (empty when there is none).
inline std::pair<std::string_view, std::string_view> split_first_line(std::string_view text) {
    std::size_t newline = text.find('\n');
    if (newline == std::string_view::npos) {
        return {text, {}};
    }
    return {text.substr(0, newline), text.substr(newline + 1)};
}

// Gives each line of `text` to `observer` as connector stdout, numbered from 1, as a run does.
template <typename Observer>
void feed_stdout_lines(Observer& observer, std::string_view text) {
    std::uint64_t number = 0;
    while (!text.empty()) {
        auto [line, rest] = split_first_line(text);
        observer.on_stdout_line(line, ++number, false);
        text = rest;
    }
}

}  // namespace conform::fuzz
