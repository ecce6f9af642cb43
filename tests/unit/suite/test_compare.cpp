#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "suite/compare.hpp"

using namespace conform;
using namespace conform::suite;

namespace {

// Records made of (stream, digest) pairs; identity and content differ only in high half,
// projected is the content plus 1000, so each CompareBy can be told apart.
std::vector<protocol::RecordEntry> entries_of(
    const std::vector<std::pair<std::uint16_t, std::uint64_t>>& records) {
    std::vector<protocol::RecordEntry> entries;
    std::uint64_t line = 0;
    for (const auto& [stream, value] : records) {
        protocol::RecordEntry entry;
        entry.stream = stream;
        entry.identity = json::Digest{1, value};
        entry.content = json::Digest{2, value};
        entry.projected = json::Digest{2, value + 1000};
        entry.line = ++line;
        entries.push_back(entry);
    }
    return entries;
}

protocol::Observation run_from(const std::string& label,
                               const std::vector<protocol::RecordEntry>& entries) {
    protocol::Observation run;
    run.label = label;
    for (const auto& entry : entries) {
        run.records.push_back(entry);
    }
    return run;
}

protocol::Observation run_of(const std::string& label,
                             const std::vector<std::pair<std::uint16_t, std::uint64_t>>& records) {
    return run_from(label, entries_of(records));
}

std::vector<std::uint64_t> lines_of(const std::vector<RecordRef>& records) {
    std::vector<std::uint64_t> lines;
    for (const auto& record : records) {
        lines.push_back(record.entry.line);
    }
    return lines;
}

std::vector<std::uint64_t> lines_of(const RecordSet& records) {
    std::vector<std::uint64_t> lines;
    records.scan([&lines](std::uint64_t, const protocol::RecordEntry& entry) {
        lines.push_back(entry.line);
    });
    return lines;
}

using Lines = std::vector<std::uint64_t>;

}  // namespace

TEST_CASE("diff_records: equal multisets in any order have no difference") {
    auto expected = run_of("a", {{0, 1}, {0, 2}, {0, 2}, {1, 1}});
    auto actual = run_of("b", {{1, 1}, {0, 2}, {0, 1}, {0, 2}});
    auto diff = diff_records(RecordSet(expected), RecordSet(actual), CompareBy::identity,
                             CompareBy::identity);
    CHECK(diff.missing_count == 0);
    CHECK(diff.extra_count == 0);
    CHECK(diff.examples.missing.empty());
    CHECK(diff.examples.extra.empty());
}

TEST_CASE("diff_records: duplicates are counted") {
    auto expected = run_of("a", {{0, 1}, {0, 2}});
    auto actual = run_of("b", {{0, 1}, {0, 1}, {0, 2}, {0, 2}, {0, 2}});
    auto diff = diff_records(RecordSet(expected), RecordSet(actual), CompareBy::identity,
                             CompareBy::identity);
    CHECK(diff.missing_count == 0);
    CHECK(diff.extra_count == 3);
    CHECK(lines_of(diff.examples.extra) == Lines{2, 4, 5});
    CHECK(diff.examples.extra[0].run == &actual);

    auto reverse = diff_records(RecordSet(actual), RecordSet(expected), CompareBy::identity,
                                CompareBy::identity);
    CHECK(reverse.missing_count == 3);
    CHECK(reverse.extra_count == 0);
    REQUIRE(reverse.examples.missing.size() == 3);
    CHECK(reverse.examples.missing[0].run == &actual);
}

TEST_CASE("diff_records: the stream is part of the key") {
    auto expected = run_of("a", {{0, 7}});
    auto actual = run_of("b", {{1, 7}});
    auto diff = diff_records(RecordSet(expected), RecordSet(actual), CompareBy::identity,
                             CompareBy::identity);
    CHECK(diff.missing_count == 1);
    CHECK(diff.extra_count == 1);
}

TEST_CASE("diff_records: missing examples come in line order and are capped, counts are not") {
    auto expected = run_of("a", {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}});
    auto actual = run_of("b", {{0, 4}, {0, 90}, {0, 91}, {0, 92}});
    auto diff = diff_records(RecordSet(expected), RecordSet(actual), CompareBy::identity,
                             CompareBy::identity, 2);
    CHECK(diff.missing_count == 6);
    CHECK(lines_of(diff.examples.missing) == Lines{1, 2});
    CHECK(diff.extra_count == 3);
    CHECK(lines_of(diff.examples.extra) == Lines{2, 3});
}

TEST_CASE("diff_records: each side can be compared by a different digest") {
    auto run = run_of("a", {{0, 1}, {0, 2}});
    RecordSet refs(run);
    CHECK(diff_records(refs, refs, CompareBy::content, CompareBy::content).extra_count == 0);
    CHECK(diff_records(refs, refs, CompareBy::projected, CompareBy::projected).extra_count == 0);
    auto mixed = diff_records(refs, refs, CompareBy::identity, CompareBy::content);
    CHECK(mixed.missing_count == 2);
    CHECK(mixed.extra_count == 2);

    // projected of x+1000 equals content of x+1000.
    auto shifted = run_of("b", {{0, 1001}, {0, 1002}});
    CHECK(diff_records(refs, RecordSet(shifted), CompareBy::projected, CompareBy::content)
              .extra_count == 0);
}

TEST_CASE("overlap_records: multiset intersection") {
    auto records = run_of("a", {{0, 1}, {0, 1}, {0, 1}, {0, 2}, {1, 3}, {0, 4}});
    auto others = run_of("b", {{0, 1}, {0, 1}, {0, 3}, {0, 4}, {0, 4}});
    auto overlap = overlap_records(RecordSet(records), RecordSet(others), CompareBy::identity);
    // Two of the three 1s, not stream 1's 3, and the single 4.
    CHECK(overlap.count == 3);
    CHECK(lines_of(overlap.examples) == Lines{1, 2, 6});
    CHECK(overlap.examples[0].run == &records);

    auto capped = overlap_records(RecordSet(records), RecordSet(others), CompareBy::identity, 1);
    CHECK(capped.count == 3);
    CHECK(capped.examples.size() == 1);

    CHECK(overlap_records(RecordSet(records), RecordSet(), CompareBy::identity).count == 0);
}

TEST_CASE("RecordSet: filters, spans runs, takes subsets and resolves positions") {
    auto run = run_of("a", {{0, 1}, {1, 2}, {0, 3}});
    auto other = run_of("b", {{0, 4}, {0, 5}});
    RecordSet all(run);
    CHECK(lines_of(all) == Lines{1, 2, 3});
    CHECK(all.size() == 3);
    RecordSet first_stream(run,
                           [](const protocol::RecordEntry& entry) { return entry.stream == 0; });
    CHECK(lines_of(first_stream) == Lines{1, 3});
    CHECK(first_stream.size() == 2);
    first_stream.add(other);
    CHECK(first_stream.positions() == 5);
    CHECK(lines_of(first_stream) == Lines{1, 3, 1, 2});
    auto record = first_stream.at(4);
    CHECK(record.run == &other);
    CHECK(record.entry.line == 2);
    CHECK(record.position == 4);
    auto subset = first_stream.only({1, 2, 3});  // 1 is filtered out
    CHECK(lines_of(subset) == Lines{3, 1});
    CHECK(subset.size() == 2);
}

TEST_CASE("describe_record: stream, key or the record's line, and run") {
    auto entries = entries_of({{0, 1}, {1, 2}, {5, 3}});
    entries[0].key = "[42]";
    auto run = run_from("read [range 0-1]", entries);
    RecordSet refs(run);
    std::vector<std::string> names{"users", "app.logs"};
    CHECK(describe_record(refs.at(0), names) == "users key [42] (line 1 of read [range 0-1])");
    CHECK(describe_record(refs.at(1), names) ==
          "the app.logs record at line 2 of read [range 0-1]");
    CHECK(describe_record(refs.at(2), names).starts_with("the ? record at line 3"));
}

TEST_CASE("changed_records: the same identity with other content, paired") {
    auto expected = run_of("a", {{0, 1}, {0, 2}, {0, 3}});
    auto actual_entries = entries_of({{0, 1}, {0, 2}, {1, 3}});
    actual_entries[1].content = json::Digest{9, 9};  // key 2 changed
    auto actual = run_from("b", actual_entries);
    auto changed = changed_records(RecordSet(expected), RecordSet(actual));
    REQUIRE(changed.count == 1);
    CHECK(changed.examples[0].first.entry.line == 2);
    CHECK(changed.examples[0].second.entry.line == 2);
}

TEST_CASE("changed_records: exact matches are taken first, whatever the order") {
    auto expected_entries = entries_of({{0, 7}, {0, 7}});
    expected_entries[1].content = json::Digest{5, 5};
    auto actual_entries = entries_of({{0, 7}, {0, 7}});
    actual_entries[0].content = json::Digest{5, 5};  // the same two versions, swapped
    auto expected = run_from("a", expected_entries);
    auto actual = run_from("b", actual_entries);
    CHECK(changed_records(RecordSet(expected), RecordSet(actual)).count == 0);
}

TEST_CASE("duplicate_records: copies of one identity, among others alike, in any order") {
    // Identities are (high, low) words: the copies here share a word with other identities, and
    // their identity appears in another stream too. Ten versions go into the sort's four
    // buckets, so buckets hold several (mutation: leave buckets unsorted, and this fails).
    auto entry = [](std::uint32_t stream, json::Digest identity, json::Digest content,
                    std::uint64_t line) {
        protocol::RecordEntry made;
        made.stream = stream;
        made.identity = identity;
        made.content = content;
        made.line = line;
        return made;
    };
    std::vector<protocol::RecordEntry> entries{
        entry(0, {1, 5}, {2, 5}, 1), entry(0, {1, 6}, {2, 6}, 2), entry(1, {1, 5}, {2, 5}, 3),
        entry(0, {9, 5}, {2, 5}, 4), entry(0, {1, 5}, {2, 5}, 5),  // a duplicate of line 1
        entry(0, {1, 6}, {3, 6}, 6),                               // changed, no duplicate
        entry(0, {1, 7}, {2, 7}, 7), entry(0, {1, 5}, {2, 5}, 8),  // line 1 again
        entry(1, {1, 6}, {2, 6}, 9), entry(0, {1, 4}, {2, 4}, 10)};
    auto run = run_from("r", entries);
    auto duplicates = duplicate_records(RecordSet(run));
    CHECK(duplicates.count == 2);
    CHECK(duplicates.keyed == entries.size());
    CHECK(lines_of(duplicates.examples) == Lines{5, 8});
    CHECK(duplicates.collisions.count == 0);  // not asked for

    // Stream 0's key {1, 6} with other content (line 6): a collision where asked for.
    auto in_stream_0 =
        duplicate_records(RecordSet(run), 5, [](std::uint32_t stream) { return stream == 0; });
    CHECK(in_stream_0.count == 2);
    CHECK(in_stream_0.collisions.count == 1);
    REQUIRE(in_stream_0.collisions.examples.size() == 1);
    CHECK(in_stream_0.collisions.examples[0].entry.identity == json::Digest{1, 6});
    auto in_stream_1 =
        duplicate_records(RecordSet(run), 5, [](std::uint32_t stream) { return stream == 1; });
    CHECK(in_stream_1.collisions.count == 0);
}

TEST_CASE("duplicate_records: keyless records are neither compared nor counted, however often") {
    // A keyless record's identity is its content (the analyzer's RecordEntry).
    auto entry = [](json::Digest identity, json::Digest content, std::uint64_t line) {
        protocol::RecordEntry made;
        made.stream = 0;
        made.identity = identity;
        made.content = content;
        made.line = line;
        return made;
    };
    std::vector<protocol::RecordEntry> entries{entry({1, 5}, {2, 5}, 1), entry({2, 8}, {2, 8}, 2),
                                               entry({1, 5}, {2, 5}, 3), entry({2, 8}, {2, 8}, 4),
                                               entry({2, 8}, {2, 8}, 5), entry({1, 6}, {2, 6}, 6)};
    auto run = run_from("r", entries);
    auto duplicates = duplicate_records(RecordSet(run));
    CHECK(duplicates.count == 1);
    CHECK(duplicates.keyed == 3);
    CHECK(lines_of(duplicates.examples) == Lines{3});
    auto keyless = run_from("k", {entries[1], entries[3], entries[4]});
    CHECK_FALSE(RecordSet(keyless).runs_hold_keyed());
    CHECK(RecordSet(run).runs_hold_keyed());
    auto none = duplicate_records(RecordSet(keyless));
    CHECK(none.count == 0);
    CHECK(none.keyed == 0);
}

TEST_CASE("comparisons give the same answers when the sets span several partition files") {
    // More records than one partition holds (64 Ki keys), so every comparison writes its keys
    // to partition files and reads them back. The actual run lacks every i % 7 == 0, repeats
    // every i % 11 == 0 at its end and changes the content of every i % 13 == 0.
    constexpr std::uint64_t count = 600'000;
    protocol::Observation expected;
    protocol::Observation actual;
    expected.label = "expected";
    actual.label = "actual";
    auto entry_of = [](std::uint64_t i, bool changed, std::uint64_t line) {
        protocol::RecordEntry entry;
        entry.stream = static_cast<std::uint32_t>(i % 3);
        entry.identity = json::Digest{i * 0x9E3779B97F4A7C15ULL, i};
        entry.content = json::Digest{changed ? 7U : 2U, i};
        entry.line = line;
        return entry;
    };
    std::uint64_t line = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        expected.records.push_back(entry_of(i, false, i + 1));
        if (i % 7 != 0) {
            actual.records.push_back(entry_of(i, i % 13 == 0, ++line));
        }
    }
    for (std::uint64_t i = 0; i < count; i += 11) {
        actual.records.push_back(entry_of(i, i % 13 == 0, ++line));
    }
    std::uint64_t missing = 0;
    std::uint64_t extra = 0;
    std::uint64_t changed = 0;
    std::uint64_t shared = 0;
    for (std::uint64_t i = 0; i < count; ++i) {
        missing += i % 7 == 0 && i % 11 != 0;
        extra += i % 11 == 0 && i % 7 != 0;
        changed += i % 13 == 0 && (i % 7 != 0 || i % 11 == 0);
        shared += i % 7 != 0 || i % 11 == 0;
    }
    RecordSet expected_set(expected);
    RecordSet actual_set(actual);

    auto diff = diff_records(expected_set, actual_set, CompareBy::identity, CompareBy::identity);
    CHECK(diff.missing_count == missing);
    CHECK(diff.extra_count == extra);
    CHECK(lines_of(diff.examples.missing) == Lines{8, 15, 22, 29, 36});  // i = 7, 14, ...
    REQUIRE(diff.examples.extra.size() == 5);
    CHECK(diff.examples.extra[0].entry.identity.low == 11);
    CHECK(diff.examples.extra[4].entry.identity.low == 55);
    CHECK(diff.examples.extra[0].run == &actual);

    CHECK(missing_records(expected_set, actual_set, CompareBy::identity).size() == missing);
    CHECK(extra_records(expected_set, actual_set, CompareBy::identity).size() == extra);
    auto overlap = overlap_records(actual_set, expected_set, CompareBy::identity);
    CHECK(overlap.count == shared);
    CHECK(shared_records(actual_set, expected_set, CompareBy::identity).size() == shared);

    auto versions = changed_records(expected_set, actual_set);
    CHECK(versions.count == changed);
    REQUIRE(versions.examples.size() == 5);
    CHECK(versions.examples[0].first.entry.identity.low == 0);  // its repeat at the end
    CHECK(versions.examples[1].first.entry.identity.low == 13);
    CHECK(versions.examples[0].second.entry.content.high == 7);

    auto by_content =
        diff_records(expected_set, actual_set, CompareBy::content, CompareBy::content);
    CHECK(by_content.missing_count == missing + changed);
}

TEST_CASE("diff_records and lost_records count per stream; where() narrows a filtered set") {
    auto expected = run_of("expected", {{0, 1}, {0, 2}, {1, 3}, {1, 4}, {1, 5}});
    auto actual = run_of("actual", {{0, 1}, {1, 3}, {1, 6}, {1, 7}, {0, 8}});
    auto diff = diff_records(RecordSet(expected), RecordSet(actual), CompareBy::content,
                             CompareBy::content);
    CHECK(diff.by_stream.at(0).missing == 1);
    CHECK(diff.by_stream.at(0).extra == 1);
    CHECK(diff.by_stream.at(1).missing == 2);
    CHECK(diff.by_stream.at(1).extra == 2);
    auto lost = lost_records(RecordSet(expected), RecordSet(actual));
    CHECK(lost.by_stream.at(1).missing == 2);
    CHECK(lost.by_stream.at(1).extra == 0);

    auto stream_1 = [](const protocol::RecordEntry& entry) { return entry.stream == 1; };
    auto after_line_3 = [](const protocol::RecordEntry& entry) { return entry.line > 3; };
    CHECK(lines_of(RecordSet(expected, stream_1).where(after_line_3)) == Lines{4, 5});
    CHECK(lines_of(RecordSet(expected).where(stream_1)) == Lines{3, 4, 5});
}
