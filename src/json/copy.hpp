#pragma once

#include "json/fwd.hpp"

namespace conform::json {

// A deep copy of `source` whose strings are all copied into `allocator`, including rapidjson's
// constant and in-situ string references (which Value::CopyFrom shares), so the copy outlives
// the source's buffers. Nesting depth does not use the call stack.
rapidjson::Value copy_value(const rapidjson::Value& source, Allocator& allocator);

}  // namespace conform::json
