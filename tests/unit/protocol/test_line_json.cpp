#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "protocol/line_json.hpp"

using namespace conform::protocol;

namespace {

// RapidJSON's own verdict on `bytes` as the content of a JSON string.
bool rapidjson_accepts_utf8(const std::string& bytes) {
    std::string text = "[\"" + bytes + "\"]";
    rapidjson::Document document;
    document.Parse<k_line_parse_flags>(text.data(), text.size());
    return !document.HasParseError();
}

// Bytes that are not JSON syntax inside a string (no control character, quote or backslash).
std::vector<unsigned char> string_bytes() {
    std::vector<unsigned char> bytes;
    for (int byte = 0x20; byte <= 0xFF; ++byte) {
        if (byte != '"' && byte != '\\') {
            bytes.push_back(static_cast<unsigned char>(byte));
        }
    }
    return bytes;
}

struct Parsed {
    bool failed = false;
    rapidjson::ParseErrorCode code = rapidjson::kParseErrorNone;
    std::size_t offset = 0;
};

Parsed parsed_with(std::string line, bool fast) {
    rapidjson::Document document;
    if (fast) {
        std::string copy = line;
        auto parse = parse_untrusted_line(document, line, copy.data());
        return {parse.failed(), parse.code, parse.offset};
    }
    document.ParseInsitu<k_line_parse_flags>(line.data());
    return {document.HasParseError(), document.GetParseError(), document.GetErrorOffset()};
}

// parse_untrusted_line gives each line the verdict, code and offset of RapidJSON's iterative
// parser with its own UTF-8 check.
void check_same_as_parser(const std::vector<std::string>& lines) {
    for (const auto& line : lines) {
        CAPTURE(line.substr(0, 80));
        Parsed fast = parsed_with(line, true);
        Parsed checked = parsed_with(line, false);
        CHECK(fast.failed == checked.failed);
        CHECK(fast.code == checked.code);
        CHECK(fast.offset == checked.offset);
    }
}

}  // namespace

TEST_CASE("is_utf8: agrees with RapidJSON's validation on every lead and second byte") {
    // The third byte at the edges of every continuation range; the fourth in, at and out of one.
    const std::array<unsigned char, 11> thirds{0x20, 0x7F, 0x80, 0x8F, 0x90, 0x9F,
                                               0xA0, 0xBF, 0xC0, 0xF4, 0xFF};
    const std::array<unsigned char, 4> fourths{0x20, 0x80, 0xBF, 0xC0};
    std::size_t disagreements = 0;
    for (int lead = 0x80; lead <= 0xFF; ++lead) {
        for (unsigned char second : string_bytes()) {
            for (unsigned char third : thirds) {
                for (unsigned char fourth : fourths) {
                    std::string bytes{static_cast<char>(lead), static_cast<char>(second),
                                      static_cast<char>(third), static_cast<char>(fourth)};
                    disagreements += is_utf8(bytes) != rapidjson_accepts_utf8(bytes) ? 1 : 0;
                }
            }
        }
    }
    CHECK(disagreements == 0);
}

TEST_CASE("is_utf8: ASCII words, sequences cut at the end, and the edges of the ranges") {
    CHECK(is_utf8(""));
    CHECK(is_utf8("{\"type\":\"RECORD\",\"record\":{\"stream\":\"users\"}}"));
    CHECK(is_utf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xF4\x8F\xBF\xBF"));
    CHECK_FALSE(is_utf8("0123456789abcde\xC3"));       // cut after the lead byte
    CHECK_FALSE(is_utf8("0123456789ab\xF0\x9F\x98"));  // cut inside a 4-byte sequence
    CHECK_FALSE(is_utf8("\xC0\xAF"));                  // overlong '/'
    CHECK_FALSE(is_utf8("\xED\xA0\x80"));              // a UTF-16 surrogate
    CHECK_FALSE(is_utf8("\xF4\x90\x80\x80"));          // above U+10FFFF
    CHECK_FALSE(is_utf8("01234567\x80"));              // a lone continuation after a word
}

TEST_CASE("parse_untrusted_line: the same result and offset as the parser's own UTF-8 check") {
    const std::vector<std::string> lines{
        R"({"type":"RECORD","record":{"stream":"s","data":{"a":"caf\u00e9"}}})",
        "{\"type\":\"LOG\",\"log\":{\"message\":\"caf\xC3\xA9\"}}",
        "{\"type\":\"LOG\",\"log\":{\"message\":\"bad \xFF byte\"}}",
        "{\"type\":\"LOG\"}\xFF",
        "{\"a\":1,\"a\xC3\":2}",
        "[1,2",
        "{\"n\":1e999}",
        R"({"s":"\ud800"})",
    };
    check_same_as_parser(lines);
}

TEST_CASE("parse_untrusted_line: lines past the recursive parser's depth parse as before") {
    std::vector<std::string> lines;
    for (std::size_t depth : {1U, 63U, 64U, 65U, 66U, 200U, 10'000U}) {
        std::string nested =
            std::string(depth - 1, '[') + R"({"a":1})" + std::string(depth - 1, ']');
        lines.push_back(nested);
        lines.push_back(nested.substr(0, nested.size() - 1));  // cut: a syntax error at the end
        lines.push_back(std::string(depth, '[') + "1,]" + std::string(depth - 1, ']'));
    }
    check_same_as_parser(lines);
}

TEST_CASE("parse_untrusted_line: the document of a deep line is whole") {
    std::string line = std::string(99, '[') + R"({"a":"x"})" + std::string(99, ']');
    std::string copy = line;
    rapidjson::Document document;
    auto parse = parse_untrusted_line(document, line, copy.data());
    REQUIRE(!parse.failed());
    const rapidjson::Value* value = &document;
    for (int i = 0; i < 99; ++i) {
        REQUIRE(value->IsArray());
        value = &(*value)[0];
    }
    CHECK(std::string((*value)["a"].GetString()) == "x");
}

TEST_CASE("find_duplicate_key: a subtree the caller checked is not searched again") {
    rapidjson::Document document;
    document.Parse(R"({"data":{"x":1,"x":2},"meta":[{"y":1}]})");
    CHECK(find_duplicate_key(document) == "x");
    CHECK(find_duplicate_key(document, &document["data"]) == std::nullopt);
    document.Parse(R"({"data":{"x":1},"meta":[{"y":1,"y":2}]})");
    CHECK(find_duplicate_key(document, &document["data"]) == "y");
}

namespace {

std::string object_of(const std::vector<std::string>& names) {
    std::string text = "{";
    for (const auto& name : names) {
        text += (text.size() > 1 ? ",\"" : "\"") + name + "\":0";
    }
    return text + "}";
}

}  // namespace

// Small objects are searched by hash, large ones by sorting: every size and position is found,
// and names whose packed words agree (same length, first and last 8 bytes) are told apart.
TEST_CASE("find_duplicate_key: any pair of equal names in objects of any size") {
    for (std::size_t size : {2, 3, 8, 31, 32, 33, 64, 100}) {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < size; ++i) {
            names.push_back("field_" + std::to_string(i));
        }
        rapidjson::Document document;
        document.Parse(object_of(names).c_str());
        CAPTURE(size);
        CHECK(find_duplicate_key(document) == std::nullopt);
        for (std::size_t first = 0; first < size; first += std::max<std::size_t>(1, size / 7)) {
            auto copy = names;
            copy[size - 1 - (first == size - 1 ? 1 : 0)] = names[first];
            document.Parse(object_of(copy).c_str());
            CAPTURE(first);
            CHECK(find_duplicate_key(document) == names[first]);
        }
    }
    rapidjson::Document alike;
    alike.Parse(object_of({"abcdefghXstuvwxyz", "abcdefghYstuvwxyz", "abcdefghZstuvwxyz"}).c_str());
    CHECK(find_duplicate_key(alike) == std::nullopt);
    alike.Parse(object_of({"abcdefghXstuvwxyz", "abcdefghYstuvwxyz", "abcdefghXstuvwxyz"}).c_str());
    CHECK(find_duplicate_key(alike) == "abcdefghXstuvwxyz");
}
