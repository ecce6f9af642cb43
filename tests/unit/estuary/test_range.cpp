#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <string>

#include "estuary/range.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::estuary;

namespace {

KeyRange parse(std::string_view text) {
    return parse_key_range(json::parse_json_text(text, "range"));
}

std::string parse_error(std::string_view text) {
    try {
        parse(text);
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    FAIL("no error for " << text);
    return {};
}

KeyRange range(std::uint32_t begin, std::uint32_t end) {
    return KeyRange{begin, end};
}

// True when `parts` (in any order) are valid, contiguous, non-overlapping and cover exactly
// `whole`.
bool covers_exactly(std::vector<KeyRange> parts, const KeyRange& whole) {
    if (parts.empty()) {
        return false;
    }
    std::sort(parts.begin(), parts.end());
    std::uint64_t next = whole.begin;
    for (const KeyRange& part : parts) {
        if (part.begin > part.end || part.begin != next) {
            return false;
        }
        next = std::uint64_t{part.end} + 1;
    }
    return parts.back().end == whole.end;
}

}  // namespace

TEST_CASE("range: parse") {
    CHECK(parse(R"({"begin":"00000000","end":"ffffffff"})") == KeyRange::full());
    CHECK(parse(R"({"begin":"00003039","end":"000a5bfe"})") == range(12345, 678910));
    CHECK(parse(R"({"begin":"ABCDEF01","end":"FFFFFFFF"})") == range(0xabcdef01, 0xffffffff));
    CHECK(parse(R"({"begin":"7fffffff","end":"7fffffff"})") == range(0x7fffffff, 0x7fffffff));
}

TEST_CASE("range: parse errors say which rule broke") {
    CHECK(parse_error(R"({"begin":"0000000","end":"ffffffff"})")
              .find("\"begin\" must be exactly 8 hex digits, \"0000000\" has 7 characters") !=
          std::string::npos);
    CHECK(parse_error(R"({"begin":"00000000","end":"1ffffffff"})").find("has 9 characters") !=
          std::string::npos);
    CHECK(parse_error(R"({"begin":"0000000g","end":"ffffffff"})").find("has 'g' at position 8") !=
          std::string::npos);
    CHECK(parse_error(R"({"begin":"80000000","end":"7fffffff"})")
              .find("begin 80000000 is greater than end 7fffffff") != std::string::npos);
    CHECK(parse_error(R"({"begin":"00000000"})").find("\"end\" is missing") != std::string::npos);
    CHECK(parse_error(R"({"begin":0,"end":"ffffffff"})").find("must be a string") !=
          std::string::npos);
    CHECK(parse_error(R"({"begin":"00000000","end":"ffffffff","ned":"x"})")
              .find("unknown member \"ned\"") != std::string::npos);
    CHECK(parse_error(R"("00000000-ffffffff")").find("must be an object") != std::string::npos);
    CHECK(parse_error(R"({"begin":"-0000001","end":"ffffffff"})").find("'-'") != std::string::npos);
}

TEST_CASE("range: text forms") {
    KeyRange half = range(0, 0x7fffffff);
    CHECK(half.to_string() == "00000000-7fffffff");
    CHECK(half.to_json() == R"({"begin":"00000000","end":"7fffffff"})");
    CHECK(range(0xABCDEF01, 0xFFFFFFFF).to_json() == R"({"begin":"abcdef01","end":"ffffffff"})");
    auto document = json::parse_json_text(half.to_json(), "range");
    CHECK(parse_key_range(document) == half);
}

TEST_CASE("range: includes and size") {
    KeyRange r = range(0x10, 0x20);
    CHECK(r.includes(0x10));
    CHECK(r.includes(0x20));
    CHECK_FALSE(r.includes(0x0f));
    CHECK_FALSE(r.includes(0x21));
    CHECK(r.key_count() == 17);
    CHECK(KeyRange::full().key_count() == (std::uint64_t{1} << 32));
    CHECK(KeyRange::full().is_full());
    CHECK_FALSE(r.is_full());
}

TEST_CASE("range: split_halves") {
    auto [left, right] = range(0x10000000, 0x4fffffff).split_halves();
    CHECK(left.to_string() == "10000000-2fffffff");
    CHECK(right.to_string() == "30000000-4fffffff");

    auto [low, high] = KeyRange::full().split_halves();
    CHECK(low.to_string() == "00000000-7fffffff");
    CHECK(high.to_string() == "80000000-ffffffff");

    auto [a, b] = range(5, 6).split_halves();
    CHECK(a == range(5, 5));
    CHECK(b == range(6, 6));
    auto [c, d] = range(5, 7).split_halves();
    CHECK(c == range(5, 5));
    CHECK(d == range(6, 7));
    CHECK(covers_exactly({c, d}, range(5, 7)));

    CHECK_THROWS_WITH_AS(range(9, 9).split_halves(), doctest::Contains("single key"), Error);
    CHECK_THROWS_AS(range(0xffffffff, 0xffffffff).split_halves(), Error);
}

TEST_CASE("range: split_equal covers exactly") {
    for (std::uint32_t parts : {1u, 2u, 3u, 4u, 7u}) {
        CAPTURE(parts);
        auto pieces = KeyRange::full().split_equal(parts);
        CHECK(pieces.size() == parts);
        CHECK(covers_exactly(pieces, KeyRange::full()));
        for (const KeyRange& piece : pieces) {
            auto expected = static_cast<double>(KeyRange::full().key_count()) / parts;
            CHECK(static_cast<double>(piece.key_count()) >= expected - 1);
            CHECK(static_cast<double>(piece.key_count()) <= expected + 1);
        }
    }
    auto quarters = KeyRange::full().split_equal(4);
    CHECK(quarters[1].to_string() == "40000000-7fffffff");
    auto thirds = KeyRange::full().split_equal(3);
    CHECK(thirds[0].to_string() == "00000000-55555554");
    CHECK(thirds[1].to_string() == "55555555-aaaaaaa9");
    CHECK(thirds[2].to_string() == "aaaaaaaa-ffffffff");
    auto small = range(10, 16).split_equal(7);
    CHECK(covers_exactly(small, range(10, 16)));
    for (const KeyRange& piece : small) {
        CHECK(piece.key_count() == 1);
    }
    CHECK(covers_exactly(range(100, 1000).split_equal(7), range(100, 1000)));
    CHECK_THROWS_AS(range(10, 16).split_equal(8), Error);
    CHECK_THROWS_AS(KeyRange::full().split_equal(0), Error);
}

TEST_CASE("range: split_at uneven cuts") {
    auto pieces = KeyRange::full().split_at({0x00000001, 0x10000000, 0xffffffff});
    REQUIRE(pieces.size() == 4);
    CHECK(pieces[0].to_string() == "00000000-00000000");
    CHECK(pieces[1].to_string() == "00000001-0fffffff");
    CHECK(pieces[2].to_string() == "10000000-fffffffe");
    CHECK(pieces[3].to_string() == "ffffffff-ffffffff");
    CHECK(covers_exactly(pieces, KeyRange::full()));
    CHECK(KeyRange::full().split_at({}) == std::vector<KeyRange>{KeyRange::full()});
    CHECK_THROWS_AS(KeyRange::full().split_at({0}), Error);
    CHECK_THROWS_AS(KeyRange::full().split_at({5, 5}), Error);
    CHECK_THROWS_AS(KeyRange::full().split_at({9, 5}), Error);
    CHECK_THROWS_AS(range(0, 10).split_at({11}), Error);
}

TEST_CASE("range: covers_exactly detects gaps, overlaps and bad parts") {
    KeyRange whole = range(0, 99);
    CHECK(covers_exactly({range(50, 99), range(0, 49)}, whole));
    CHECK_FALSE(covers_exactly({}, whole));
    CHECK_FALSE(covers_exactly({range(0, 48), range(50, 99)}, whole));
    CHECK_FALSE(covers_exactly({range(0, 50), range(50, 99)}, whole));
    CHECK_FALSE(covers_exactly({range(0, 49), range(50, 98)}, whole));
    CHECK_FALSE(covers_exactly({range(1, 49), range(50, 99)}, whole));
    CHECK_FALSE(covers_exactly({range(0, 99), range(0, 99)}, whole));
    CHECK_FALSE(covers_exactly({range(0, 49), range(60, 50), range(50, 99)}, whole));
    CHECK(covers_exactly({KeyRange::full()}, KeyRange::full()));
}
