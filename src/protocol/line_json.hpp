#pragma once

// What is wrong with a stdout line's JSON, said precisely (docs/hostile-input.md): the cases a
// reader could mistake for "not JSON at all", and duplicate member names.

#include <rapidjson/document.h>

#include <optional>
#include <string>
#include <string_view>

#include "json/bounded_parse.hpp"

namespace conform::protocol {

// RapidJSON flags for untrusted lines: no recursion, and UTF-8 validated.
inline constexpr unsigned k_line_parse_flags =
    rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag;

// True when `text` is well-formed UTF-8 by the rules RapidJSON's kParseValidateEncodingFlag
// applies (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_utf8(std::string_view text);

// Parses the NUL-terminated copy `line_in_place` of `line` in place with k_line_parse_flags, nested
// at most json::k_max_nesting levels. A line that is_utf8() accepts is parsed without the parser's
// own UTF-8 check (the same result, at about half the cost); any other line is parsed with it, so
// its error and offset are the parser's.
json::BoundedParse parse_untrusted_line(rapidjson::Document& document, std::string_view line,
                                        char* line_in_place);

// What is wrong with a line that is not a readable JSON object. `breaks_message`: the line cannot
// be an AirbyteMessage at all (invalid UTF-8, cut at the size limit), a MUST of AP-IO-1; otherwise
// it is not JSON a reader can use (a SHOULD: the platform logs and skips such lines).
struct LineProblem {
    bool breaks_message = false;
    std::string message;
};

// For a parse that failed: an accurate message when the failure is invalid UTF-8 or nesting past
// the limit (which break the message), a number beyond a double's range (valid JSON) or a lone
// UTF-16 surrogate escape (valid JSON syntax); nothing for other syntax errors.
std::optional<LineProblem> classify_parse_error(const json::BoundedParse& parse);

// The first member name that appears twice in one object anywhere in `root`, outside the
// subtree `checked` (one the caller has looked at otherwise). Iterative.
std::optional<std::string> find_duplicate_key(const rapidjson::Value& root,
                                              const rapidjson::Value* checked = nullptr);

}  // namespace conform::protocol
