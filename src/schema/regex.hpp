#pragma once

// Internal: ECMAScript regular expressions over Unicode code points.

#include <regex>
#include <string>
#include <string_view>

namespace conform::schema {

// A `pattern` compiled once. It matches code points, not UTF-8 bytes, so "." and quantifiers
// apply to whole characters; std::wregex does the work on a UTF-32 copy of the text.
class Regex {
public:
    // Compiles `source` (ECMAScript syntax as std::regex implements it); throws
    // std::regex_error when it is not a valid expression.
    explicit Regex(std::string_view source);

    // True when the expression matches somewhere in `text` (patterns are not anchored).
    bool search(std::string_view text) const;

    const std::string& source() const { return m_source; }

private:
    std::string m_source;
    std::wregex m_regex;
};

}  // namespace conform::schema
