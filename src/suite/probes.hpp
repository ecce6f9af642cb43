#pragma once

#include <rapidjson/fwd.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/catalog.hpp"
#include "protocol/observation.hpp"

// Inputs made wrong on purpose, to see that the connector answers them: configs derived from the
// spec, invalid catalogs, a state whose cursors lie far in the future (docs/CONTRACT.md AP-CLI-5,
// AP-READ-10, AP-STATE-4).
namespace conform::suite {

// The config with the properties `spec` requires alone, their values taken from `config`: no
// defaults filled in.
std::string required_only_config(const rapidjson::Value& spec, const rapidjson::Value& config);

struct ConfigWithout {
    std::string property;  // the required property left out
    std::string text;
};

// For each property `spec` requires that `config` has, `config` without it.
std::vector<ConfigWithout> configs_without_each_required(const rapidjson::Value& spec,
                                                         const rapidjson::Value& config);

// The name of the stream catalog_with_unknown_stream adds.
inline constexpr std::string_view k_unknown_stream = "conform_unknown_stream";

// The configured catalog with a copy of its first stream renamed to k_unknown_stream; nullopt when
// it has no stream.
std::optional<std::string> catalog_with_unknown_stream(std::string_view catalog_json);

// The configured catalog with every stream's sync_mode and destination_sync_mode "INVALID", as
// Airbyte's acceptance tests write it; nullopt when it has no stream.
std::optional<std::string> catalog_with_invalid_sync_modes(std::string_view catalog_json);

// The state with every cursor value moved far into the future: a value equal to the newest cursor
// `run` emitted for an incremental stream of `catalog`, or held under the name of such a stream's
// cursor field, or under a name that holds such a newest date or epoch time elsewhere in the state
// (a vendor's partitions). A date-like string gets the year 9999; a number that reads as a time
// since the epoch (seconds, milliseconds or microseconds, 1973-2286) the end of the year 9999 in
// its unit; any other number a value a million times larger. nullopt when the state holds no such
// value.
std::optional<std::string> state_with_future_cursors(std::string_view state_json,
                                                     const protocol::Observation& run,
                                                     const protocol::Catalog& catalog);

// The cursor a state records for a stream: what a read from it is held to (AP-STATE-2).
struct StateFloor {
    std::optional<protocol::CursorValue> floor;  // nullopt: no cursor recorded, or unreadable
    bool per_partition = false;                  // the oldest of the partitions' cursors
    // Not under the cursor field's name: the state's (or each partition's) one date-time.
    bool guessed = false;
};

// The floor each incremental stream of `catalog` gets from the state `state_json` (array or legacy
// form), by stream index: the value its stream state keeps under the cursor field's name; for a
// state kept per partition (the CDK's {"states": [{"partition": {...}, "cursor": {FIELD: value}}]})
// the oldest partition's cursor, since a record does not say its partition, and likewise for a
// state kept per parent id ({"2001": {FIELD: value}, ...}); no floor for a stream state that is
// empty, or whose partitions' cursors cannot be read. Guessed: the one date-time a stream state
// keeps under another name ({"cursor": "2024-…", "seq": 60}), or each partition's one date-time
// ({"pg1": {"lastUpdatedAt": "2026-…"}}, the oldest). Any other stream is absent: the caller falls
// back to what it saw.
std::map<std::size_t, StateFloor> state_cursor_floors(std::string_view state_json,
                                                      const protocol::Catalog& catalog);

// The streams of `catalog` for which the state `state_json` holds at least one value (or the
// shared state of the GLOBAL message that names them does); nullopt when the state is neither
// form of an Airbyte state.
std::optional<std::set<std::size_t>> streams_with_state_values(std::string_view state_json,
                                                               const protocol::Catalog& catalog);

}  // namespace conform::suite
