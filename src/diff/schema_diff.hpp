#pragma once

#include <string>
#include <vector>

#include "diff/change.hpp"
#include "json/fwd.hpp"

namespace conform::diff {

// Backward compatibility of a connector's spec: `control` and `target` are the two
// connectionSpecification schemas. A config that was valid for the control must stay valid and
// mean the same for the target: removed or retyped properties, newly required properties, narrowed
// enums, changed oneOf discriminators, added formats and secrets no longer marked secret break it;
// new optional properties, widened types and new enum values do not (docs/regression.md).
std::vector<Change> diff_spec(const rapidjson::Value& control, const rapidjson::Value& target);

// A stream that is gone from the target's catalog and one that is new there, taken for the same
// stream renamed: names equal but for case and punctuation, or mostly the same fields.
struct StreamRename {
    std::string from;
    std::string to;
    std::string why;
};
std::vector<StreamRename> likely_renames(const rapidjson::Value& control,
                                         const rapidjson::Value& target);

// Backward compatibility of a discovered catalog ({"streams": [...]} of the CATALOG message):
// removed streams and fields, narrowed or changed types and formats, narrowed enums, changed
// cursor or primary key (gained, lost or changed) and dropped sync modes break a consumer; new
// streams, new fields, widened types, new enum values and new sync modes do not. A likely rename
// is one change ("catalog.stream_renamed") whose detail lists what else changed in the stream.
std::vector<Change> diff_catalog(const rapidjson::Value& control, const rapidjson::Value& target);

}  // namespace conform::diff
