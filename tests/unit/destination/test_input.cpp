// What conform writes on a destination's stdin: generated records valid for their schemas, STATEs
// that count what came before them, resumed inputs, bad records and recorded reads.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <set>
#include <string>

#include "destination/catalog.hpp"
#include "destination/input.hpp"
#include "fake_destination.hpp"
#include "json/parse.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::destination;

namespace {

Catalog fake_catalog() {
    auto config = testing::fake_destination_config();
    return Catalog(config.catalog_text, "fake catalog");
}

InputSettings settings() {
    InputSettings input;
    input.records_per_stream = 20;
    input.state_every = 5;
    return input;
}

}  // namespace

TEST_CASE("destination input: generated records match their schemas and keys repeat as planned") {
    auto catalog = fake_catalog();
    auto first = sync_input(catalog, settings(), 1);
    auto second = sync_input(catalog, settings(), 2);
    CHECK(first.count(InputMessage::Kind::record) == 60);
    CHECK(first.count(InputMessage::Kind::state) == 12);
    CHECK(first.count(InputMessage::Kind::trace) == 6);  // STARTED and COMPLETE per stream
    for (const auto& message : first.messages) {
        if (message.kind != InputMessage::Kind::record) {
            continue;
        }
        auto document = json::parse_json_text(message.line, "record");
        const auto& stream = catalog.streams()[*message.stream];
        CHECK(stream.airbyte.schema->validate(document["record"]["data"], nullptr, 1));
        CHECK(document["record"]["emitted_at"].IsInt64());
    }
    std::set<json::Digest> first_keys;
    std::size_t repeated = 0;
    for (const auto& message : first.messages) {
        if (message.stream == 0 && message.kind == InputMessage::Kind::record) {
            first_keys.insert(*message.key);
        }
    }
    std::set<json::Digest> second_keys;
    for (const auto& message : second.messages) {
        if (message.stream == 0 && message.kind == InputMessage::Kind::record) {
            repeated += first_keys.contains(*message.key) || second_keys.contains(*message.key);
            second_keys.insert(*message.key);
        }
    }
    CHECK(first_keys.size() == 20);
    CHECK(repeated > 4);  // keys updated from sync 1 and within sync 2
}

TEST_CASE("destination input: each STATE counts the records of its stream since the one before") {
    auto input = sync_input(fake_catalog(), settings(), 1);
    std::size_t states = 0;
    for (const auto& message : input.messages) {
        if (message.kind == InputMessage::Kind::state) {
            CHECK(message.records_since == 5);
            CHECK(message.state_number == ++states);
            CHECK(message.line.find(R"("recordCount":5.0)") != std::string::npos);
            CHECK_FALSE(message.all_streams);
        }
    }
    auto global = settings();
    global.state_type = "GLOBAL";
    auto all = sync_input(fake_catalog(), global, 1);
    for (const auto& message : all.messages) {
        if (message.kind == InputMessage::Kind::state) {
            CHECK(message.all_streams);
            CHECK(message.records_since == 15);
        }
    }
    CHECK_FALSE(all.per_stream_states);
}

TEST_CASE("destination input: a resumed input sends each stream from after its echoed STATE") {
    auto input = sync_input(fake_catalog(), settings(), 2);
    std::optional<std::size_t> users_state;
    for (std::size_t i = 0; i < input.messages.size(); ++i) {
        if (input.messages[i].kind == InputMessage::Kind::state && input.messages[i].stream == 0) {
            users_state = i;
            break;
        }
    }
    REQUIRE(users_state);
    auto resumed = resumed_input(input, {users_state, std::nullopt, std::nullopt}, std::nullopt);
    CHECK(resumed.count(InputMessage::Kind::record) == 55);
    CHECK(resumed.messages.front().number == 1);
}

TEST_CASE("destination input: bad records are marked, and the rest of their write is valid") {
    auto catalog = fake_catalog();
    auto unknown = unknown_stream_input(catalog, settings());
    REQUIRE(unknown);
    CHECK(std::count_if(unknown->messages.begin(), unknown->messages.end(),
                        [](const auto& message) { return message.unconfigured; }) == 1);
    auto broken = schema_violation_input(catalog, settings());
    REQUIRE(broken);
    for (const auto& message : broken->messages) {
        if (message.breaks_schema) {
            auto document = json::parse_json_text(message.line, "record");
            CHECK_FALSE(catalog.streams()[0].airbyte.schema->validate(document["record"]["data"],
                                                                      nullptr, 1));
        }
    }
}

TEST_CASE(
    "destination input: a recorded read is sent as it is, and a stream outside the catalog "
    "is refused") {
    auto catalog = fake_catalog();
    InputSettings recorded = settings();
    recorded.recorded_text =
        R"({"type":"RECORD","record":{"stream":"events","data":{"kind":"click"},"emitted_at":1}})"
        "\n"
        R"({"type":"LOG","log":{"level":"INFO","message":"skipped"}})"
        "\n"
        R"({"type":"STATE","state":{"data":{"cursor":1}}})"
        "\n";
    recorded.recorded_origin = "read.jsonl";
    auto input = sync_input(catalog, recorded, 1);
    REQUIRE(input.messages.size() == 2);
    CHECK(input.messages[1].all_streams);
    CHECK(input.messages[1].records_since == 1);
    recorded.recorded_text =
        R"({"type":"RECORD","record":{"stream":"nope","data":{},"emitted_at":1}})"
        "\n";
    CHECK_THROWS_WITH_AS(sync_input(catalog, recorded, 1),
                         doctest::Contains("read.jsonl:1: stream 'nope' is not in the catalog"),
                         Error);
}

TEST_CASE(
    "destination catalog: sync modes conform does not judge, and dedup without a key, are "
    "refused") {
    CHECK_THROWS_WITH_AS(Catalog(R"({"streams": [{"stream": {"name": "a", "json_schema": {}},
        "destination_sync_mode": "soft_delete"}]})",
                                 "c.json"),
                         doctest::Contains("'soft_delete'"), Error);
    CHECK_THROWS_WITH_AS(Catalog(R"({"streams": [{"stream": {"name": "a", "json_schema": {}},
        "destination_sync_mode": "append_dedup"}]})",
                                 "c.json"),
                         doctest::Contains("without a primary key"), Error);
    auto catalog = fake_catalog();
    auto text = catalog.for_sync(3);
    auto document = json::parse_json_text(text, "catalog");
    CHECK(document["streams"][0]["generation_id"].GetInt() == 3);
    CHECK(document["streams"][0]["minimum_generation_id"].GetInt() == 0);
    CHECK(document["streams"][2]["minimum_generation_id"].GetInt() == 3);
    CHECK(document["streams"][2]["sync_id"].GetInt() == 3);
}

TEST_CASE(
    "destination input: times and date-times carry an offset unless their airbyte_type has no "
    "time zone") {
    Catalog catalog(R"({"streams": [{"stream": {"name": "t", "json_schema": {"type": "object",
        "properties": {
          "at": {"type": "string", "format": "time"},
          "local_at": {"type": "string", "format": "time", "airbyte_type": "time_without_timezone"},
          "ts": {"type": "string", "format": "date-time"},
          "local_ts": {"type": "string", "format": "date-time",
                       "airbyte_type": "timestamp_without_timezone"}}}}}]})",
                    "c.json");
    auto input = sync_input(catalog, settings(), 1);
    REQUIRE(input.count(InputMessage::Kind::record) == 20);
    for (const auto& message : input.messages) {
        if (message.kind != InputMessage::Kind::record) {
            continue;
        }
        auto document = json::parse_json_text(message.line, "record");
        const auto& data = document["record"]["data"];
        CHECK(std::string(data["at"].GetString()).ends_with("Z"));
        CHECK(std::string(data["local_at"].GetString()).size() == 8);
        CHECK(std::string(data["ts"].GetString()).ends_with("Z"));
        CHECK(std::string(data["local_ts"].GetString()).size() == 19);
    }
}

TEST_CASE("destination input: a recorded message without its object is refused or sent as it is") {
    auto catalog = fake_catalog();
    InputSettings recorded = settings();
    recorded.recorded_origin = "read.jsonl";
    for (const char* line : {R"({"type":"RECORD","record":"a string where the record goes"})",
                             R"({"type":"RECORD"})", R"({"type":"RECORD","record":{"data":{}}})"}) {
        CAPTURE(line);
        recorded.recorded_text = std::string(line) + "\n";
        CHECK_THROWS_WITH_AS(sync_input(catalog, recorded, 1),
                             doctest::Contains("read.jsonl:1: a RECORD without stream or data"),
                             Error);
    }
    recorded.recorded_text = "{\"type\":\"STATE\",\"state\":[1]}\n";
    CHECK_THROWS_WITH_AS(sync_input(catalog, recorded, 1),
                         doctest::Contains("read.jsonl:1: a STATE without a state object"), Error);
    recorded.recorded_text = "{\"type\":\"TRACE\"}\n{\"type\":\"TRACE\",\"trace\":\"error\"}\n";
    auto input = sync_input(catalog, recorded, 1);
    REQUIRE(input.messages.size() == 2);
    CHECK_FALSE(input.messages[0].stream);
    CHECK(input.messages[1].kind == InputMessage::Kind::trace);
}

TEST_CASE("destination input: bounds beyond what conform generates are named, not attempted") {
    Catalog huge(R"({"streams": [{"stream": {"name": "h", "json_schema": {"type": "object",
        "properties": {"big": {"type": "integer", "minimum": 1e30},
                       "small": {"type": "integer", "maximum": -1e30, "minimum": -1e31}}}}}]})",
                 "c.json");
    auto input = sync_input(huge, settings(), 1);
    for (const auto& message : input.messages) {
        if (message.kind == InputMessage::Kind::record) {
            auto document = json::parse_json_text(message.line, "record");
            CHECK(document["record"]["data"]["big"].GetDouble() >= 1e30);
            CHECK(document["record"]["data"]["small"].GetDouble() <= -1e30);
        }
    }
    Catalog long_text(R"({"streams": [{"stream": {"name": "l", "json_schema": {"type": "object",
        "properties": {"text": {"type": "string", "minLength": 4000000000}}}}}]})",
                      "c.json");
    CHECK_THROWS_WITH_AS(sync_input(long_text, settings(), 1),
                         doctest::Contains("cannot generate records for stream 'l'"), Error);
}
