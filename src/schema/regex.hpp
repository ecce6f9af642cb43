#pragma once

// Internal: ECMA-262 regular expressions (as JSON Schema's `pattern` uses them), run by PCRE2
// with limits, over Unicode code points.

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

namespace conform::schema {

// A pattern that is not a regular expression conform supports, or that exceeds a compile limit.
class RegexError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

enum class MatchResult {
    no_match,
    match,
    // PCRE2's match, depth or heap limit was reached: the engine gave up without an answer.
    limit_exceeded,
};

// The bounds every pattern runs under (docs/hostile-input.md).
struct RegexLimits {
    static constexpr std::size_t max_pattern_bytes = 64 * 1024;
    static constexpr unsigned parens_nest_limit = 250;
    static constexpr unsigned match_limit = 1'000'000;
    static constexpr unsigned depth_limit = 100'000;
    static constexpr unsigned heap_limit_kib = 64 * 1024;
};

// A `pattern` compiled once. It matches code points, not UTF-8 bytes, so "." and quantifiers
// apply to whole characters. Compiled code is shared between equal patterns (a bounded,
// process-wide cache) and is immutable, so `search` may run on several threads at once.
class Regex {
public:
    // Translates `source` from ECMA-262 syntax and compiles it; throws RegexError when it is
    // not a supported expression or exceeds a compile limit. `cache` = false neither reads nor
    // fills the shared cache (for patterns that come from connector output).
    explicit Regex(std::string_view source, bool cache = true);

    // Whether the expression matches somewhere in `text` (patterns are not anchored). Text that
    // is not valid UTF-8 is matched as far as it is valid, never read out of bounds.
    MatchResult search(std::string_view text) const;

    const std::string& source() const { return m_source; }

    struct Code;

private:
    std::string m_source;
    std::shared_ptr<const Code> m_code;
};

// The PCRE2 syntax conform compiles for an ECMA-262 `source`; throws RegexError on syntax that
// ECMA-262 (with the `u` flag) does not have. Exposed for tests.
std::string translate_ecma_regex(std::string_view source);

}  // namespace conform::schema
