#include "suite/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <numeric>
#include <queue>
#include <span>
#include <stdexcept>
#include <tuple>
#include <type_traits>

#include "protocol/spill.hpp"

namespace conform::suite {

// --- RecordSet --------------------------------------------------------------------------------

RecordSet::RecordSet(const protocol::Observation& run, Filter keep) {
    add(run, std::move(keep));
}

void RecordSet::add(const protocol::Observation& run, Filter keep) {
    m_parts.push_back({&run, std::move(keep), positions()});
}

void RecordSet::scan(
    const std::function<void(std::uint64_t, const protocol::RecordEntry&)>& visit) const {
    std::size_t next_only = 0;
    for (const auto& part : m_parts) {
        part.run->records.scan([&](std::size_t index, const protocol::RecordEntry& entry) {
            auto position = part.first_position + index;
            if (m_only) {
                while (next_only < m_only->size() && (*m_only)[next_only] < position) {
                    ++next_only;
                }
                if (next_only == m_only->size() || (*m_only)[next_only] != position) {
                    return;
                }
            }
            if (!part.keep || part.keep(entry)) {
                visit(position, entry);
            }
        });
    }
}

RecordRef RecordSet::at(std::uint64_t position) const {
    for (const auto& part : m_parts) {
        auto index = position - part.first_position;
        if (position >= part.first_position && index < part.run->records.size()) {
            return {part.run->records[index], part.run, position};
        }
    }
    throw std::out_of_range(fmt::format("no record at position {} of the set", position));
}

const protocol::Observation& RecordSet::run_at(std::uint64_t position) const {
    for (const auto& part : m_parts) {
        if (position >= part.first_position &&
            position - part.first_position < part.run->records.size()) {
            return *part.run;
        }
    }
    throw std::out_of_range(fmt::format("no record at position {} of the set", position));
}

const protocol::Observation* RecordSet::sole_run() const {
    return m_parts.size() == 1 ? m_parts.front().run : nullptr;
}

RecordSet RecordSet::only(std::vector<std::uint64_t> positions) const {
    RecordSet subset = *this;
    subset.m_only = std::make_shared<const std::vector<std::uint64_t>>(std::move(positions));
    return subset;
}

RecordSet RecordSet::where(const Filter& keep) const {
    RecordSet subset = *this;
    for (auto& part : subset.m_parts) {
        if (part.keep) {
            part.keep = [first = part.keep, keep](const protocol::RecordEntry& entry) {
                return first(entry) && keep(entry);
            };
        } else {
            part.keep = keep;
        }
    }
    return subset;
}

std::uint64_t RecordSet::size() const {
    bool filtered = std::any_of(m_parts.begin(), m_parts.end(),
                                [](const Part& part) { return static_cast<bool>(part.keep); });
    if (!filtered) {
        return m_only ? m_only->size() : positions();
    }
    std::uint64_t count = 0;
    scan([&count](std::uint64_t, const protocol::RecordEntry&) { ++count; });
    return count;
}

std::uint64_t RecordSet::positions() const {
    return m_parts.empty() ? 0 : m_parts.back().first_position + m_parts.back().run->records.size();
}

bool RecordSet::runs_hold_keyed() const {
    return std::any_of(m_parts.begin(), m_parts.end(), [](const Part& part) {
        auto streams = part.run->records.per_stream();
        return std::any_of(streams.begin(), streams.end(),
                           [](const protocol::StreamRecords& stream) { return stream.keyed > 0; });
    });
}

std::filesystem::path RecordSet::scratch_folder() const {
    return m_parts.empty() ? std::filesystem::temp_directory_path()
                           : m_parts.front().run->records.folder();
}

namespace {

// --- Partitions: what a comparison remembers, a bounded part at a time -------------------------

// Keys per partition: two partitions (one per side) are in memory at a time, 2.5-3.5 MiB each.
constexpr std::uint64_t k_partition_keys = 64 * 1024;
constexpr std::size_t k_buffered_keys = 256;  // per partition, before it is written out

std::size_t partition_count(const RecordSet& left, const RecordSet& right) {
    auto largest = std::max(left.positions(), right.positions());
    return static_cast<std::size_t>(
        std::max<std::uint64_t>(1, (largest + k_partition_keys - 1) / k_partition_keys));
}

// Both halves of a digest in one word: digests spread by either half, the placeholder of an
// undigested record (a constant and its line) by the low one.
std::uint64_t spread_of(const json::Digest& digest) {
    return digest.high ^ (digest.low * 0x9E3779B97F4A7C15ULL);
}

std::size_t partition_of(std::uint32_t stream, const json::Digest& digest, std::size_t count) {
    return static_cast<std::size_t>((spread_of(digest) + stream) % count);
}

// Items spread over `count` partitions; with more than one, a partition's items are written to
// one unlinked file, k_buffered_keys at a time, and read back whole by take().
template <typename Item>
class Partitions {
    static_assert(std::is_trivially_copyable_v<Item>);

public:
    Partitions(std::size_t count, std::filesystem::path folder)
        : m_buffers(count), m_chunks(count), m_folder(std::move(folder)) {}

    void add(std::size_t partition, const Item& item) {
        auto& buffer = m_buffers[partition];
        buffer.push_back(item);
        if (m_buffers.size() > 1 && buffer.size() == k_buffered_keys) {
            write_out(partition);
        }
    }

    // The items of `partition`, in no particular order; the partition is empty afterwards.
    std::vector<Item> take(std::size_t partition) {
        auto buffer = std::move(m_buffers[partition]);
        auto chunks = std::move(m_chunks[partition]);
        if (chunks.empty()) {
            return buffer;
        }
        std::vector<Item> items(chunks.size() * k_buffered_keys + buffer.size());
        auto* next = items.data();
        for (auto offset : chunks) {
            m_file->read_into(offset, static_cast<char*>(static_cast<void*>(next)),
                              k_buffered_keys * sizeof(Item));
            next += k_buffered_keys;
        }
        std::copy(buffer.begin(), buffer.end(), next);
        return items;
    }

private:
    void write_out(std::size_t partition) {
        if (!m_file) {
            m_file = std::make_unique<protocol::SpillFile>(m_folder);
        }
        auto& buffer = m_buffers[partition];
        m_chunks[partition].push_back(m_file->append(
            std::string_view(static_cast<const char*>(static_cast<const void*>(buffer.data())),
                             buffer.size() * sizeof(Item))));
        buffer.clear();
    }

    std::vector<std::vector<Item>> m_buffers;
    std::vector<std::vector<std::uint64_t>> m_chunks;  // where each written chunk starts
    std::unique_ptr<protocol::SpillFile> m_file;
    std::filesystem::path m_folder;
};

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

// A record's key (the stream is part of it: identical documents of two streams are different
// records) and where the record is.
struct PlacedKey {
    std::uint32_t stream;
    json::Digest digest;
    std::uint64_t position;
    std::uint64_t line;

    bool same_key(const PlacedKey& other) const {
        return stream == other.stream && digest == other.digest;
    }
    bool operator<(const PlacedKey& other) const {
        return std::tie(stream, digest, position) <
               std::tie(other.stream, other.digest, other.position);
    }
};

// A record that lacks its primary key has no identity to compare by: read.primary_key_present
// reports it, and comparisons by identity leave it out rather than blame it a second time.
Partitions<PlacedKey> partition_keys(const RecordSet& records, CompareBy by, std::size_t count) {
    Partitions<PlacedKey> partitions(count, records.scratch_folder());
    records.scan([&](std::uint64_t position, const protocol::RecordEntry& entry) {
        if (by == CompareBy::identity && entry.key_missing) {
            return;
        }
        const auto& digest = key_of(entry, by);
        partitions.add(partition_of(entry.stream, digest, count),
                       {entry.stream, digest, position, entry.line});
    });
    return partitions;
}

// Calls `visit(ours, theirs)` for every group of equal items in either sorted list, with the
// copies of it in each (either span may be empty).
template <typename Item, typename SameGroup, typename Visit>
void for_each_group(std::span<const Item> left, std::span<const Item> right, SameGroup same,
                    Visit visit) {
    auto run_length = [&same](std::span<const Item> items) {
        std::size_t length = 1;
        while (length < items.size() && same(items[length], items[0])) {
            ++length;
        }
        return length;
    };
    while (!left.empty() || !right.empty()) {
        bool both = !left.empty() && !right.empty() && same(left[0], right[0]);
        bool take_left = both || (!left.empty() && (right.empty() || left[0] < right[0]));
        bool take_right = both || !take_left;
        auto left_length = take_left ? run_length(left) : 0;
        auto right_length = take_right ? run_length(right) : 0;
        visit(left.first(left_length), right.first(right_length));
        left = left.subspan(left_length);
        right = right.subspan(right_length);
    }
}

// Calls `visit(ours, theirs)` for every key of either set with the copies of it in each, in
// position order, one partition at a time.
template <typename Visit>
void for_each_key(const RecordSet& left, CompareBy left_by, const RecordSet& right,
                  CompareBy right_by, Visit visit) {
    auto count = partition_count(left, right);
    auto left_keys = partition_keys(left, left_by, count);
    auto right_keys = partition_keys(right, right_by, count);
    for (std::size_t partition = 0; partition < count; ++partition) {
        auto ours = left_keys.take(partition);
        auto theirs = right_keys.take(partition);
        std::sort(ours.begin(), ours.end());
        std::sort(theirs.begin(), theirs.end());
        for_each_group<PlacedKey>(
            ours, theirs, [](const PlacedKey& a, const PlacedKey& b) { return a.same_key(b); },
            visit);
    }
}

// The `keep` smallest items seen, by `Less`, whatever their number.
template <typename Item, typename Less = std::less<Item>>
class Smallest {
public:
    explicit Smallest(std::size_t keep) : m_keep(keep) {}

    void offer(const Item& item) {
        if (m_keep == 0) {
            return;
        }
        if (m_heap.size() < m_keep) {
            m_heap.push(item);
        } else if (Less{}(item, m_heap.top())) {
            m_heap.pop();
            m_heap.push(item);
        }
    }

    std::vector<Item> sorted() {
        std::vector<Item> items;
        for (; !m_heap.empty(); m_heap.pop()) {
            items.push_back(m_heap.top());
        }
        std::reverse(items.begin(), items.end());
        return items;
    }

private:
    std::size_t m_keep;
    std::priority_queue<Item, std::vector<Item>, Less> m_heap;
};

// Missing copies are shown by line: a record missing from several runs shows the earliest first.
struct ByLine {
    bool operator()(const PlacedKey& a, const PlacedKey& b) const {
        return std::tie(a.line, a.position) < std::tie(b.line, b.position);
    }
};

// Per key, the first actual copies match (the later ones are extra) and the last expected copies
// are matched (the first ones are missing).
template <typename OnMissing, typename OnExtra>
void match_copies(const RecordSet& expected, const RecordSet& actual, CompareBy expected_by,
                  CompareBy actual_by, OnMissing on_missing, OnExtra on_extra) {
    for_each_key(expected, expected_by, actual, actual_by, [&](auto ours, auto theirs) {
        auto matched = std::min(ours.size(), theirs.size());
        for (const auto& item : ours.first(ours.size() - matched)) {
            on_missing(item);
        }
        for (const auto& item : theirs.subspan(matched)) {
            on_extra(item);
        }
    });
}

std::vector<RecordRef> resolve(const RecordSet& set, const std::vector<PlacedKey>& keys) {
    std::vector<RecordRef> records;
    for (const auto& key : keys) {
        records.push_back(set.at(key.position));
    }
    return records;
}

RecordSet subset_of(const RecordSet& set, std::vector<std::uint64_t> positions) {
    std::sort(positions.begin(), positions.end());
    return set.only(std::move(positions));
}

struct ByPosition {
    bool operator()(const PlacedKey& a, const PlacedKey& b) const {
        return a.position < b.position;
    }
};

}  // namespace

DiffCounts diff_records(const RecordSet& expected, const RecordSet& actual, CompareBy expected_by,
                        CompareBy actual_by, std::size_t keep) {
    DiffCounts counts;
    Smallest<PlacedKey, ByLine> missing(keep);
    Smallest<PlacedKey, ByPosition> extra(keep);
    match_copies(
        expected, actual, expected_by, actual_by,
        [&](const PlacedKey& key) {
            ++counts.missing_count;
            ++counts.by_stream[key.stream].missing;
            missing.offer(key);
        },
        [&](const PlacedKey& key) {
            ++counts.extra_count;
            ++counts.by_stream[key.stream].extra;
            extra.offer(key);
        });
    counts.examples.missing = resolve(expected, missing.sorted());
    counts.examples.extra = resolve(actual, extra.sorted());
    return counts;
}

namespace {

// Per identity, the first copy of `expected` when `actual` has none: a duplicate that `actual`
// emitted once is not lost.
template <typename OnLost>
void match_lost(const RecordSet& expected, const RecordSet& actual, OnLost on_lost) {
    for_each_key(expected, CompareBy::identity, actual, CompareBy::identity,
                 [&](auto ours, auto theirs) {
                     if (theirs.empty() && !ours.empty()) {
                         on_lost(ours.front());
                     }
                 });
}

}  // namespace

DiffCounts lost_records(const RecordSet& expected, const RecordSet& actual, std::size_t keep) {
    DiffCounts counts;
    Smallest<PlacedKey, ByLine> lost(keep);
    match_lost(expected, actual, [&](const PlacedKey& key) {
        ++counts.missing_count;
        ++counts.by_stream[key.stream].missing;
        lost.offer(key);
    });
    counts.examples.missing = resolve(expected, lost.sorted());
    return counts;
}

RecordSet lost_subset(const RecordSet& expected, const RecordSet& actual) {
    std::vector<std::uint64_t> positions;
    match_lost(expected, actual, [&](const PlacedKey& key) { positions.push_back(key.position); });
    return subset_of(expected, std::move(positions));
}

RecordSet missing_records(const RecordSet& expected, const RecordSet& actual, CompareBy by) {
    std::vector<std::uint64_t> positions;
    match_copies(
        expected, actual, by, by, [&](const PlacedKey& key) { positions.push_back(key.position); },
        [](const PlacedKey&) {});
    return subset_of(expected, std::move(positions));
}

RecordSet extra_records(const RecordSet& expected, const RecordSet& actual, CompareBy by) {
    std::vector<std::uint64_t> positions;
    match_copies(
        expected, actual, by, by, [](const PlacedKey&) {},
        [&](const PlacedKey& key) { positions.push_back(key.position); });
    return subset_of(actual, std::move(positions));
}

namespace {

// Per key, the first copies in `records` overlap, as many as `others` has.
template <typename OnShared>
void match_shared(const RecordSet& records, const RecordSet& others, CompareBy by,
                  OnShared on_shared) {
    for_each_key(records, by, others, by, [&](auto ours, auto theirs) {
        for (const auto& item : ours.first(std::min(ours.size(), theirs.size()))) {
            on_shared(item);
        }
    });
}

}  // namespace

Overlap overlap_records(const RecordSet& records, const RecordSet& others, CompareBy by,
                        std::size_t keep) {
    Overlap overlap;
    Smallest<PlacedKey, ByPosition> shared(keep);
    match_shared(records, others, by, [&](const PlacedKey& key) {
        ++overlap.count;
        shared.offer(key);
    });
    overlap.examples = resolve(records, shared.sorted());
    return overlap;
}

RecordSet shared_records(const RecordSet& records, const RecordSet& others, CompareBy by) {
    std::vector<std::uint64_t> positions;
    match_shared(records, others, by,
                 [&](const PlacedKey& key) { positions.push_back(key.position); });
    return subset_of(records, std::move(positions));
}

namespace {

// One version of a record: its identity and its content, and where it is.
struct Version {
    std::uint32_t stream;
    json::Digest identity;
    json::Digest content;
    std::uint64_t position;
    std::uint64_t line;

    bool same_identity(const Version& other) const {
        return stream == other.stream && identity == other.identity;
    }
    // A keyless record's identity is its content.
    bool keyed() const { return identity != content; }
    std::uint64_t spread() const { return spread_of(identity); }
    // The spread word comes first: sort_versions buckets by its top bits.
    bool operator<(const Version& other) const {
        auto mine = spread();
        auto theirs = other.spread();
        if (mine != theirs) {
            return mine < theirs;
        }
        return std::tie(stream, identity, content, position) <
               std::tie(other.stream, other.identity, other.content, other.position);
    }
};

// Sorts `versions` (copies of one identity side by side, by content and position within) in
// about linear time and in place: identities are digests or line numbers, so the top bits of
// their spread words share the versions out evenly over a quarter as many buckets as there are
// versions; each version is swapped into its bucket, then each bucket is sorted whole.
void sort_versions(std::vector<Version>& versions) {
    constexpr std::size_t k_per_bucket = 4;
    constexpr int k_most_bits = 20;
    if (versions.size() < 2 * k_per_bucket) {
        std::sort(versions.begin(), versions.end());
        return;
    }
    int bits =
        std::min(static_cast<int>(std::bit_width(versions.size() / k_per_bucket)), k_most_bits);
    auto bucket_of = [bits](const Version& version) {
        return static_cast<std::size_t>(version.spread() >> (64 - bits));
    };
    std::vector<std::size_t> ends((std::size_t{1} << bits), 0);
    for (const auto& version : versions) {
        ++ends[bucket_of(version)];
    }
    std::partial_sum(ends.begin(), ends.end(), ends.begin());
    // next[b]: the first place of bucket b not yet holding one of its own versions.
    std::vector<std::size_t> next(ends.size(), 0);
    std::copy(ends.begin(), ends.end() - 1, next.begin() + 1);
    for (std::size_t bucket = 0; bucket < ends.size(); ++bucket) {
        while (next[bucket] < ends[bucket]) {
            std::size_t home = bucket_of(versions[next[bucket]]);
            if (home == bucket) {
                ++next[bucket];
            } else {
                std::swap(versions[next[bucket]], versions[next[home]++]);
            }
        }
    }
    std::size_t begin = 0;
    for (std::size_t end : ends) {
        if (end - begin > 1) {
            std::sort(versions.begin() + static_cast<std::ptrdiff_t>(begin),
                      versions.begin() + static_cast<std::ptrdiff_t>(end));
        }
        begin = end;
    }
}

Version version_of(const protocol::RecordEntry& entry, std::uint64_t position,
                   CompareBy content_by = CompareBy::content) {
    const auto& content = content_by == CompareBy::projected ? entry.projected : entry.content;
    return {entry.stream, entry.identity, content, position, entry.line};
}

Partitions<Version> partition_versions(const RecordSet& records, std::size_t count,
                                       CompareBy content_by = CompareBy::content) {
    Partitions<Version> partitions(count, records.scratch_folder());
    records.scan([&](std::uint64_t position, const protocol::RecordEntry& entry) {
        if (entry.key_missing) {
            return;
        }
        partitions.add(partition_of(entry.stream, entry.identity, count),
                       version_of(entry, position, content_by));
    });
    return partitions;
}

// The keyed records of `records` (a keyless record's identity is its content, and
// read.no_duplicates compares keyed ones only) that may have a copy: in a set of one run whose
// analyzer remembered which identities may repeat, only those records, which are few when keys
// are distinct; in any other set, all. `keyed` counts every keyed record.
Partitions<Version> partition_keyed_versions(const RecordSet& records, std::size_t count,
                                             std::uint64_t& keyed) {
    const auto* run = records.sole_run();
    const auto* contents = run != nullptr ? run->deferred_contents.get() : nullptr;
    Partitions<Version> partitions(count, records.scratch_folder());
    records.scan([&](std::uint64_t position, const protocol::RecordEntry& entry) {
        if (entry.key_missing || !entry.keyed()) {
            return;
        }
        ++keyed;
        if (contents == nullptr || contents->may_repeat(entry.identity)) {
            partitions.add(partition_of(entry.stream, entry.identity, count),
                           version_of(entry, position));
        }
    });
    return partitions;
}

using Pair = std::pair<std::uint64_t, std::uint64_t>;  // expected and actual positions

// The pairs of one identity: per content, the later expected copies that no actual copy matches
// and the first actual copies that no expected copy matches are left over; left-over expected
// copies, in order, pair with left-over actual copies from the last one back.
void pair_versions(std::span<const Version> expected, std::span<const Version> actual,
                   const std::function<void(const Pair&)>& on_pair) {
    std::vector<std::uint64_t> unmatched;
    std::vector<std::uint64_t> left_over;
    for_each_group<Version>(
        expected, actual, [](const Version& a, const Version& b) { return a.content == b.content; },
        [&](auto ours, auto theirs) {
            auto matched = std::min(ours.size(), theirs.size());
            for (const auto& version : ours.subspan(matched)) {
                unmatched.push_back(version.position);
            }
            for (const auto& version : theirs.first(theirs.size() - matched)) {
                left_over.push_back(version.position);
            }
        });
    std::sort(unmatched.begin(), unmatched.end());
    std::sort(left_over.begin(), left_over.end());
    for (std::size_t i = 0; i < std::min(unmatched.size(), left_over.size()); ++i) {
        on_pair({unmatched[i], left_over[left_over.size() - 1 - i]});
    }
}

bool deferred(const Version& version) {
    return protocol::DeferredContents::is_placeholder(version.content);
}

// Reads the contents the analyzer deferred from each run's transcript, one pass per run; a
// content that cannot be read again keeps its placeholder, equal to no other.
void resolve_contents(const RecordSet& records, std::span<Version> versions) {
    std::map<const protocol::Observation*, std::size_t> counts;
    for (const auto& version : versions) {
        if (deferred(version)) {
            ++counts[&records.run_at(version.position)];
        }
    }
    std::map<const protocol::Observation*, std::vector<protocol::DeferredContents::Wanted>> wanted;
    for (const auto& [run, count] : counts) {
        wanted[run].reserve(count);
    }
    for (const auto& version : versions) {
        if (deferred(version)) {
            wanted[&records.run_at(version.position)].push_back(
                {version.line, version.stream, version.content});
        }
    }
    for (auto& [run, lines] : wanted) {
        if (run->deferred_contents) {
            run->deferred_contents->resolve(*run, lines);  // sorts them by line
        }
    }
    for (auto& version : versions) {
        const auto* run = deferred(version) ? &records.run_at(version.position) : nullptr;
        if (run == nullptr || !run->deferred_contents) {
            continue;
        }
        const auto& lines = wanted[run];
        auto found = std::lower_bound(lines.begin(), lines.end(), version.line,
                                      [](const protocol::DeferredContents::Wanted& w,
                                         std::uint64_t line) { return w.line < line; });
        if (found != lines.end() && found->line == version.line) {
            version.content = found->content;
        }
    }
}

// The copies of sorted `versions` that repeat the one before them, key and content.
// Where duplicate_records keeps what it found: the copies, and the collisions of the streams it
// looks for them in.
struct RepeatTally {
    Smallest<std::uint64_t> positions;
    Smallest<std::uint64_t> collision_positions;
    const std::function<bool(std::uint32_t)>& collisions_in;
};

void count_repeats(std::span<const Version> versions, Duplicates& duplicates, RepeatTally& tally) {
    for (std::size_t i = 1; i < versions.size(); ++i) {
        const auto& first = versions[i - 1];
        const auto& again = versions[i];
        if (!again.keyed() || !again.same_identity(first)) {
            continue;
        }
        if (again.content == first.content) {
            ++duplicates.count;
            tally.positions.offer(again.position);
        } else if (tally.collisions_in && tally.collisions_in(again.stream) && !deferred(first) &&
                   !deferred(again)) {
            ++duplicates.collisions.count;
            tally.collision_positions.offer(again.position);
        }
    }
}

// Versions whose contents are read again before they are compared, a batch of whole identity
// groups at a time (one pass over each run's transcript per batch, about 5.5 MiB of memory).
constexpr std::size_t k_deferred_batch = 1 << 16;

}  // namespace

Duplicates duplicate_records(const RecordSet& records, std::size_t keep,
                             const std::function<bool(std::uint32_t)>& collisions_in) {
    if (!records.runs_hold_keyed()) {
        return {};
    }
    auto count = partition_count(records, records);
    Duplicates duplicates;
    auto versions = partition_keyed_versions(records, count, duplicates.keyed);
    RepeatTally tally{Smallest<std::uint64_t>(keep), Smallest<std::uint64_t>(keep), collisions_in};
    std::vector<Version> to_read;
    auto read_and_count = [&] {
        resolve_contents(records, to_read);
        duplicates.unread +=
            static_cast<std::uint64_t>(std::count_if(to_read.begin(), to_read.end(), deferred));
        sort_versions(to_read);
        count_repeats(to_read, duplicates, tally);
        to_read.clear();
    };
    for (std::size_t partition = 0; partition < count; ++partition) {
        auto items = versions.take(partition);
        sort_versions(items);
        // Only copies of a repeated identity can be duplicates: only theirs are read again.
        for (std::size_t begin = 0; begin < items.size();) {
            std::size_t end = begin + 1;
            while (end < items.size() && items[end].same_identity(items[begin])) {
                ++end;
            }
            std::span<const Version> group(items.data() + begin, end - begin);
            if (group.size() > 1 && std::any_of(group.begin(), group.end(), deferred)) {
                if (!to_read.empty() && to_read.size() + group.size() > k_deferred_batch) {
                    read_and_count();
                }
                to_read.reserve(k_deferred_batch);
                to_read.insert(to_read.end(), group.begin(), group.end());
            } else {
                count_repeats(group, duplicates, tally);
            }
            begin = end;
        }
    }
    read_and_count();
    for (auto position : tally.positions.sorted()) {
        duplicates.examples.push_back(records.at(position));
    }
    for (auto position : tally.collision_positions.sorted()) {
        duplicates.collisions.examples.push_back(records.at(position));
    }
    return duplicates;
}

Changed changed_records(const RecordSet& expected, const RecordSet& actual, std::size_t keep,
                        CompareBy expected_by) {
    auto count = partition_count(expected, actual);
    auto expected_versions = partition_versions(expected, count, expected_by);
    auto actual_versions = partition_versions(actual, count);
    Changed changed;
    Smallest<Pair> pairs(keep);
    for (std::size_t partition = 0; partition < count; ++partition) {
        auto ours = expected_versions.take(partition);
        auto theirs = actual_versions.take(partition);
        sort_versions(ours);
        sort_versions(theirs);
        for_each_group<Version>(
            ours, theirs, [](const Version& a, const Version& b) { return a.same_identity(b); },
            [&](auto one_identity, auto its_actual) {
                pair_versions(one_identity, its_actual, [&](const Pair& pair) {
                    ++changed.count;
                    pairs.offer(pair);
                });
            });
    }
    for (const auto& [from, to] : pairs.sorted()) {
        changed.examples.emplace_back(expected.at(from), actual.at(to));
    }
    return changed;
}

std::string describe_record(const RecordRef& record, const std::vector<std::string>& stream_names) {
    const auto& entry = record.entry;
    std::string stream = entry.stream < stream_names.size() ? stream_names[entry.stream] : "?";
    if (entry.key.empty()) {
        return fmt::format("the {} record at line {} of {}", stream, entry.line, record.run->label);
    }
    return fmt::format("{} key {} (line {} of {})", stream, entry.key, entry.line,
                       record.run->label);
}

}  // namespace conform::suite
