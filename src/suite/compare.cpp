#include "suite/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <span>
#include <tuple>
#include <unordered_map>

namespace conform::suite {

namespace {

const json::Digest& key_of(const protocol::RecordEntry& entry, CompareBy by) {
    switch (by) {
        case CompareBy::identity:
            return entry.identity;
        case CompareBy::content:
            return entry.content;
        case CompareBy::projected:
            return entry.projected;
    }
    return entry.identity;
}

// Stream index is part of the key: identical documents of two streams are different records.
struct StreamKey {
    std::uint32_t stream;
    json::Digest digest;
    bool operator==(const StreamKey&) const = default;
};

struct StreamKeyHash {
    std::size_t operator()(const StreamKey& key) const noexcept {
        return std::hash<json::Digest>{}(key.digest) ^ (static_cast<std::size_t>(key.stream) << 48);
    }
};

// One version of a record: its identity and its content.
struct VersionKey {
    std::uint32_t stream;
    json::Digest identity;
    json::Digest content;
    bool operator==(const VersionKey&) const = default;
};

struct VersionKeyHash {
    std::size_t operator()(const VersionKey& key) const noexcept {
        return std::hash<json::Digest>{}(key.identity) * 31 ^
               std::hash<json::Digest>{}(key.content) ^
               (static_cast<std::size_t>(key.stream) << 48);
    }
};

VersionKey version_of(const RecordRef& record) {
    return {record.entry->stream, record.entry->identity, record.entry->content};
}

// A record's key and where it is in its list: 24 bytes per record compared, where a hash map
// with a node per key costs several times that.
struct PlacedKey {
    std::uint32_t stream;
    std::uint32_t position;
    json::Digest digest;
    bool same_key(const PlacedKey& other) const {
        return stream == other.stream && digest == other.digest;
    }
    bool operator<(const PlacedKey& other) const {
        return std::tie(stream, digest, position) <
               std::tie(other.stream, other.digest, other.position);
    }
};

std::vector<PlacedKey> sorted_keys(const std::vector<RecordRef>& records, CompareBy by) {
    std::vector<PlacedKey> keys;
    keys.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i) {
        keys.push_back({records[i].entry->stream, static_cast<std::uint32_t>(i),
                        key_of(*records[i].entry, by)});
    }
    std::sort(keys.begin(), keys.end());
    return keys;
}

// Calls `visit(ours, theirs)` for every key in either list with the copies of it in each, in
// list order (either span may be empty).
template <typename Visit>
void for_each_key(const std::vector<PlacedKey>& ours, const std::vector<PlacedKey>& theirs,
                  Visit visit) {
    std::span<const PlacedKey> left(ours);
    std::span<const PlacedKey> right(theirs);
    auto run_length = [](std::span<const PlacedKey> keys) {
        std::size_t length = 1;
        while (length < keys.size() && keys[length].same_key(keys[0])) {
            ++length;
        }
        return length;
    };
    while (!left.empty() || !right.empty()) {
        bool take_left =
            !left.empty() && (right.empty() || !(right[0] < left[0]) || left[0].same_key(right[0]));
        bool take_right =
            !right.empty() && (left.empty() || right[0].same_key(left[0]) || right[0] < left[0]);
        auto left_length = take_left ? run_length(left) : 0;
        auto right_length = take_right ? run_length(right) : 0;
        visit(left.first(left_length), right.first(right_length));
        left = left.subspan(left_length);
        right = right.subspan(right_length);
    }
}

}  // namespace

DiffCounts diff_records(const std::vector<RecordRef>& expected,
                        const std::vector<RecordRef>& actual, CompareBy expected_by,
                        CompareBy actual_by, std::size_t keep) {
    // Per key, the first actual copies match (the later ones are extra) and the last expected
    // copies are matched (the first ones are missing).
    auto expected_keys = sorted_keys(expected, expected_by);
    auto actual_keys = sorted_keys(actual, actual_by);
    std::vector<std::uint32_t> missing;
    std::vector<std::uint32_t> extra;
    for_each_key(expected_keys, actual_keys, [&](auto ours, auto theirs) {
        auto matched = std::min(ours.size(), theirs.size());
        for (const auto& item : ours.first(ours.size() - matched)) {
            missing.push_back(item.position);
        }
        for (const auto& item : theirs.subspan(matched)) {
            extra.push_back(item.position);
        }
    });
    expected_keys = {};
    actual_keys = {};
    DiffCounts counts;
    counts.extra_count = extra.size();
    std::sort(extra.begin(), extra.end());
    for (std::size_t i = 0; i < std::min(extra.size(), keep); ++i) {
        counts.examples.extra.push_back(actual[extra[i]]);
    }
    counts.missing_count = missing.size();
    auto by_line = [&expected](std::uint32_t a, std::uint32_t b) {
        auto line_a = expected[a].entry->line;
        auto line_b = expected[b].entry->line;
        return line_a != line_b ? line_a < line_b : a < b;
    };
    auto shown = std::min(missing.size(), keep);
    std::partial_sort(missing.begin(), missing.begin() + static_cast<std::ptrdiff_t>(shown),
                      missing.end(), by_line);
    for (std::size_t i = 0; i < shown; ++i) {
        counts.examples.missing.push_back(expected[missing[i]]);
    }
    return counts;
}

Overlap overlap_records(const std::vector<RecordRef>& records, const std::vector<RecordRef>& others,
                        CompareBy by, std::size_t keep) {
    // Per key, the first copies in `records` overlap, as many as `others` has.
    auto record_keys = sorted_keys(records, by);
    auto other_keys = sorted_keys(others, by);
    std::vector<std::uint32_t> shared;
    for_each_key(record_keys, other_keys, [&](auto ours, auto theirs) {
        for (const auto& item : ours.first(std::min(ours.size(), theirs.size()))) {
            shared.push_back(item.position);
        }
    });
    Overlap overlap;
    overlap.count = shared.size();
    auto shown = std::min(shared.size(), keep);
    std::partial_sort(shared.begin(), shared.begin() + static_cast<std::ptrdiff_t>(shown),
                      shared.end());
    for (std::size_t i = 0; i < shown; ++i) {
        overlap.examples.push_back(records[shared[i]]);
    }
    return overlap;
}

Changed changed_records(const std::vector<RecordRef>& expected,
                        const std::vector<RecordRef>& actual, std::size_t keep) {
    // First every exact (identity, content) match is taken out, then the expected records left
    // over are paired with actual records left over under the same identity.
    std::unordered_map<VersionKey, std::size_t, VersionKeyHash> exact;
    for (const auto& record : actual) {
        ++exact[version_of(record)];
    }
    std::vector<RecordRef> unmatched;
    for (const auto& record : expected) {
        auto found = exact.find(version_of(record));
        if (found != exact.end() && found->second > 0) {
            --found->second;
        } else {
            unmatched.push_back(record);
        }
    }
    std::unordered_map<StreamKey, std::vector<RecordRef>, StreamKeyHash> left_over;
    for (const auto& record : actual) {
        auto found = exact.find(version_of(record));
        if (found->second > 0) {
            --found->second;
            left_over[{record.entry->stream, record.entry->identity}].push_back(record);
        }
    }
    Changed changed;
    for (const auto& record : unmatched) {
        auto found = left_over.find({record.entry->stream, record.entry->identity});
        if (found == left_over.end() || found->second.empty()) {
            continue;
        }
        if (++changed.count <= keep) {
            changed.examples.emplace_back(record, found->second.back());
        }
        found->second.pop_back();
    }
    return changed;
}

std::vector<RecordRef> records_of(const protocol::Observation& run,
                                  const std::function<bool(const protocol::RecordEntry&)>& keep) {
    std::vector<RecordRef> records;
    const auto& loaded = run.records.load();
    records.reserve(loaded.size());
    for (const auto& entry : loaded) {
        if (!keep || keep(entry)) {
            records.push_back({&entry, &run});
        }
    }
    return records;
}

std::string describe_record(const RecordRef& record, const std::vector<std::string>& stream_names) {
    const auto& entry = *record.entry;
    std::string stream = entry.stream < stream_names.size() ? stream_names[entry.stream] : "?";
    std::string key = entry.key.empty()
                          ? fmt::format("digest {}", entry.content.hex().substr(0, 12))
                          : fmt::format("key {}", entry.key);
    return fmt::format("{} {} (line {} of {})", stream, key, entry.line, record.run->label);
}

}  // namespace conform::suite
