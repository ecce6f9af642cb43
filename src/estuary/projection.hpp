#pragma once

#include <string>
#include <utility>
#include <vector>

#include "json/fwd.hpp"

namespace conform::estuary {

// Estuary projections of one stream: (field, RFC 6901 pointer) pairs in catalog order.
using Projections = std::vector<std::pair<std::string, std::string>>;

// Parses {"field": "/pointer", ...}. Throws Error(input) when it is not an object, a value is not
// a string, a pointer is malformed or "" (a projection points inside the record), or a field
// repeats.
Projections parse_projections(const rapidjson::Value& json);

// Moves flat record fields to their projected locations, as a connector honouring projections
// would place them. For each (field, pointer) whose field is a top-level member of
// `record_data`, the value is removed from the top level and then stored at `pointer`, creating
// missing intermediate objects. All named fields are taken out before any is placed, so
// projections do not depend on their order (except that a later one wins when two point to the
// same place). An identity projection ("x" → "/x") is a no-op and fields not named stay as they
// are. Returns the fields that could not be placed (the path runs through a scalar or array);
// those stay at the top level. A non-object record is left alone.
std::vector<std::string> apply_projections(rapidjson::Value& record_data,
                                           const Projections& projections,
                                           json::Allocator& allocator);

// The fields of `projections` that `record_data` (as a connector emitted it with those
// projections) still has at its top level while nothing is at the field's pointer: projections
// it did not apply. Identity projections are never among them.
std::vector<std::string> unapplied_projections(const rapidjson::Value& record_data,
                                               const Projections& projections);

// An identity projection "name" → "/name" (escaped per RFC 6901) for every top-level property of
// a JSON schema, in schema order; none when the schema has no "properties" object.
Projections identity_projections(const rapidjson::Value& json_schema);

}  // namespace conform::estuary
