#include "json/parse.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::json {
namespace {

constexpr unsigned k_parse_flags = rapidjson::kParseCommentsFlag | rapidjson::kParseIterativeFlag;
// Lines longer than this are shown as a window around the error column.
constexpr std::size_t k_snippet_half_width = 60;

bool is_utf8_continuation(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

std::size_t step_back_to_char_start(std::string_view text, std::size_t index) {
    while (index > 0 && index < text.size() && is_utf8_continuation(text[index])) {
        --index;
    }
    return index;
}

// The offending line (or a window of it) and a caret line pointing at `offset`.
std::string snippet_with_caret(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    std::size_t line_begin = 0;
    if (offset > 0) {
        std::size_t newline = text.rfind('\n', offset - 1);
        line_begin = newline == std::string_view::npos ? 0 : newline + 1;
    }
    std::size_t line_end = text.find('\n', offset);
    if (line_end == std::string_view::npos) {
        line_end = text.size();
    }
    std::size_t shown_begin = line_begin;
    std::size_t shown_end = line_end;
    if (offset - line_begin > k_snippet_half_width) {
        shown_begin = step_back_to_char_start(text, offset - k_snippet_half_width);
    }
    if (line_end - offset > k_snippet_half_width) {
        shown_end = step_back_to_char_start(text, offset + k_snippet_half_width);
    }
    std::string prefix = shown_begin > line_begin ? "…" : "";
    std::string suffix = shown_end < line_end ? "…" : "";
    std::string_view shown = text.substr(shown_begin, shown_end - shown_begin);
    if (!shown.empty() && shown.back() == '\r') {
        shown.remove_suffix(1);
    }
    std::string caret = prefix.empty() ? "" : " ";
    for (std::size_t i = shown_begin; i < offset; ++i) {
        if (text[i] == '\t') {
            caret += '\t';
        } else if (!is_utf8_continuation(text[i])) {
            caret += ' ';
        }
    }
    caret += '^';
    return fmt::format("    {}{}{}\n    {}", prefix, shown, suffix, caret);
}

}  // namespace

rapidjson::Document parse_json_text(std::string_view text, std::string_view origin_name) {
    rapidjson::Document document;
    document.Parse<k_parse_flags>(text.data(), text.size());
    if (document.HasParseError()) {
        std::size_t offset = document.GetErrorOffset();
        TextPosition position = position_of(text, offset);
        throw_input_error(fmt::format("{}:{}:{}: {}\n{}", origin_name, position.line,
                                      position.column,
                                      rapidjson::GetParseError_En(document.GetParseError()),
                                      snippet_with_caret(text, offset)));
    }
    return document;
}

rapidjson::Document parse_json_file(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) {
        throw_input_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
    }
    std::ostringstream contents;
    contents << stream.rdbuf();
    if (stream.bad()) {
        throw_input_error(fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
    }
    return parse_json_text(contents.view(), path.string());
}

}  // namespace conform::json
