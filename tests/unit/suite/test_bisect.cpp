#include <doctest/doctest.h>

#include "suite/bisect.hpp"

using namespace conform;
using namespace conform::suite;

namespace {

protocol::RecordEntry record_with(std::uint64_t id) {
    protocol::RecordEntry entry;
    entry.identity = json::Digest{0, id};
    return entry;
}

// A connector whose records 1..3 live at keys 0x00000010, 0x80000000 and 0xffffffff, and whose
// range end is inclusive or not.
protocol::Observation read_of(const estuary::KeyRange& range, bool end_inclusive) {
    const std::pair<std::uint64_t, std::uint32_t> records[] = {
        {1, 0x10}, {2, 0x80000000}, {3, 0xffffffff}};
    protocol::Observation run;
    run.process.exit.code = 0;
    for (const auto& [id, key] : records) {
        if (key >= range.begin && (key < range.end || (end_inclusive && key == range.end))) {
            run.records.push_back(record_with(id));
        }
    }
    return run;
}

}  // namespace

TEST_CASE("isolate_key: bisection finds each record's key in 32 reads") {
    for (const auto& [id, key] :
         {std::pair<std::uint64_t, std::uint32_t>{1, 0x10}, {2, 0x80000000}, {3, 0xffffffff}}) {
        CAPTURE(id);
        auto found = isolate_key(
            record_with(id), [](const estuary::KeyRange& range) { return read_of(range, true); });
        REQUIRE(found.key);
        CHECK(*found.key == key);
        CHECK(found.reads == 32);
    }
}

TEST_CASE("isolate_key: a failing read stops the narrowing and says so") {
    auto found = isolate_key(record_with(1), [](const estuary::KeyRange&) {
        protocol::Observation run;
        run.process.exit.code = 2;
        return run;
    });
    CHECK_FALSE(found.key);
    CHECK(found.reads == 1);
    CHECK(found.why_not.find("failed") != std::string::npos);
}

TEST_CASE("ranges_around: boundaries on both sides of the key, none empty") {
    auto middle = ranges_around(0x80000000);
    REQUIRE(middle.size() == 3);
    CHECK(middle[0] == estuary::KeyRange{0, 0x7fffffff});
    CHECK(middle[1] == estuary::KeyRange{0x80000000, 0x80000000});
    CHECK(middle[2] == estuary::KeyRange{0x80000001, 0xffffffff});
    CHECK(ranges_around(0).size() == 2);
    CHECK(ranges_around(0xffffffff).size() == 2);
}
