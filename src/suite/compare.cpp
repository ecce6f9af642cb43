#include "suite/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
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

}  // namespace

DiffCounts diff_records(const std::vector<RecordRef>& expected,
                        const std::vector<RecordRef>& actual, CompareBy expected_by,
                        CompareBy actual_by, std::size_t keep) {
    std::unordered_map<StreamKey, std::vector<RecordRef>, StreamKeyHash> pending;
    pending.reserve(expected.size());
    for (const auto& record : expected) {
        pending[{record.entry->stream, key_of(*record.entry, expected_by)}].push_back(record);
    }
    DiffCounts counts;
    for (const auto& record : actual) {
        auto found = pending.find({record.entry->stream, key_of(*record.entry, actual_by)});
        if (found != pending.end() && !found->second.empty()) {
            found->second.pop_back();
            continue;
        }
        if (++counts.extra_count <= keep) {
            counts.examples.extra.push_back(record);
        }
    }
    std::vector<RecordRef> missing;
    for (const auto& [key, records] : pending) {
        missing.insert(missing.end(), records.begin(), records.end());
    }
    std::sort(missing.begin(), missing.end(),
              [](const RecordRef& a, const RecordRef& b) { return a.entry->line < b.entry->line; });
    counts.missing_count = missing.size();
    missing.resize(std::min(missing.size(), keep));
    counts.examples.missing = std::move(missing);
    return counts;
}

Overlap overlap_records(const std::vector<RecordRef>& records, const std::vector<RecordRef>& others,
                        CompareBy by, std::size_t keep) {
    std::unordered_map<StreamKey, std::size_t, StreamKeyHash> available;
    for (const auto& record : others) {
        ++available[{record.entry->stream, key_of(*record.entry, by)}];
    }
    Overlap overlap;
    for (const auto& record : records) {
        auto found = available.find({record.entry->stream, key_of(*record.entry, by)});
        if (found == available.end() || found->second == 0) {
            continue;
        }
        --found->second;
        if (++overlap.count <= keep) {
            overlap.examples.push_back(record);
        }
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
