#include <doctest/doctest.h>
#include <fmt/format.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "protocol/schemas.hpp"
#include "schema/schema.hpp"

using namespace conform::protocol;

namespace {

struct Verdicts {
    bool plain = false;
    bool schema = false;
};

Verdicts verdicts_of(const std::string& text) {
    rapidjson::Document message;
    message.Parse(text.c_str());
    REQUIRE_FALSE(message.HasParseError());
    return {is_plain_valid_record(message), airbyte_message_schema().validate(message)};
}

// Every member of a plain RECORD, in turn replaced by each of these values, dropped, doubled,
// and joined by another member.
const std::vector<std::string> k_values{
    "null",  "true",       "0",  "-3",        "1.0", "1.5", "18446744073709551615",
    "\"s\"", "\"RECORD\"", "{}", "{\"a\":1}", "[]",  "[1]"};

std::string record_with(const std::string& members) {
    return "{\"type\":\"RECORD\",\"record\":{" + members + "}}";
}

std::vector<std::string> record_variants() {
    const std::vector<std::pair<std::string, std::string>> plain{
        {"stream", "\"users\""}, {"data", "{\"id\":1}"}, {"emitted_at", "1700000000000"}};
    std::vector<std::string> variants;
    auto members_of = [&](std::size_t changed, const std::string& value, bool drop) {
        std::string members;
        for (std::size_t i = 0; i < plain.size(); ++i) {
            if (i == changed && drop) {
                continue;
            }
            if (!members.empty()) {
                members += ",";
            }
            members += "\"" + plain[i].first + "\":" + (i == changed ? value : plain[i].second);
        }
        return members;
    };
    for (std::size_t i = 0; i < plain.size(); ++i) {
        variants.push_back(record_with(members_of(i, "", true)));
        variants.push_back(record_with(fmt::format(
            "{},\"{}\":{}", members_of(plain.size(), "", false), plain[i].first, plain[i].second)));
        for (const auto& value : k_values) {
            variants.push_back(record_with(members_of(i, value, false)));
        }
    }
    for (const std::string name : {"namespace", "meta", "file_reference", "other"}) {
        for (const auto& value : k_values) {
            variants.push_back(record_with(
                fmt::format("{},\"{}\":{}", members_of(plain.size(), "", false), name, value)));
        }
    }
    for (const auto& value : k_values) {
        auto members = members_of(plain.size(), "", false);
        variants.push_back(fmt::format(R"({{"type":{},"record":{{{}}}}})", value, members));
        variants.push_back(fmt::format(R"({{"type":"RECORD","record":{}}})", value));
        variants.push_back(
            fmt::format(R"({{"type":"RECORD","record":{{{}}},"log":{}}})", members, value));
        variants.push_back(
            fmt::format(R"({{"type":"RECORD","record":{{{}}},"type":{}}})", members, value));
    }
    variants.emplace_back(R"({"record":{"stream":"s","data":{},"emitted_at":1},"type":"RECORD"})");
    variants.emplace_back(R"({"type":"RECORD"})");
    variants.emplace_back(R"({"type":"STATE","state":{"data":{}}})");
    variants.emplace_back("[]");
    return variants;
}

}  // namespace

TEST_CASE("is_plain_valid_record: what it accepts, the AirbyteMessage schema accepts") {
    std::size_t accepted = 0;
    std::size_t left_to_the_schema = 0;
    for (const auto& text : record_variants()) {
        CAPTURE(text);
        auto verdict = verdicts_of(text);
        if (verdict.plain) {
            ++accepted;
            CHECK(verdict.schema);
        } else if (verdict.schema) {
            ++left_to_the_schema;
        }
    }
    // Both sides are exercised: records the shortcut takes, and valid ones it leaves alone.
    CHECK(accepted >= 10);
    CHECK(left_to_the_schema > 20);
}

TEST_CASE("is_plain_valid_record: the common shapes are taken, anything else is left alone") {
    CHECK(
        verdicts_of(R"({"type":"RECORD","record":{"stream":"s","data":{"a":[1]},"emitted_at":1}})")
            .plain);
    CHECK(
        verdicts_of(
            R"({"record":{"namespace":null,"emitted_at":0,"data":{},"stream":"s"},"type":"RECORD"})")
            .plain);
    CHECK(
        verdicts_of(
            R"({"type":"RECORD","record":{"stream":"s","data":{},"emitted_at":1,"namespace":"n"}})")
            .plain);
    // Valid, but for the schema to say: a float that is an integer, a member the shortcut does
    // not know, a second member of the same name.
    for (const auto* text :
         {R"({"type":"RECORD","record":{"stream":"s","data":{},"emitted_at":1.0}})",
          R"({"type":"RECORD","record":{"stream":"s","data":{},"emitted_at":1,"meta":null}})",
          R"({"type":"RECORD","record":{"stream":"s","data":{},"emitted_at":1,"stream":"t"}})",
          R"({"type":"RECORD","record":{"stream":"s","data":{},"emitted_at":1},"trace":null})"}) {
        CAPTURE(text);
        CHECK_FALSE(verdicts_of(text).plain);
    }
    CHECK_FALSE(
        verdicts_of(R"({"type":"RECORD","record":{"stream":"s","data":{},"emitted_at":"1"}})")
            .plain);
    CHECK_FALSE(
        verdicts_of(R"({"type":"RECORD","record":{"stream":1,"data":{},"emitted_at":1}})").plain);
}
