#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "diff/change.hpp"
#include "diff/records.hpp"
#include "report/model.hpp"

namespace conform::diff {

// What a baseline keeps of one stream's records: their count and, up to k_max_baseline_records,
// a content digest per identity. Beyond the cap only the count and one digest of the whole
// stream are kept, and a comparison can say that the stream changed but not which records.
struct StreamDigests {
    std::string stream;
    std::uint64_t count = 0;
    std::vector<std::string> key;                // the identity's JSON pointers
    std::map<std::string, std::string> records;  // identity -> content digest (hex)
    bool complete = true;                        // false: over the cap, `records` is empty
    std::string digest;                          // of every (identity, content) pair, in order
};

inline constexpr std::size_t k_max_baseline_records = 10'000;

std::vector<StreamDigests> digests_of(const ReadCapture& read, const StreamKeys& keys);

// The keys a baseline's identities use: the configured primary key, else the source-defined key
// of the discovered catalog (not the copy in the configured catalog, which may be stale).
StreamKeys keys_for_digests(const std::string& read_catalog,
                            const std::optional<std::string>& discovered);

// The "streams" member of a JSON report (schemas/report.schema.json).
std::string to_streams_member(const std::vector<StreamDigests>& streams);

// `report_json` (an object) with `member_json` added as member `name`.
std::string with_member(const std::string& report_json, std::string_view name,
                        const std::string& member_json);

struct Baseline {
    report::RunReport verdicts;          // scenario and check ids with their statuses
    std::vector<StreamDigests> streams;  // empty when the report has no "streams"
};

// Reads a JSON report written by `conform run --report-json`. Throws conform::Error (input)
// naming the file and what is missing when it is not one.
Baseline load_baseline(const std::string& path);

// Records of each stream compared by digest: removed records and records with other fields or
// types break; records with other values only and new ones do not. Streams without a key are
// compared by content: only the records beyond those replaced are lost. Streams over the cap are
// compared by count and whole digest only.
std::vector<Change> diff_digests(const std::vector<StreamDigests>& baseline,
                                 const std::vector<StreamDigests>& current);

}  // namespace conform::diff
