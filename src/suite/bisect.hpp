#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include "estuary/range.hpp"
#include "protocol/observation.hpp"

namespace conform::suite {

// Where one record's key lies in the 32-bit range space, found by bisection: read the lower half
// of the current range; the record is in it or in the upper half; repeat until the range is one
// key. At most 32 narrowing reads. A connector's key hash is its own business, so this is the
// only way a harness can put a range boundary exactly on a real record.
struct KeyIsolation {
    std::optional<std::uint32_t> key;  // the record's key, when isolated
    std::size_t reads = 0;             // narrowing reads made
    std::string why_not;               // when not isolated
};

// `read_range` runs the connector on one range and returns its observation.
KeyIsolation isolate_key(
    const protocol::RecordEntry& target,
    const std::function<protocol::Observation(const estuary::KeyRange&)>& read_range);

// The ranges that put boundaries on both sides of `key`: [0, key-1], [key, key], [key+1, end]
// (without an empty first or last part).
std::vector<estuary::KeyRange> ranges_around(std::uint32_t key);

}  // namespace conform::suite
