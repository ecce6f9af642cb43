#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "protocol/checkpoint_store.hpp"
#include "protocol/deferred_contents.hpp"
#include "protocol/record_store.hpp"
#include "protocol/spill.hpp"

using conform::json::Digest;
using conform::protocol::RecordEntry;
using conform::protocol::RecordStore;
using conform::protocol::SpilledText;
using conform::protocol::SpillFile;

namespace {

RecordEntry numbered(std::uint64_t n) {
    RecordEntry entry;
    entry.identity = Digest{1, n};
    entry.content = Digest{2, n};
    entry.projected = Digest{3, n};
    entry.line = n + 1;
    entry.checkpoint = static_cast<std::uint32_t>(n / 10);
    entry.stream = static_cast<std::uint32_t>(n % 3);
    entry.key = n % 2 == 0 ? "[" + std::to_string(n) + "]" : "";
    return entry;
}

void check_numbered(const RecordEntry& entry, std::uint64_t n) {
    auto expected = numbered(n);
    CHECK(entry.identity == expected.identity);
    CHECK(entry.content == expected.content);
    CHECK(entry.projected == expected.projected);
    CHECK(entry.line == expected.line);
    CHECK(entry.checkpoint == expected.checkpoint);
    CHECK(entry.stream == expected.stream);
    CHECK(entry.key == expected.key);
}

}  // namespace

TEST_CASE("RecordStore: reads back every record, written or pending, by index and in order") {
    RecordStore store;
    constexpr std::uint64_t count = 2500;  // two written blocks and a pending part
    for (std::uint64_t n = 0; n < count; ++n) {
        store.push_back(numbered(n));
    }
    REQUIRE(store.size() == count);
    const auto& reader = store;
    check_numbered(reader[2499], 2499);
    check_numbered(reader[0], 0);
    check_numbered(reader[1024], 1024);
    std::uint64_t n = 0;
    for (const auto& entry : std::as_const(store)) {
        if (n % 97 == 0) {
            check_numbered(entry, n);
        }
        ++n;
    }
    CHECK(n == count);
}

TEST_CASE("RecordStore: scan visits every record in order from any index, keys left out") {
    RecordStore store;
    constexpr std::uint64_t count = 2100;  // two written blocks and a pending part
    for (std::uint64_t n = 0; n < count; ++n) {
        store.push_back(numbered(n));
    }
    std::uint64_t visited = 0;
    store.scan(1000, [&](std::size_t index, const RecordEntry& entry) {
        CHECK(index == 1000 + visited);
        auto expected = numbered(index);
        CHECK(entry.identity == expected.identity);
        CHECK(entry.line == expected.line);
        CHECK(entry.stream == expected.stream);
        CHECK(entry.key.empty());
        ++visited;
    });
    CHECK(visited == count - 1000);
    std::uint64_t all = 0;
    store.scan([&all](std::size_t, const RecordEntry&) { ++all; });
    CHECK(all == count);
}

TEST_CASE("RecordStore: a copy is independent of the original") {
    RecordStore original;
    for (std::uint64_t n = 0; n < 1100; ++n) {
        original.push_back(numbered(n));
    }
    RecordStore copy = original;
    copy.push_back(numbered(5000));
    CHECK(original.size() == 1100);
    CHECK(copy.size() == 1101);
    check_numbered(std::as_const(copy)[1100], 5000);
    original.push_back(numbered(7));
    check_numbered(std::as_const(original)[1100], 7);
}

TEST_CASE("RecordStore: per stream, the records, keyed ones and last line, as a scan counts") {
    RecordStore store;
    for (std::uint64_t n = 0; n < 2100; ++n) {
        auto entry = numbered(n);
        if (entry.stream == 1) {
            entry.identity = entry.content;  // keyless: the identity is the content
        }
        entry.stream = entry.stream == 2 ? 4 : entry.stream;  // streams 2 and 3 have no record
        store.push_back(entry);
    }
    std::vector<conform::protocol::StreamRecords> scanned(5);
    store.scan([&scanned](std::size_t, const RecordEntry& entry) {
        auto& stream = scanned.at(entry.stream);
        ++stream.records;
        stream.keyed += entry.identity != entry.content ? 1 : 0;
        stream.last_line = std::max(stream.last_line, entry.line);
    });
    auto counted = store.per_stream();
    REQUIRE(counted.size() == 5);
    for (std::size_t stream = 0; stream < counted.size(); ++stream) {
        CAPTURE(stream);
        CHECK(counted[stream].records == scanned[stream].records);
        CHECK(counted[stream].keyed == scanned[stream].keyed);
        CHECK(counted[stream].last_line == scanned[stream].last_line);
    }
    CHECK(counted[0].records == 700);
    CHECK(counted[0].keyed == 700);
    CHECK(counted[1].keyed == 0);
    CHECK(counted[2].records == 0);
    CHECK(counted[4].last_line == 2100);  // n = 2099, on line n + 1
    RecordStore copy = store;
    CHECK(copy.per_stream().size() == 5);
    CHECK(copy.per_stream()[4].records == counted[4].records);
    CHECK(RecordStore().per_stream().empty());
}

TEST_CASE("SpilledText: a text in the file reads back whole and compares with kept texts") {
    auto file = std::make_shared<SpillFile>(std::filesystem::temp_directory_path());
    std::string long_text(5000, 'x');
    long_text.back() = 'y';
    file->append("{\"a\":1}");
    auto spilled = SpilledText::in_file(file, file->append(long_text), long_text.size());
    SpilledText short_one("{\"a\":1}");
    CHECK(SpilledText::in_file(file, 0, 7) == short_one);
    CHECK(spilled.text() == long_text);
    CHECK(spilled == long_text);
    CHECK(std::string_view(spilled) == long_text);
    CHECK(short_one == std::string("{\"a\":1}"));
    CHECK_FALSE(spilled == short_one);
    SpilledText again(long_text);
    CHECK(spilled == again);
    std::string other = long_text;
    other.back() = 'z';
    CHECK_FALSE(spilled == other);
}

TEST_CASE("CheckpointStore: reads back every checkpoint, texts and streams, across blocks") {
    using conform::protocol::Checkpoint;
    using conform::protocol::CheckpointStore;
    auto numbered = [](std::uint64_t n) {
        Checkpoint checkpoint;
        checkpoint.line = n * 3 + 1;
        checkpoint.records_before = n * 2;
        checkpoint.state_file = "{\"seq\":" + std::to_string(n) + "}";
        checkpoint.materialized = n % 500 == 0 ? std::string(5000, 'm') : "";
        checkpoint.all_streams = n % 2 == 0;
        if (!checkpoint.all_streams) {
            checkpoint.streams = {static_cast<std::uint32_t>(n % 7), 9};
        }
        return checkpoint;
    };
    CheckpointStore store;
    constexpr std::uint64_t count = 2100;  // two written blocks and a pending part
    for (std::uint64_t n = 0; n < count; ++n) {
        store.push_back(numbered(n));
    }
    REQUIRE(store.size() == count);
    for (std::uint64_t n : {0U, 1U, 1023U, 1024U, 1500U, 2099U}) {
        auto expected = numbered(n);
        auto checkpoint = store[n];
        CHECK(checkpoint.line == expected.line);
        CHECK(checkpoint.records_before == expected.records_before);
        CHECK(checkpoint.state_file == expected.state_file);
        CHECK(checkpoint.materialized == expected.materialized);
        CHECK(checkpoint.all_streams == expected.all_streams);
        CHECK(checkpoint.streams == expected.streams);
    }
    CHECK(store.back().line == numbered(count - 1).line);
    CheckpointStore copy = store;
    copy.push_back(numbered(5000));
    CHECK(store.size() == count);
    CHECK(copy.size() == count + 1);
    CHECK(copy[1500].state_file == numbered(1500).state_file);
    std::uint64_t visited = 0;
    for (const auto& checkpoint : store) {
        visited += checkpoint.line == numbered(visited).line ? 1 : 0;
    }
    CHECK(visited == count);
}

TEST_CASE("CheckpointStore: a large state shared by many checkpoints is written once") {
    using conform::protocol::Checkpoint;
    using conform::protocol::CheckpointStore;
    // One stream's 256 KiB state, then STATEs that change only another stream's cursor.
    std::string large(256 * 1024, 'a');
    auto state_with = [&](int n) {
        return "[{\"a\":\"" + large + "\"},{\"b\":" + std::to_string(n) + "}]";
    };
    CheckpointStore store;
    for (int n = 0; n < 1000; ++n) {
        Checkpoint checkpoint;
        checkpoint.line = static_cast<std::uint64_t>(n) + 1;
        checkpoint.state_file = state_with(n);
        checkpoint.materialized = n % 2 == 0 ? state_with(n) : "{\"other\":" + state_with(n);
        store.push_back(checkpoint);
    }
    for (int n : {0, 1, 2, 511, 998, 999}) {
        auto checkpoint = store[static_cast<std::size_t>(n)];
        CHECK(checkpoint.state_file == state_with(n));
        CHECK(checkpoint.materialized ==
              (n % 2 == 0 ? state_with(n) : "{\"other\":" + state_with(n)));
    }
    CheckpointStore copy = store;
    CHECK(copy[999].state_file == state_with(999));
}

TEST_CASE("CheckpointStore: texts that change everywhere are written whole and read back") {
    using conform::protocol::Checkpoint;
    using conform::protocol::CheckpointStore;
    CheckpointStore store;
    std::vector<std::string> texts;
    for (int n = 0; n < 64; ++n) {
        // Shares a long prefix and suffix, with changes at a new place each time: more pieces
        // than a text may take.
        std::string text(20000, 'p');
        text[static_cast<std::size_t>(n) * 300 + 10] = static_cast<char>('A' + n % 26);
        text[19999 - static_cast<std::size_t>(n) * 200] = 'q';
        texts.push_back(text);
        Checkpoint checkpoint;
        checkpoint.state_file = text;
        checkpoint.materialized = n % 3 == 0 ? "" : text.substr(0, 5000);
        store.push_back(checkpoint);
    }
    for (std::size_t n = 0; n < texts.size(); ++n) {
        CHECK(store[n].state_file == texts[n]);
        CHECK(store[n].materialized == (n % 3 == 0 ? "" : texts[n].substr(0, 5000)));
    }
}

TEST_CASE("TranscriptFile: lines read back in order, long ones cut, through its descriptor") {
    conform::protocol::TranscriptFile transcript;
    transcript.append_line("first");
    transcript.append_line("");
    transcript.append_line(std::string(200000, 'x'));
    transcript.append_line("last");
    transcript.flush();
    std::vector<std::string> lines;
    transcript.for_each_line(
        [&](std::uint64_t number, std::string_view line) {
            CHECK(number == lines.size() + 1);
            lines.emplace_back(line);
            return true;
        },
        1000);
    REQUIRE(lines.size() == 4);
    CHECK(lines[0] == "first");
    CHECK(lines[1].empty());
    CHECK(lines[2] == std::string(1000, 'x'));
    CHECK(lines[3] == "last");
    std::size_t visited = 0;
    transcript.for_each_line(
        [&](std::uint64_t, std::string_view) {
            ++visited;
            return visited < 2;
        },
        1000);
    CHECK(visited == 2);
}

TEST_CASE("TranscriptFile: lines across read chunks and long lines inside one come back whole") {
    conform::protocol::TranscriptFile transcript;
    std::vector<std::string> written;
    for (int i = 0; i < 20000; ++i) {
        written.push_back(i % 1000 == 7 ? std::string(3000, 'y') : "line-" + std::to_string(i));
        transcript.append_line(written.back());
    }
    transcript.flush();
    std::vector<std::string> lines;
    transcript.for_each_line(
        [&](std::uint64_t, std::string_view line) {
            lines.emplace_back(line);
            return true;
        },
        1000);
    REQUIRE(lines.size() == written.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        CHECK(lines[i] == written[i].substr(0, 1000));
    }
}

namespace {

// The i-th of many distinct identities, spread over both halves as digests are.
Digest spread_identity(std::uint64_t i) {
    return Digest{(i + 3) * 0x9E3779B97F4A7C15ULL, (i + 3) * 0xC2B2AE3D27D4EB4FULL};
}

}  // namespace

TEST_CASE("SeenIdentities: an identity is new once, then seen; distinct ones are rarely seen") {
    conform::protocol::SeenIdentities seen;
    CHECK_FALSE(seen.add(Digest{1, 2}));
    CHECK(seen.add(Digest{1, 2}));
    std::size_t wrongly_seen = 0;
    for (std::uint64_t i = 0; i < 100000; ++i) {
        auto identity = spread_identity(i);
        wrongly_seen += seen.add(identity) ? 1 : 0;
        CHECK(seen.add(identity));
    }
    CHECK(wrongly_seen < 1000);  // two probes in 8 Mi bits: about 0.01% at 100,000
}

TEST_CASE("SeenIdentities: every identity added twice is among those it may have seen") {
    conform::protocol::SeenIdentities seen;
    const auto& identity = spread_identity;
    for (std::uint64_t i = 0; i < 100000; ++i) {
        seen.add(identity(i));
    }
    for (std::uint64_t i : {5, 77777, 5}) {
        seen.add(identity(i));
    }
    auto maybe = seen.maybe_repeated();
    REQUIRE(maybe.has_value());
    CHECK(std::is_sorted(maybe->begin(), maybe->end()));
    CHECK(std::adjacent_find(maybe->begin(), maybe->end()) == maybe->end());
    CHECK(std::binary_search(maybe->begin(), maybe->end(), identity(5)));
    CHECK(std::binary_search(maybe->begin(), maybe->end(), identity(77777)));
    CHECK(maybe->size() < 1000);

    conform::protocol::DeferredContents filtered({}, 100, maybe);
    CHECK(filtered.may_repeat(identity(5)));
    CHECK_FALSE(filtered.may_repeat(identity(100001)));
    conform::protocol::DeferredContents unknown({}, 100);
    CHECK(unknown.may_repeat(identity(100001)));

    // Many copies of few identities are remembered once each; too many distinct ones are not
    // remembered at all, so that nothing is left out.
    for (int copy = 0; copy < 100; ++copy) {
        for (std::uint64_t i = 0; i < 1000; ++i) {
            seen.add(identity(i));
        }
    }
    REQUIRE(seen.maybe_repeated().has_value());
    CHECK(seen.maybe_repeated()->size() >= 1000);
    CHECK(seen.maybe_repeated()->size() < 2000);
    for (std::uint64_t i = 0; i < 70000; ++i) {
        seen.add(identity(i));
    }
    CHECK_FALSE(seen.maybe_repeated().has_value());
}

TEST_CASE("for_each_line_of_file: a regular file is read, a FIFO or device never") {
    auto folder =
        std::filesystem::temp_directory_path() / ("conform-lines-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    auto count_lines = [](const std::filesystem::path& path) {
        std::size_t count = 0;
        conform::protocol::for_each_line_of_file(
            path,
            [&](std::uint64_t, std::string_view) {
                ++count;
                return true;
            },
            100);
        return count;
    };
    auto file = folder / "transcript.jsonl";
    std::ofstream(file) << "a\nb\nc";
    CHECK(count_lines(file) == 3);
    auto fifo = folder / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(count_lines(fifo) == 0);  // neither blocks nor reads
    CHECK(count_lines("/dev/zero") == 0);
    CHECK(count_lines(folder / "missing") == 0);
    std::filesystem::remove_all(folder);
}

TEST_CASE("SpillFile: it has no name in its folder") {
    auto folder = std::filesystem::temp_directory_path() /
                  ("conform-spill-names-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder);
    {
        SpillFile file(folder);
        file.append("kept");
        CHECK(std::filesystem::is_empty(folder));
        CHECK(file.read(0, 4) == "kept");
        CHECK(file.size() == 4);
    }
    std::filesystem::remove_all(folder);
}
