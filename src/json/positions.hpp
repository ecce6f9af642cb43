#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace conform::json {

// Maps the JSON pointer of every member and element of a JSON text (comments allowed) to the
// 1-based line where it starts, so errors can name a line. Values nested deeper than 64 levels
// are left out; for an unparsable text the map covers what was read before the error.
std::map<std::string, std::size_t> pointer_lines(std::string_view text);

// The line of `pointer`, or of its nearest ancestor that has one (1 for the root).
std::size_t line_of(const std::map<std::string, std::size_t>& lines, std::string pointer);

}  // namespace conform::json
