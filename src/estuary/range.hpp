#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "json/fwd.hpp"

namespace conform::estuary {

// An inclusive range [begin, end] of the 32-bit key space a capture shard owns (Estuary's
// "estuary.dev/range"). The default is the full range.
struct KeyRange {
    std::uint32_t begin = 0;
    std::uint32_t end = 0xffffffff;

    static KeyRange full() { return {}; }

    auto operator<=>(const KeyRange&) const = default;

    bool includes(std::uint32_t key) const { return key >= begin && key <= end; }
    bool is_full() const { return *this == full(); }
    // Number of keys, up to 2^32.
    std::uint64_t key_count() const { return std::uint64_t{end} - begin + 1; }

    // "00000000-7fffffff".
    std::string to_string() const;
    // {"begin":"00000000","end":"7fffffff"}: lowercase, exactly 8 hex digits.
    std::string to_json() const;

    // Flow's shard split: pivot = (begin + end + 1) / 2 in 64 bits gives [begin, pivot-1] and
    // [pivot, end]. Throws Error(input) for a one-key range.
    std::pair<KeyRange, KeyRange> split_halves() const;

    // `parts` contiguous ranges covering this one, part p starting at begin + count*p/parts
    // (64-bit arithmetic, as Flow's initial splits). Throws Error(input) when parts is 0 or
    // exceeds the number of keys.
    std::vector<KeyRange> split_equal(std::uint32_t parts) const;

    // Ranges that start at begin and at each cut point: [begin, c1-1], [c1, c2-1], ..., [ck, end].
    // Throws Error(input) unless the cuts increase strictly within (begin, end].
    std::vector<KeyRange> split_at(const std::vector<std::uint32_t>& cut_points) const;
};

// Parses {"begin":"%08x","end":"%08x"} (hex case-insensitive, both members required, no others).
// Throws Error(input) naming the broken rule.
KeyRange parse_key_range(const rapidjson::Value& json);

}  // namespace conform::estuary
