#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "suite/compare.hpp"

using namespace conform;
using namespace conform::suite;

namespace {

// A run whose records are (stream, digest) pairs; identity and content differ only in high half,
// projected is the content plus 1000, so each CompareBy can be told apart.
protocol::Observation run_of(const std::string& label,
                             const std::vector<std::pair<std::uint16_t, std::uint64_t>>& records) {
    protocol::Observation run;
    run.label = label;
    std::uint64_t line = 0;
    for (const auto& [stream, value] : records) {
        protocol::RecordEntry entry;
        entry.stream = stream;
        entry.identity = json::Digest{1, value};
        entry.content = json::Digest{2, value};
        entry.projected = json::Digest{2, value + 1000};
        entry.line = ++line;
        run.records.push_back(entry);
    }
    return run;
}

std::vector<std::uint64_t> lines_of(const std::vector<RecordRef>& records) {
    std::vector<std::uint64_t> lines;
    for (const auto& record : records) {
        lines.push_back(record.entry->line);
    }
    return lines;
}

using Lines = std::vector<std::uint64_t>;

}  // namespace

TEST_CASE("diff_records: equal multisets in any order have no difference") {
    auto expected = run_of("a", {{0, 1}, {0, 2}, {0, 2}, {1, 1}});
    auto actual = run_of("b", {{1, 1}, {0, 2}, {0, 1}, {0, 2}});
    auto diff = diff_records(records_of(expected), records_of(actual), CompareBy::identity,
                             CompareBy::identity);
    CHECK(diff.missing_count == 0);
    CHECK(diff.extra_count == 0);
    CHECK(diff.examples.missing.empty());
    CHECK(diff.examples.extra.empty());
}

TEST_CASE("diff_records: duplicates are counted") {
    auto expected = run_of("a", {{0, 1}, {0, 2}});
    auto actual = run_of("b", {{0, 1}, {0, 1}, {0, 2}, {0, 2}, {0, 2}});
    auto diff = diff_records(records_of(expected), records_of(actual), CompareBy::identity,
                             CompareBy::identity);
    CHECK(diff.missing_count == 0);
    CHECK(diff.extra_count == 3);
    CHECK(lines_of(diff.examples.extra) == Lines{2, 4, 5});
    CHECK(diff.examples.extra[0].run == &actual);

    auto reverse = diff_records(records_of(actual), records_of(expected), CompareBy::identity,
                                CompareBy::identity);
    CHECK(reverse.missing_count == 3);
    CHECK(reverse.extra_count == 0);
    REQUIRE(reverse.examples.missing.size() == 3);
    CHECK(reverse.examples.missing[0].run == &actual);
}

TEST_CASE("diff_records: the stream is part of the key") {
    auto expected = run_of("a", {{0, 7}});
    auto actual = run_of("b", {{1, 7}});
    auto diff = diff_records(records_of(expected), records_of(actual), CompareBy::identity,
                             CompareBy::identity);
    CHECK(diff.missing_count == 1);
    CHECK(diff.extra_count == 1);
}

TEST_CASE("diff_records: missing examples come in line order and are capped, counts are not") {
    auto expected = run_of("a", {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {0, 6}, {0, 7}});
    auto actual = run_of("b", {{0, 4}, {0, 90}, {0, 91}, {0, 92}});
    auto diff = diff_records(records_of(expected), records_of(actual), CompareBy::identity,
                             CompareBy::identity, 2);
    CHECK(diff.missing_count == 6);
    CHECK(lines_of(diff.examples.missing) == Lines{1, 2});
    CHECK(diff.extra_count == 3);
    CHECK(lines_of(diff.examples.extra) == Lines{2, 3});
}

TEST_CASE("diff_records: each side can be compared by a different digest") {
    auto run = run_of("a", {{0, 1}, {0, 2}});
    auto refs = records_of(run);
    CHECK(diff_records(refs, refs, CompareBy::content, CompareBy::content).extra_count == 0);
    CHECK(diff_records(refs, refs, CompareBy::projected, CompareBy::projected).extra_count == 0);
    auto mixed = diff_records(refs, refs, CompareBy::identity, CompareBy::content);
    CHECK(mixed.missing_count == 2);
    CHECK(mixed.extra_count == 2);

    // projected of x+1000 equals content of x+1000.
    auto shifted = run_of("b", {{0, 1001}, {0, 1002}});
    CHECK(diff_records(refs, records_of(shifted), CompareBy::projected, CompareBy::content)
              .extra_count == 0);
}

TEST_CASE("overlap_records: multiset intersection") {
    auto records = run_of("a", {{0, 1}, {0, 1}, {0, 1}, {0, 2}, {1, 3}, {0, 4}});
    auto others = run_of("b", {{0, 1}, {0, 1}, {0, 3}, {0, 4}, {0, 4}});
    auto overlap = overlap_records(records_of(records), records_of(others), CompareBy::identity);
    // Two of the three 1s, not stream 1's 3, and the single 4.
    CHECK(overlap.count == 3);
    CHECK(lines_of(overlap.examples) == Lines{1, 2, 6});
    CHECK(overlap.examples[0].run == &records);

    auto capped = overlap_records(records_of(records), records_of(others), CompareBy::identity, 1);
    CHECK(capped.count == 3);
    CHECK(capped.examples.size() == 1);

    CHECK(overlap_records(records_of(records), {}, CompareBy::identity).count == 0);
}

TEST_CASE("records_of: filters and keeps the run") {
    auto run = run_of("a", {{0, 1}, {1, 2}, {0, 3}});
    auto all = records_of(run);
    CHECK(lines_of(all) == Lines{1, 2, 3});
    auto first_stream =
        records_of(run, [](const protocol::RecordEntry& entry) { return entry.stream == 0; });
    CHECK(lines_of(first_stream) == Lines{1, 3});
    CHECK(first_stream[1].run == &run);
}

TEST_CASE("describe_record: stream, key or digest, line and run") {
    auto run = run_of("read [range 0-1]", {{0, 1}, {1, 2}, {5, 3}});
    run.records[0].key = "[42]";
    auto refs = records_of(run);
    std::vector<std::string> names{"users", "app.logs"};
    CHECK(describe_record(refs[0], names) == "users key [42] (line 1 of read [range 0-1])");
    CHECK(describe_record(refs[1], names) == "app.logs digest " +
                                                 run.records[1].content.hex().substr(0, 12) +
                                                 " (line 2 of read [range 0-1])");
    CHECK(describe_record(refs[2], names).starts_with("? digest "));
}

TEST_CASE("changed_records: the same identity with other content, paired") {
    auto expected = run_of("a", {{0, 1}, {0, 2}, {0, 3}});
    auto actual = run_of("b", {{0, 1}, {0, 2}, {1, 3}});
    actual.records[1].content = json::Digest{9, 9};  // key 2 changed
    auto changed = changed_records(records_of(expected), records_of(actual));
    REQUIRE(changed.count == 1);
    CHECK(changed.examples[0].first.entry->line == 2);
    CHECK(changed.examples[0].second.entry->line == 2);
}

TEST_CASE("changed_records: exact matches are taken first, whatever the order") {
    auto expected = run_of("a", {{0, 7}, {0, 7}});
    expected.records[1].content = json::Digest{5, 5};
    auto actual = run_of("b", {{0, 7}, {0, 7}});
    actual.records[0].content = json::Digest{5, 5};  // the same two versions, swapped
    CHECK(changed_records(records_of(expected), records_of(actual)).count == 0);
}
