#pragma once

#include "json/fwd.hpp"

namespace conform::json {

// Applies `patch` to `target` exactly as RFC 7396 §2 MergePatch: an object patch turns a
// non-object target into {} and then, member by member, deletes on null and merges otherwise
// (so nulls inside a newly added subtree are dropped); any other patch (array, scalar, null)
// replaces the target. `allocator` must own `target`; `patch` must not alias `target`. Nesting
// depth does not use the call stack.
void apply_merge_patch(rapidjson::Value& target, const rapidjson::Value& patch,
                       Allocator& allocator);

}  // namespace conform::json
