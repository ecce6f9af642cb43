// States packed as faros-airbyte-cdk packs them (protocol/packed_state.*). The packed texts below
// were made by Python's gzip and base64 modules, not by the code under test.
#include <doctest/doctest.h>

#include <rapidjson/document.h>
#include <zlib.h>

#include <string>

#include "json/parse.hpp"
#include "json/write.hpp"
#include "protocol/packed_state.hpp"

using conform::protocol::unpack_states;
using conform::protocol::unpacked_text;

namespace {

// {"Builds":{"cutoff":1700000000000},"__stream_freshness_state":{}}
constexpr const char* k_whole_state =
    "H4sIALwSF2sC/"
    "6tWcirNzEkpVrKqVkouLclPS1OyMjQ3QIBaHaX4+OKSotTE3Pi0otTijLzU4mKgQGJJKlBPbS0AUC4dKEEA"
    "AAA=";
constexpr const char* k_cutoff_42 =
    "H4sIALwSF2sC/6tWSi4tyU9LU7IyMaoFAGy7aykNAAAA";                             // {"cutoff":42}
constexpr const char* k_not_json = "H4sIALwSF2sC/8vLL1HIKs7PAwBmy4zGCAAAAA==";  // not json
constexpr const char* k_not_gzip = "cGxhaW4gYnl0ZXM=";                          // plain bytes

std::string packed(const std::string& data) {
    return R"({"format":"base64/gzip","data":")" + data + R"("})";
}

std::string unpacked(const std::string& text, std::size_t* replaced = nullptr,
                     std::size_t limit = conform::protocol::k_max_unpacked_state) {
    auto document = conform::json::parse_json_text(text, "test");
    auto count = unpack_states(document, document.GetAllocator(), limit);
    if (replaced != nullptr) {
        *replaced = count;
    }
    return conform::json::to_json(document);
}

std::string base64(const std::string& bytes) {
    static constexpr char k_alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    std::size_t at = 0;
    for (; at + 2 < bytes.size(); at += 3) {
        auto bits = (static_cast<unsigned char>(bytes[at]) << 16) |
                    (static_cast<unsigned char>(bytes[at + 1]) << 8) |
                    static_cast<unsigned char>(bytes[at + 2]);
        for (int shift : {18, 12, 6, 0}) {
            out += k_alphabet[(bits >> shift) & 63];
        }
    }
    if (at < bytes.size()) {
        auto bits = static_cast<unsigned char>(bytes[at]) << 16;
        if (at + 1 < bytes.size()) {
            bits |= static_cast<unsigned char>(bytes[at + 1]) << 8;
        }
        out += k_alphabet[(bits >> 18) & 63];
        out += k_alphabet[(bits >> 12) & 63];
        out += at + 1 < bytes.size() ? k_alphabet[(bits >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

// `text` gzipped by zlib, for sizes no literal should hold.
std::string gzipped(const std::string& text) {
    z_stream stream{};
    REQUIRE(deflateInit2(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 9,
                         Z_DEFAULT_STRATEGY) == Z_OK);
    std::string out(deflateBound(&stream, text.size()), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
    stream.avail_in = static_cast<uInt>(text.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    REQUIRE(deflate(&stream, Z_FINISH) == Z_STREAM_END);
    out.resize(stream.total_out);
    deflateEnd(&stream);
    return out;
}

}  // namespace

TEST_CASE("packed state: the faros CDK's LEGACY state unpacks to the state it packed") {
    std::size_t replaced = 0;
    CHECK(unpacked(packed(k_whole_state), &replaced) ==
          R"({"Builds":{"cutoff":1700000000000},"__stream_freshness_state":{}})");
    CHECK(replaced == 1);
    auto document = conform::json::parse_json_text(packed(k_cutoff_42), "test");
    CHECK(unpacked_text(document) == std::optional<std::string>(R"({"cutoff":42})"));
}

TEST_CASE("packed state: each stream_state of an array state unpacks, the rest stays") {
    std::size_t replaced = 0;
    auto state =
        R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"builds"},"stream_state":)" +
        packed(k_cutoff_42) +
        R"(}},{"type":"STREAM","stream":{"stream_descriptor":{"name":"pipelines"},"stream_state":{"format":"base64/gzip"}}}])";
    CHECK(
        unpacked(state, &replaced) ==
        R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"builds"},"stream_state":{"cutoff":42}}},{"type":"STREAM","stream":{"stream_descriptor":{"name":"pipelines"},"stream_state":{"format":"base64/gzip"}}}])");
    CHECK(replaced == 1);
}

TEST_CASE("packed state: anything else is left as it is") {
    for (const std::string& text :
         {std::string(R"({"format":"base64/gzip","data":"H4sI","extra":1})"),
          std::string(R"({"format":"gzip","data":")") + k_cutoff_42 + "\"}", packed(k_not_json),
          packed(k_not_gzip), packed("not base64!"),
          // cut short: the gzip member's end is missing
          packed(std::string(k_cutoff_42).substr(0, 24)), std::string(R"({"cutoff":42})")}) {
        CAPTURE(text);
        std::size_t replaced = 7;
        CHECK(unpacked(text, &replaced) ==
              conform::json::to_json(conform::json::parse_json_text(text, "test")));
        CHECK(replaced == 0);
    }
}

TEST_CASE("packed state: what all packed states unpack to is bounded") {
    // A gzip bomb: 8 MiB of spaces around a number, a few KiB packed.
    auto bomb = packed(base64(gzipped(std::string(8 << 20, ' ') + "1")));
    CHECK(bomb.size() < 64 * 1024);
    std::size_t replaced = 7;
    CHECK(unpacked(bomb, &replaced, 1 << 20) == bomb);
    CHECK(replaced == 0);
    CHECK(unpacked(bomb, &replaced, 16 << 20) == "1");
    CHECK(replaced == 1);

    // Two states of 13 bytes each under a limit of 20: the first unpacks, the second stays.
    auto two = "[" + packed(k_cutoff_42) + "," + packed(k_cutoff_42) + "]";
    CHECK(unpacked(two, &replaced, 20) == R"([{"cutoff":42},)" + packed(k_cutoff_42) + "]");
    CHECK(replaced == 1);
}
