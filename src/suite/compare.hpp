#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "protocol/observation.hpp"

namespace conform::suite {

// A record taken from a run, with the run it came from (for examples).
struct RecordRef {
    const protocol::RecordEntry* entry;
    const protocol::Observation* run;
};

// How to identify a record when comparing: by identity (primary key or content) or by content.
enum class CompareBy { identity, content, projected };

struct MultisetDiff {
    std::vector<RecordRef> missing;  // in expected, not in actual (one ref per missing copy)
    std::vector<RecordRef> extra;    // in actual, not in expected
};

// Compares two record multisets. Keeps at most `keep` examples of each kind but counts all of
// them in the returned sizes via `missing_count` / `extra_count`.
struct DiffCounts {
    MultisetDiff examples;
    std::uint64_t missing_count = 0;
    std::uint64_t extra_count = 0;
};
DiffCounts diff_records(const std::vector<RecordRef>& expected,
                        const std::vector<RecordRef>& actual, CompareBy expected_by,
                        CompareBy actual_by, std::size_t keep = 5);

// The records of `records` that also occur in `others` (multiset intersection): count and the
// first `keep` examples.
struct Overlap {
    std::vector<RecordRef> examples;
    std::uint64_t count = 0;
};
Overlap overlap_records(const std::vector<RecordRef>& records, const std::vector<RecordRef>& others,
                        CompareBy by, std::size_t keep = 5);

// Records of `expected` whose identity `actual` also emitted, but only with other content (volatile
// fields ignored): the same key, changed data. Each pairs the expected record with an actual one.
struct Changed {
    std::vector<std::pair<RecordRef, RecordRef>> examples;
    std::uint64_t count = 0;
};
Changed changed_records(const std::vector<RecordRef>& expected,
                        const std::vector<RecordRef>& actual, std::size_t keep = 5);

// Every record of `run`, optionally filtered.
std::vector<RecordRef> records_of(
    const protocol::Observation& run,
    const std::function<bool(const protocol::RecordEntry&)>& keep = {});

// "events id=[5] (line 12 of read [range ...])".
std::string describe_record(const RecordRef& record, const std::vector<std::string>& stream_names);

}  // namespace conform::suite
