// The Singer pieces that need no tap: the scenario table binds every check, catalogs are written
// with selections, draft-04 schemas read as draft-07, bookmarks read in the shapes taps write.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <string>

#include "checks/checks.hpp"
#include "json/write.hpp"
#include "singer/catalog.hpp"
#include "singer/messages.hpp"
#include "singer/scenario.hpp"

using namespace conform;

namespace {

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document document;
    document.Parse(text.c_str());
    return document;
}

const char* k_catalog = R"({"streams": [
  {"tap_stream_id": "users", "stream": "users",
   "schema": {"type": "object", "properties": {"id": {"type": "integer"},
              "name": {"type": "string"}, "updated_at": {"type": "string"}}},
   "metadata": [{"breadcrumb": [], "metadata": {"table-key-properties": ["id"],
                 "valid-replication-keys": ["updated_at"]}},
                {"breadcrumb": ["properties", "id"], "metadata": {"inclusion": "automatic"}},
                {"breadcrumb": ["properties", "name"], "metadata": {"inclusion": "available"}}]},
  {"tap_stream_id": "plans", "stream": "plans",
   "schema": {"type": "object", "properties": {"plan": {"type": "string"}}},
   "metadata": [{"breadcrumb": [], "metadata": {"forced-replication-method": "FULL_TABLE"}}]}]})";

}  // namespace

TEST_CASE("singer scenarios: every check of every scenario is bound to its steps") {
    auto scenarios = singer::builtin_scenarios(checks::singer_checks());
    CHECK(scenarios.size() == 12);
    std::set<std::string> listed;
    for (const auto& scenario : scenarios) {
        CHECK(scenario.inputs.size() == scenario.checks.size());
        listed.insert(scenario.checks.begin(), scenario.checks.end());
    }
    for (const auto& check : checks::singer_checks()) {
        INFO(check.info.id);
        CHECK(listed.contains(std::string(check.info.id)));
    }
}

TEST_CASE("singer catalog: an inclusion kept in the schema, as singer-python's Schema keeps it") {
    // tap-mysql 1.17.7: its metadata says no inclusion; its schema does, per column.
    std::string problem;
    auto catalog = singer::Catalog::read(R"({"streams": [
      {"tap_stream_id": "shop-orders", "stream": "orders",
       "schema": {"type": "object", "properties": {
         "id": {"type": ["integer"], "inclusion": "automatic"},
         "note": {"type": ["null", "string"], "inclusion": "available"},
         "attachment": {"inclusion": "unsupported", "description": "blob"},
         "total": {"type": ["null", "number"], "inclusion": "available"}}},
       "metadata": [{"breadcrumb": [], "metadata": {"table-key-properties": ["id"]}},
                    {"breadcrumb": ["properties", "id"], "metadata": {"sql-datatype": "int"}},
                    {"breadcrumb": ["properties", "note"], "metadata": {"sql-datatype": "text"}},
                    {"breadcrumb": ["properties", "total"],
                     "metadata": {"inclusion": "automatic"}}]}]})",
                                         problem);
    REQUIRE(catalog);
    const auto& orders = catalog->streams()[0];
    CHECK(orders.inclusion.at("id") == "automatic");
    CHECK(orders.inclusion.at("note") == "available");
    CHECK(orders.inclusion.at("attachment") == "unsupported");  // no metadata entry at all
    CHECK(orders.inclusion.at("total") == "automatic");         // metadata says it where both do
    CHECK(orders.available_fields() == std::vector<std::string>{"note"});
}

TEST_CASE("singer catalog: keys, replication keys and selections") {
    std::string problem;
    auto catalog = singer::Catalog::read(k_catalog, problem);
    REQUIRE(catalog);
    const auto& users = catalog->streams()[0];
    CHECK(users.replication_key == "updated_at");
    CHECK(users.automatic_fields() == std::set<std::string>{"id", "updated_at"});
    CHECK(users.available_fields() == std::vector<std::string>{"name"});
    CHECK(!catalog->streams()[1].incremental());
    singer::Selection selection;
    selection["users"].deselected_fields = {"name"};
    auto written = parse(catalog->write({"users"}, selection));
    const auto& metadata = written["streams"][0]["metadata"];
    CHECK(metadata[0]["metadata"]["selected"].GetBool());
    CHECK(std::string(metadata[0]["metadata"]["replication-key"].GetString()) == "updated_at");
    CHECK(std::string(metadata[0]["metadata"]["replication-method"].GetString()) == "INCREMENTAL");
    CHECK(std::string(written["streams"][0]["replication_key"].GetString()) == "updated_at");
    CHECK(std::string(written["streams"][0]["replication_method"].GetString()) == "INCREMENTAL");
    CHECK(!metadata[2]["metadata"]["selected"].GetBool());                           // name
    CHECK(!written["streams"][1]["metadata"][0]["metadata"]["selected"].GetBool());  // plans
    CHECK(catalog->use_replication_key("plans", "plan") ==
          "its catalog forces FULL_TABLE replication");
    CHECK(catalog->use_replication_key("nope", "id") == "the tap's catalog has no such stream");
    CHECK(catalog->use_replication_key("users", "seq") ==
          "its schema has no top-level property 'seq'");
    CHECK(catalog->use_replication_key("users", "name").empty());
    CHECK(catalog->streams()[0].replication_key == "name");
    // The test config's key is not the tap's automatic field, and conform never deselects it.
    CHECK(catalog->streams()[0].automatic_fields() == std::set<std::string>{"id"});
    CHECK(catalog->streams()[0].available_fields() == std::vector<std::string>{"updated_at"});
    CHECK(!singer::Catalog::read("{\"streams\": 3}", problem));
    CHECK(problem.find("streams") != std::string::npos);
}

TEST_CASE("singer catalog: LOG_BASED selection and message stream names") {
    std::string problem;
    auto catalog = singer::Catalog::read(R"({"streams": [
      {"tap_stream_id": "public-orders", "stream": "orders",
       "schema": {"properties": {"id": {"type": "integer"}}},
       "metadata": [{"breadcrumb": [], "metadata": {"valid-replication-keys": ["id"]}}]},
      {"tap_stream_id": "public-events", "stream": "events",
       "schema": {"properties": {"id": {"type": "integer"}}},
       "metadata": [{"breadcrumb": [], "metadata": {"forced-replication-method": "LOG_BASED",
                                                    "valid-replication-keys": ["id"]}}]},
      {"tap_stream_id": "public-plans", "stream": "plans",
       "schema": {"properties": {"id": {"type": "integer"}}},
       "metadata": [{"breadcrumb": [], "metadata": {"forced-replication-method": "FULL_TABLE"}}]}
    ]})",
                                         problem);
    REQUIRE(catalog);
    // A catalog that forces LOG_BASED is selected LOG_BASED, not INCREMENTAL on its keys.
    CHECK(catalog->streams()[1].replication_method() == "LOG_BASED");
    CHECK(!catalog->streams()[1].incremental());
    CHECK(catalog->streams()[0].replication_method() == "INCREMENTAL");
    CHECK(catalog->use_log_based("public-orders").empty());
    CHECK(catalog->streams()[0].replication_method() == "LOG_BASED");
    CHECK(catalog->use_log_based("public-plans") == "its catalog forces FULL_TABLE replication");
    CHECK(catalog->use_log_based("orders") == "the tap's catalog has no such stream");
    CHECK(catalog->use_replication_key("public-events", "id") ==
          "its catalog forces LOG_BASED replication");
    auto written = parse(catalog->write({"public-orders"}, {}));
    CHECK(std::string(
              written["streams"][0]["metadata"][0]["metadata"]["replication-method"].GetString()) ==
          "LOG_BASED");
    CHECK(std::string(written["streams"][0]["replication_method"].GetString()) == "LOG_BASED");
    CHECK(!written["streams"][0].HasMember("replication_key"));
    // Messages named by tap_stream_id (PipelineWise) are the catalog's streams.
    CHECK(catalog->stream_name_of("public-orders") == "orders");
    CHECK(catalog->stream_name_of("orders") == "orders");
    CHECK(catalog->stream_name_of("other") == "other");
}

TEST_CASE("singer schemas: a time without offset is a time (no draft-04 `time` format)") {
    auto schema = parse(R"({"properties": {"opens": {"type": ["null", "string"], "format": "time"},
                                           "at": {"type": "string", "format": "date-time"}}})");
    singer::to_draft7(schema, schema.GetAllocator());
    auto compiled = schema::Schema::compile(schema);
    CHECK(compiled.validate(parse(R"({"opens": "11:51:00", "at": "2024-01-01T00:00:00Z"})")));
    CHECK(compiled.validate(parse(R"({"opens": "11:51:00.5+02:00"})")));
    CHECK(!compiled.validate(parse(R"({"opens": "25:00:00"})")));
    CHECK(!compiled.validate(parse(R"({"at": "2024-01-01T00:00:00"})")));  // date-time keeps it
}

TEST_CASE("singer schemas: draft-04 exclusive bounds and id become draft-07") {
    auto schema = parse(R"({"$schema": "http://json-schema.org/draft-04/schema#", "id": "x",
        "properties": {"a": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
                       "b": {"maximum": 5, "exclusiveMaximum": false}}})");
    singer::to_draft7(schema, schema.GetAllocator());
    CHECK(
        json::to_canonical_json(schema) ==
        R"({"$id":"x","properties":{"a":{"exclusiveMinimum":0,"type":"number"},"b":{"maximum":5}}})");
}

TEST_CASE("singer bookmarks: the SDK's, its partitions', singer-python's; no progress markers") {
    auto state = parse(R"({"bookmarks": {
        "users": {"replication_key": "updated_at", "replication_key_value": "2021-01-02"},
        "events": {"partitions": [{"context": {"source": "web"}, "replication_key_value": 7},
                                  {"context": {"source": "app"},
                                   "progress_markers": {"replication_key_value": 9}}]},
        "orders": {"updated_at": "2021-03-04"}}, "currently_syncing": null})");
    auto bookmarks = singer::bookmarks_of(state, {{"orders", "updated_at"}});
    REQUIRE(bookmarks.size() == 3);
    CHECK(bookmarks[0].stream == "users");
    CHECK(*bookmarks[0].value.text == "2021-01-02");
    CHECK(bookmarks[1].partition == R"({"source":"web"})");
    CHECK(*bookmarks[1].value.number == 7);
    CHECK(*bookmarks[2].value.text == "2021-03-04");
}

TEST_CASE("bookmarks: one per parent under the tap's own names, when no other shape is there") {
    // singer-io's tap-github: {"commits": {"acme/api": {"since": ...}, ...}}.
    auto state = parse(
        R"({"bookmarks":{"commits":{"acme/api":{"since":"2024-04-29T13:00:00Z"},)"
        R"("acme/web":{"since":"2024-03-01T00:00:00.000000Z"},"acme/old":{"etag":"x"},)"
        R"("acme/two":{"since":"2024-01-01T00:00:00Z","page":2}},)"
        R"("issues":{"updated_at":"2024-05-05T00:00:00Z","acme/api":{"since":"2020-01-01"}}}})");
    auto bookmarks = singer::bookmarks_of(state, {{"issues", "updated_at"}});
    REQUIRE(bookmarks.size() == 3);
    CHECK(bookmarks[0].stream == "commits");
    CHECK(bookmarks[0].partition == "acme/api");
    CHECK(*bookmarks[0].value.text == "2024-04-29T13:00:00Z");
    CHECK(bookmarks[1].partition == "acme/web");
    // The replication key's member is the stream's bookmark: nothing else of it is read.
    CHECK(bookmarks[2].stream == "issues");
    CHECK(bookmarks[2].partition.empty());
}

TEST_CASE(
    "stream floor: a record is held to the partitions its fields agree with, else the lowest") {
    using protocol::CursorValue;
    singer::StreamFloor floor{CursorValue{std::nullopt, "2024-01-01"}, {}};
    floor.partitions.push_back({R"({"project_id":101,"project_path":"a/b"})",
                                {{"project_id", "101"}, {"project_path", R"("a/b")"}},
                                CursorValue{std::nullopt, "2024-01-01"}});
    floor.partitions.push_back({R"({"project_id":102,"project_path":"a/c"})",
                                {{"project_id", "102"}, {"project_path", R"("a/c")"}},
                                CursorValue{std::nullopt, "2024-06-01"}});
    // The record carries project_id alone: the partition it agrees with.
    auto of_102 = parse(R"({"id": 7, "project_id": 102})");
    auto [value, partition] = floor.for_record(of_102);
    CHECK(*value->text == "2024-06-01");
    REQUIRE(partition != nullptr);
    CHECK(partition->label == R"({"project_id":102,"project_path":"a/c"})");
    // One field disagrees: not that partition.
    auto moved = parse(R"({"project_id": 102, "project_path": "a/b"})");
    CHECK(floor.for_record(moved).second == nullptr);
    CHECK(*floor.for_record(moved).first->text == "2024-01-01");
    // No field of any context: the lowest.
    auto bare = parse(R"({"id": 7})");
    CHECK(floor.for_record(bare).second == nullptr);
}

TEST_CASE("stream floor: a parent's bookmark holds the records that name the parent in a field") {
    using protocol::CursorValue;
    singer::StreamFloor floor{CursorValue{std::nullopt, "2024-01-01"}, {}};
    floor.partitions.push_back({"acme/api", {}, CursorValue{std::nullopt, "2024-01-01"}, true});
    floor.partitions.push_back({"acme/web", {}, CursorValue{std::nullopt, "2024-05-01"}, true});
    auto of_web = parse(R"({"sha": "a1", "_sdc_repository": "acme/web"})");
    CHECK(*floor.for_record(of_web).first->text == "2024-05-01");
    CHECK(floor.for_record(of_web).second->label == "acme/web");
    auto unnamed = parse(R"({"sha": "a2", "n": 7})");
    CHECK(*floor.for_record(unnamed).first->text == "2024-01-01");
    CHECK(floor.for_record(unnamed).second == nullptr);
}
