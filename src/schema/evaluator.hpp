#pragma once

// Internal: validates an instance against compiled SchemaData.

#include <cstddef>
#include <vector>

#include <rapidjson/document.h>

#include "schema/compiled.hpp"
#include "schema/schema.hpp"

namespace conform::schema {

// Validation nested deeper than this many schema nodes (about one to three per level of the
// instance) reports the instance invalid instead of exhausting the stack.
inline constexpr int k_max_evaluation_depth = 10000;

// Returns true when `instance` is valid against `data`. With `out`, appends up to
// `max_violations` violations; without it, stops at the first failure.
bool evaluate(const SchemaData& data, const rapidjson::Value& instance, std::vector<Violation>* out,
              std::size_t max_violations);

}  // namespace conform::schema
