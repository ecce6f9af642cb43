#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "json/fwd.hpp"

namespace conform::json {

// What is wrong with `pointer` as an RFC 6901 JSON pointer ("" is the whole document), or an
// empty string when it is valid.
std::string pointer_syntax_error(std::string_view pointer);

// Throws Error(input) "invalid JSON pointer \"P\": <reason>" when `pointer` is malformed.
void validate_pointer(std::string_view pointer);

// The unescaped reference tokens of `pointer` ("/a~1b/0" → {"a/b", "0"}); throws like
// validate_pointer.
std::vector<std::string> pointer_tokens(std::string_view pointer);

// Escapes one reference token: "~" → "~0", "/" → "~1".
std::string escape_pointer_token(std::string_view token);

// The value at `pointer`, or nullptr when absent. Array elements are addressed by canonical
// decimal index ("-" is never present). Throws like validate_pointer.
const rapidjson::Value* find_value(const rapidjson::Value& root, std::string_view pointer);
rapidjson::Value* find_value(rapidjson::Value& root, std::string_view pointer);

// Moves `value` to `pointer`, creating missing intermediate members as objects; an array token
// may name an existing element or, as the last token, the end ("-" or the size) to append.
// Returns false and leaves `root` unchanged when the path runs into a scalar, a null or a
// missing array element. Throws like validate_pointer.
bool set_value(rapidjson::Value& root, std::string_view pointer, rapidjson::Value& value,
               Allocator& allocator);

// Removes the member or array element at `pointer`; false when absent or when `pointer` is ""
// (the root cannot be removed). Throws like validate_pointer.
bool remove_value(rapidjson::Value& root, std::string_view pointer);

}  // namespace conform::json
