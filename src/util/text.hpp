#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace conform {

// Returns the candidate closest to `name` by edit distance, or "" when none is close enough to
// be a plausible typo.
std::string nearest_name(std::string_view name, const std::vector<std::string>& candidates);

// " (did you mean 'NAME'?)" with the candidate nearest to `name`, or "" when none is close: the
// end of a message about an unknown name.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD, so reports stay valid JSON and XML
// whatever bytes a connector wrote.
std::string valid_utf8(std::string_view text);

// `raw` as text inside HTML or XML (elements and quoted attributes): valid UTF-8, with & < > " '
// escaped, and the control characters XML 1.0 forbids (all below 0x20 but tab, LF and CR) shown
// as '?'.
std::string markup_escaped(std::string_view raw);

// Shortens `text` to at most `limit` bytes for a report, marking the cut with "…".
std::string excerpt(std::string_view text, std::size_t limit = 200);

// The last lines of `text` that fit in `bytes`, whole and newest last (a single longer line keeps
// its end): where the cause of a failure usually is, as a report shows stderr.
std::string last_lines(std::string_view text, std::size_t bytes = 300);

// `word` as a POSIX shell reads it back: unchanged when it is made of safe characters only,
// else in single quotes (a quote inside as '\'').
std::string shell_quote(std::string_view word);

// Returns the 1-based line and column of byte `offset` in `text`.
struct TextPosition {
    std::size_t line = 1;
    std::size_t column = 1;
};
TextPosition position_of(std::string_view text, std::size_t offset);

}  // namespace conform
