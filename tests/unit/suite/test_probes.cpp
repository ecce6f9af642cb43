#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <string>

#include "json/parse.hpp"
#include "protocol/catalog.hpp"
#include "suite/probes.hpp"

using namespace conform;
using namespace conform::suite;

namespace {

const char* const k_spec =
    R"({"type":"object","required":["api_key","host"],"properties":{)"
    R"("api_key":{"type":"string"},"host":{"type":"string"},"port":{"type":"integer","default":5}}})";

rapidjson::Document parsed(std::string_view text) {
    return json::parse_json_text(text, "test");
}

protocol::Catalog incremental_on(const std::string& cursor) {
    protocol::Catalog catalog;
    protocol::CatalogStream stream;
    stream.name = "events";
    stream.sync_mode = "incremental";
    stream.cursor_field = {cursor};
    catalog.streams.push_back(stream);
    protocol::CatalogStream items;
    items.name = "items";
    items.sync_mode = "full_refresh";
    catalog.streams.push_back(items);
    return catalog;
}

protocol::Observation run_with_newest(protocol::CursorValue newest) {
    protocol::Observation run;
    run.max_cursor = {newest, std::nullopt};
    return run;
}

}  // namespace

TEST_CASE("required_only_config: the required properties alone, no defaults") {
    auto config = parsed(R"({"api_key":"k","host":"h","port":7,"extra":1})");
    CHECK(required_only_config(parsed(k_spec), config) == R"({"api_key":"k","host":"h"})");
    CHECK(required_only_config(parsed(R"({"type":"object"})"), config) == "{}");
}

TEST_CASE("configs_without_each_required: the main config without each in turn") {
    auto config = parsed(R"({"api_key":"k","host":"h","port":7})");
    auto configs = configs_without_each_required(parsed(k_spec), config);
    REQUIRE(configs.size() == 2);
    CHECK(configs[0].property == "api_key");
    CHECK(configs[0].text == R"({"host":"h","port":7})");
    CHECK(configs[1].property == "host");
    CHECK(configs[1].text == R"({"api_key":"k","port":7})");
    auto without_host = parsed(R"({"api_key":"k"})");
    CHECK(configs_without_each_required(parsed(k_spec), without_host).size() == 1);
}

TEST_CASE("invalid catalogs: an unknown stream added, every sync mode INVALID") {
    const std::string catalog =
        R"({"streams":[{"stream":{"name":"users"},"sync_mode":"full_refresh",)"
        R"("destination_sync_mode":"overwrite"}]})";
    auto unknown = catalog_with_unknown_stream(catalog);
    REQUIRE(unknown);
    auto document = parsed(*unknown);
    REQUIRE(document["streams"].Size() == 2);
    CHECK(std::string(document["streams"][1]["stream"]["name"].GetString()) ==
          "conform_unknown_stream");
    CHECK(std::string(document["streams"][0]["stream"]["name"].GetString()) == "users");
    auto invalid = catalog_with_invalid_sync_modes(catalog);
    REQUIRE(invalid);
    CHECK(invalid->find(R"("sync_mode":"INVALID")") != std::string::npos);
    CHECK(invalid->find(R"("destination_sync_mode":"INVALID")") != std::string::npos);
    CHECK(!catalog_with_unknown_stream(R"({"streams":[]})"));
}

TEST_CASE("state_with_future_cursors: the newest cursor or the cursor field moves far ahead") {
    auto catalog = incremental_on("updated_at");
    protocol::CursorValue newest;
    newest.text = "2024-01-01T01:00:00Z";
    auto run = run_with_newest(newest);
    auto moved = state_with_future_cursors(
        R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"events"},)"
        R"("stream_state":{"cursor":"2024-01-01T01:00:00Z","seq":60}}}])",
        run, catalog);
    REQUIRE(moved);
    CHECK(moved->find(R"("cursor":"9999-01-01T01:00:00Z","seq":60)") != std::string::npos);

    auto by_name = state_with_future_cursors(R"({"events":{"updated_at":"2023-05-05"}})",
                                             run_with_newest({}), catalog);
    REQUIRE(by_name);
    CHECK(*by_name == R"({"events":{"updated_at":"9999-05-05"}})");

    protocol::CursorValue number;
    number.number = 6;
    auto numeric = state_with_future_cursors(R"({"events":{"seq":6,"page":2}})",
                                             run_with_newest(number), incremental_on("seq"));
    REQUIRE(numeric);
    CHECK(*numeric == R"({"events":{"seq":6000000,"page":2}})");
}

TEST_CASE("state_with_future_cursors: a time since the epoch moves to the year 9999 in its unit") {
    // A million times source-dixa's millisecond cursor is past the year 200,000, which Python's
    // datetime cannot hold: the CDK failed with "date value out of range" instead of reading
    // nothing new.
    auto moved = [](const char* state) {
        auto result =
            state_with_future_cursors(state, run_with_newest({}), incremental_on("updated_at"));
        REQUIRE(result);
        return *result;
    };
    CHECK(moved(R"({"updated_at":1793663940})") == R"({"updated_at":253402300799})");
    CHECK(moved(R"({"updated_at":1793663940865})") == R"({"updated_at":253402300799999})");
    CHECK(moved(R"({"updated_at":1793663940865123})") == R"({"updated_at":253402300799999999})");
    CHECK(moved(R"({"updated_at":1793663940.5})") == R"({"updated_at":253402300799.0})");
    // Written as a string of its digits (ClickUp's date_updated, kept so by Faros's source).
    CHECK(moved(R"({"updated_at":"1793663940865"})") == R"({"updated_at":"253402300799999"})");
    CHECK(moved(R"({"updated_at":"2026-12-01"})") == R"({"updated_at":"9999-12-01"})");
    // Not a time: a counter, and numbers between the units' ranges.
    CHECK(moved(R"({"updated_at":42})") == R"({"updated_at":42000000})");
    CHECK(moved(R"({"updated_at":50000000000})") == R"({"updated_at":9000000000000000})");
}

TEST_CASE("state_with_future_cursors: partitions kept under a vendor's names all move") {
    // Faros's statuspage source: {pageId: {lastUpdatedAt}}; the newest record is in one page.
    protocol::CursorValue newest;
    newest.text = "2026-12-02T01:00:00Z";
    auto moved = state_with_future_cursors(
        R"({"incidents":{"pg1":{"lastUpdatedAt":"2026-12-01T07:45:00Z","count":5},)"
        R"("pg2":{"lastUpdatedAt":"2026-12-02T01:00:00Z","count":7}}})",
        run_with_newest(newest), incremental_on("updated_at"));
    REQUIRE(moved);
    CHECK(*moved == R"({"incidents":{"pg1":{"lastUpdatedAt":"9999-12-01T07:45:00Z","count":5},)"
                    R"("pg2":{"lastUpdatedAt":"9999-12-02T01:00:00Z","count":7}}})");
    // Faros's clickup source: {listId: {lastUpdatedDate: "<epoch ms>"}}, as strings.
    protocol::CursorValue ms_text;
    ms_text.text = "1764646906000";
    auto lists =
        state_with_future_cursors(R"({"tasks":{"101":{"lastUpdatedDate":"1764646901000"},)"
                                  R"("106":{"lastUpdatedDate":"1764646906000"}}})",
                                  run_with_newest(ms_text), incremental_on("date_updated"));
    REQUIRE(lists);
    CHECK(*lists == R"({"tasks":{"101":{"lastUpdatedDate":"253402300799999"},)"
                    R"("106":{"lastUpdatedDate":"253402300799999"}}})");
    // A small number equal to the newest cursor by chance names no cursor.
    protocol::CursorValue six;
    six.number = 6;
    auto counters = state_with_future_cursors(R"({"events":{"a":{"n":6},"b":{"n":2}}})",
                                              run_with_newest(six), incremental_on("seq"));
    REQUIRE(counters);
    CHECK(*counters == R"({"events":{"a":{"n":6000000},"b":{"n":2}}})");
}

TEST_CASE("state_with_future_cursors: a packed state moves unpacked (faros-airbyte-cdk)") {
    // {"events":{"cutoff":1793663940865}} gzipped and in base64, as the faros CDK writes its
    // LEGACY state when run by hand; the CDK reads a state packed or not.
    protocol::CursorValue newest;
    newest.number = 1793663940865.0;
    auto moved = state_with_future_cursors(
        R"({"format":"base64/gzip","data":)"
        R"("H4sIAAwTF2sC/6tWSi1LzSspVrKqVkouLclPS1OyMjS3NDYzM7Y0MbAwM62tBQBuxva8IwAAAA=="})",
        run_with_newest(newest), incremental_on("updated_at"));
    REQUIRE(moved);
    CHECK(*moved == R"({"events":{"cutoff":253402300799999}})");
}

TEST_CASE("state_with_future_cursors: nothing to move gives nothing") {
    CHECK(!state_with_future_cursors(R"({"items":{"done":true}})", run_with_newest({}),
                                     incremental_on("updated_at")));
}

TEST_CASE("state_cursor_floors: a packed stream state is read unpacked (faros-airbyte-cdk)") {
    // {"updated_at":"2026-11-30T08:00:00Z"} gzipped and in base64: the faros CDK's STREAM state
    // on the Airbyte platform.
    auto floors = state_cursor_floors(
        R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"events"},"stream_state":)"
        R"({"format":"base64/gzip","data":)"
        R"("H4sIAAwTF2sC/6tWKi1ISSxJTYlPLFGyUjIyMDLTNTTUNTYIMbCwMjAAoiilWgCjwzQxJQAAAA=="}}}])",
        incremental_on("updated_at"));
    REQUIRE(floors.size() == 1);
    REQUIRE(floors.at(0).floor);
    CHECK(*floors.at(0).floor->text == "2026-11-30T08:00:00Z");
    CHECK_FALSE(floors.at(0).guessed);
}

TEST_CASE("state_cursor_floors: the cursor a state records, by stream") {
    auto catalog = incremental_on("timestamp");
    // source-posthog's events: one cursor per project; the oldest is the floor.
    auto floors = state_cursor_floors(
        R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"events","namespace":null},)"
        R"("stream_state":{"states":[)"
        R"({"partition":{"project_id":2331,"parent_slice":{}},)"
        R"("cursor":{"timestamp":"2026-12-06T20:44:56.000000+00:00"}},)"
        R"({"partition":{"project_id":5120,"parent_slice":{}},)"
        R"("cursor":{"timestamp":"2026-11-30T08:00:00+00:00"}}]}}},)"
        R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"items"},"stream_state":{}}}])",
        catalog);
    REQUIRE(floors.size() == 1);
    CHECK(floors.at(0).per_partition);
    REQUIRE(floors.at(0).floor);
    CHECK(*floors.at(0).floor->text == "2026-11-30T08:00:00+00:00");

    // A partition whose cursor cannot be read, or no partition at all (source-bigcommerce's id
    // streams keep {"states": []}): no floor.
    auto unread = state_cursor_floors(
        R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"events"},)"
        R"("stream_state":{"states":[{"partition":{"id":1},"cursor":{"timestamp":"2026-01-01"}},)"
        R"({"partition":{"id":2},"cursor":{}}]}}}])",
        catalog);
    REQUIRE(unread.size() == 1);
    CHECK_FALSE(unread.at(0).floor.has_value());
    auto none = state_cursor_floors(R"({"events":{"states":[]}})", catalog);
    REQUIRE(none.size() == 1);
    CHECK_FALSE(none.at(0).floor.has_value());

    // The stream's own cursor, in the array and the legacy form; an empty state records none.
    auto own = state_cursor_floors(R"([{"type":"STREAM","stream":{"stream_descriptor":)"
                                   R"({"name":"events"},"stream_state":{"timestamp":"x"}}}])",
                                   catalog);
    REQUIRE(own.size() == 1);
    CHECK(*own.at(0).floor->text == "x");
    CHECK_FALSE(own.at(0).per_partition);
    CHECK(*state_cursor_floors(R"({"events":{"timestamp":7}})", catalog).at(0).floor->number == 7);
    CHECK_FALSE(state_cursor_floors(R"({"events":{}})", catalog).at(0).floor.has_value());
    // Kept under another name: absent (the caller keeps what it saw).
    CHECK(state_cursor_floors(R"({"events":{"cursor":"x","seq":6}})", catalog).empty());
    auto global = state_cursor_floors(
        R"([{"type":"GLOBAL","global":{"shared_state":{},"stream_states":[{"stream_descriptor":)"
        R"({"name":"events"},"stream_state":{"states":[{"partition":{"id":1},)"
        R"("cursor":{"timestamp":5}}]}}]}}])",
        catalog);
    REQUIRE(global.size() == 1);
    CHECK(*global.at(0).floor->number == 5);

    // source-gitlab 3.0.0: a cursor per project id; the oldest is the floor. A member without the
    // cursor field is another shape: absent.
    auto per_project =
        state_cursor_floors(R"({"events":{"2001":{"timestamp":"2026-11-13T10:00:00Z"},)"
                            R"("2003":{"timestamp":"2026-10-08T09:00:00Z"}}})",
                            catalog);
    REQUIRE(per_project.size() == 1);
    CHECK(per_project.at(0).per_partition);
    CHECK(*per_project.at(0).floor->text == "2026-10-08T09:00:00Z");
    CHECK(state_cursor_floors(R"({"events":{"2001":{"timestamp":"x"},"2003":{"since":"y"}}})",
                              catalog)
              .empty());

    // Guessed: the one date-time under another name (conform's reference connector keeps
    // {"cursor", "seq"}); each partition's one date-time (Faros's statuspage: {pageId:
    // {lastUpdatedAt}}), the oldest. Two date-times, or none: absent.
    auto one =
        state_cursor_floors(R"({"events":{"cursor":"2024-01-01T01:00:00Z","seq":60}})", catalog);
    REQUIRE(one.size() == 1);
    CHECK(one.at(0).guessed);
    CHECK_FALSE(one.at(0).per_partition);
    CHECK(*one.at(0).floor->text == "2024-01-01T01:00:00Z");
    auto pages = state_cursor_floors(R"({"events":{"pg1":{"lastUpdatedAt":"2026-12-01T07:45:00Z"},)"
                                     R"("pg2":{"lastUpdatedAt":"2026-12-02T01:00:00Z"}}})",
                                     catalog);
    REQUIRE(pages.size() == 1);
    CHECK(pages.at(0).guessed);
    CHECK(pages.at(0).per_partition);
    // Faros's clickup source: per list, an epoch time in a string of digits; the oldest.
    auto lists = state_cursor_floors(R"({"events":{"101":{"lastUpdatedDate":"1764646901000"},)"
                                     R"("102":{"lastUpdatedDate":"1764646800000"}}})",
                                     catalog);
    REQUIRE(lists.size() == 1);
    CHECK(lists.at(0).guessed);
    CHECK(lists.at(0).per_partition);
    CHECK(*lists.at(0).floor->text == "1764646800000");
    CHECK(*pages.at(0).floor->text == "2026-12-01T07:45:00Z");
    CHECK(state_cursor_floors(R"({"events":{"from":"2024-01-01","to":"2024-02-01"}})", catalog)
              .empty());
    CHECK(state_cursor_floors(R"({"events":{"cursor":"x","seq":6}})", catalog).empty());
}

TEST_CASE("streams_with_state_values: the streams a state says anything of") {
    auto catalog = incremental_on("timestamp");
    auto both = streams_with_state_values(
        R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"events"},)"
        R"("stream_state":{"states":[]}}},{"type":"STREAM","stream":{"stream_descriptor":)"
        R"({"name":"items"},"stream_state":{"page":{"n":2}}}}])",
        catalog);
    REQUIRE(both);
    CHECK(*both == std::set<std::size_t>{1});
    auto shared = streams_with_state_values(
        R"([{"type":"GLOBAL","global":{"shared_state":{"lsn":42},"stream_states":)"
        R"([{"stream_descriptor":{"name":"events"},"stream_state":{}}]}}])",
        catalog);
    REQUIRE(shared);
    CHECK(*shared == std::set<std::size_t>{0});
    CHECK_FALSE(streams_with_state_values("not json", catalog));
}
