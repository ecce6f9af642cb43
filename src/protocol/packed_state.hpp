#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "json/fwd.hpp"

// States some CDKs keep packed: faros-airbyte-cdk writes its whole state as
// {"format": "base64/gzip", "data": "H4sI..."} unless the config says "compress_state": false, and
// reads back a state packed or not (its State.decompress passes anything else through). conform
// resumes with what a connector emitted, untouched; it unpacks a state only to read cursors in it
// or to write a state of its own (a far-future one), which it then gives unpacked.
namespace conform::protocol {

// The most a packed state may unpack to: beyond it, the state stays packed (a gzip bomb costs
// conform this much, no more).
inline constexpr std::size_t k_max_unpacked_state = 64 * 1024 * 1024;

// The JSON text `packed` holds when it is {"format": "base64/gzip", "data": <string>} (those two
// members only) whose data is base64 of gzip, within `limit` bytes unpacked; nullopt otherwise.
std::optional<std::string> unpacked_text(const rapidjson::Value& packed,
                                         std::size_t limit = k_max_unpacked_state);

// Replaces every packed state inside `value` (itself included) by the JSON it unpacks to, in
// place, and returns how many it replaced; `limit` bounds the bytes all of them unpack to. A packed
// state whose text is not JSON, or beyond what is left of the limit, stays as it is.
std::size_t unpack_states(rapidjson::Value& value, json::Allocator& allocator,
                          std::size_t limit = k_max_unpacked_state);

}  // namespace conform::protocol
