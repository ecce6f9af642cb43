#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace conform::protocol {

// A point in time read from an ISO 8601 / RFC 3339 cursor value, in UTC.
struct Instant {
    std::int64_t seconds = 0;  // since 1970-01-01T00:00:00Z
    std::uint32_t nanoseconds = 0;

    auto operator<=>(const Instant&) const = default;
};

// `text` as an instant when the whole of it is a date (YYYY-MM-DD) or a date-time: "T", "t" or
// a space, hh:mm, optional :ss and fraction, optional offset (Z, z, +hh:mm, +hhmm, +hh). Without
// an offset the time is read as UTC. Cursors of one stream are written by different code (a
// bookmark with seconds, a record with microseconds: "…12:30:00Z" and "…12:30:00.000000Z"), so
// they are compared as instants, not as strings.
std::optional<Instant> parse_instant(std::string_view text);

}  // namespace conform::protocol
