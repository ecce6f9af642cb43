#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "protocol/observation.hpp"

namespace conform::suite {

// A record taken from a run, with the run it came from and its position in the RecordSet it was
// found in (for examples).
struct RecordRef {
    protocol::RecordEntry entry;
    const protocol::Observation* run = nullptr;
    std::uint64_t position = 0;
};

// Records to compare: the records of one or more runs, each run's optionally filtered. Nothing
// is loaded: a comparison scans the runs' record files, so what it remembers per record is a
// few bytes in a partition, never the record (docs/hostile-input.md, "Memory").
class RecordSet {
public:
    using Filter = std::function<bool(const protocol::RecordEntry&)>;

    RecordSet() = default;
    explicit RecordSet(const protocol::Observation& run, Filter keep = {});
    void add(const protocol::Observation& run, Filter keep = {});

    // Calls visit(position, record) for every record of the set, run by run, in order; the
    // record's key text is left empty. A position counts every record of the runs, kept or not.
    void scan(const std::function<void(std::uint64_t, const protocol::RecordEntry&)>& visit) const;
    // The record at `position`, key included.
    RecordRef at(std::uint64_t position) const;
    // The run the record at `position` came from.
    const protocol::Observation& run_at(std::uint64_t position) const;
    // The run every record of the set comes from; null when the set holds several runs or none.
    const protocol::Observation* sole_run() const;
    // The records at `positions` (sorted) only: a subset of this set.
    RecordSet only(std::vector<std::uint64_t> positions) const;
    // The records of the set that `keep` also keeps.
    RecordSet where(const Filter& keep) const;

    // Records in the set (a scan when filtered).
    std::uint64_t size() const;
    bool empty() const { return size() == 0; }
    // Records in the runs, kept or not: the bound on positions.
    std::uint64_t positions() const;
    // Whether a run of the set holds a record of a keyed stream (one the set keeps or not): when
    // none does, nothing is compared by key.
    bool runs_hold_keyed() const;
    std::filesystem::path scratch_folder() const;

private:
    struct Part {
        const protocol::Observation* run;
        Filter keep;
        std::uint64_t first_position;
    };
    std::vector<Part> m_parts;
    std::shared_ptr<const std::vector<std::uint64_t>> m_only;  // sorted; all when null
};

// How to identify a record when comparing: by identity (primary key or content) or by content.
// Comparisons by identity leave out the records that lack their primary key (RecordEntry::
// key_missing): they have none.
enum class CompareBy { identity, content, projected };

struct MultisetDiff {
    std::vector<RecordRef> missing;  // in expected, not in actual (one ref per missing copy)
    std::vector<RecordRef> extra;    // in actual, not in expected
};

// Compares two record multisets. Keeps at most `keep` examples of each kind (missing ones first
// by line, extra ones in order) but counts all of them in `missing_count` / `extra_count`.
struct StreamCounts {
    std::uint64_t missing = 0;
    std::uint64_t extra = 0;
};
struct DiffCounts {
    MultisetDiff examples;
    std::uint64_t missing_count = 0;
    std::uint64_t extra_count = 0;
    std::map<std::uint32_t, StreamCounts> by_stream;  // the counts above, per stream
};
DiffCounts diff_records(const RecordSet& expected, const RecordSet& actual, CompareBy expected_by,
                        CompareBy actual_by, std::size_t keep = 5);

// The identities of `expected` that `actual` never emitted (the first copy of each): what a resumed
// or split read lost. Unlike diff_records, a record `expected` emitted twice and `actual` once is
// a duplicate (read.no_duplicates' finding), not a loss.
DiffCounts lost_records(const RecordSet& expected, const RecordSet& actual, std::size_t keep = 5);
RecordSet lost_subset(const RecordSet& expected, const RecordSet& actual);

// The records of `expected` that `actual` lacks, and of `actual` beyond `expected`, as subsets.
RecordSet missing_records(const RecordSet& expected, const RecordSet& actual, CompareBy by);
RecordSet extra_records(const RecordSet& expected, const RecordSet& actual, CompareBy by);

// The records of `records` that also occur in `others` (multiset intersection): count and the
// first `keep` examples.
struct Overlap {
    std::vector<RecordRef> examples;
    std::uint64_t count = 0;
};
Overlap overlap_records(const RecordSet& records, const RecordSet& others, CompareBy by,
                        std::size_t keep = 5);
// The same records as a subset of `records`.
RecordSet shared_records(const RecordSet& records, const RecordSet& others, CompareBy by);

// The copies beyond the first of records of `records` with a primary key emitted more than once
// with the same content (AP-READ-9), and the first `keep` of them; `keyed`, how many records had
// a key to compare by.
struct Duplicates : Overlap {
    std::uint64_t keyed = 0;
    // Copies of a repeated key whose deferred content could not be read again (the transcript
    // changed since it was checked): not compared.
    std::uint64_t unread = 0;
    // Of the streams `collisions_in` names: records whose key an earlier record of the read had,
    // with other content (the key does not identify a record), and the first `keep` of them.
    Overlap collisions = {};
};
Duplicates duplicate_records(const RecordSet& records, std::size_t keep = 5,
                             const std::function<bool(std::uint32_t)>& collisions_in = {});

// Records of `expected` whose identity `actual` also emitted, but only with other content (volatile
// fields ignored): the same key, changed data. Each pairs the expected record with an actual one.
// With `expected_by` projected, the expected records' content is theirs after conform applied the
// projections.
struct Changed {
    std::vector<std::pair<RecordRef, RecordRef>> examples;
    std::uint64_t count = 0;
};
Changed changed_records(const RecordSet& expected, const RecordSet& actual, std::size_t keep = 5,
                        CompareBy expected_by = CompareBy::content);

// "events key [5] (line 12 of read [range ...])", or "the events record at line 12 of read" for a
// record without a key (the report shows that line's text when its example names the line).
std::string describe_record(const RecordRef& record, const std::vector<std::string>& stream_names);

}  // namespace conform::suite
