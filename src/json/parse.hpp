#pragma once

#include <filesystem>
#include <string_view>

#include "json/fwd.hpp"

namespace conform::json {

// Parses a JSON file. Comments are allowed and nesting depth does not use the call stack. Throws
// Error(input) whose message is "FILE:LINE:COLUMN: <reason>" followed by the offending line and a
// caret under the column, or Error(input) when the file cannot be read.
rapidjson::Document parse_json_file(const std::filesystem::path& path);

// Parses JSON text like parse_json_file; `origin_name` stands for the file name in error messages.
rapidjson::Document parse_json_text(std::string_view text, std::string_view origin_name);

}  // namespace conform::json
