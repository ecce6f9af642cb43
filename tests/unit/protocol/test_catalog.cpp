#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>

#include "json/parse.hpp"
#include "json/write.hpp"
#include "protocol/catalog.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::protocol;

namespace {

constexpr std::string_view k_catalog = R"({"streams":[
  {"stream":{"name":"users","json_schema":{"type":"object"}},
   "sync_mode":"incremental","cursor_field":["meta","updated"],"primary_key":[["id"],["org","id"]]},
  {"stream":{"name":"logs","namespace":"app","json_schema":{"type":"object"}}}
]})";

Catalog catalog_from(std::string_view text) {
    auto document = json::parse_json_text(text, "catalog.json");
    return load_catalog(document, "catalog.json", {{"users", {"/seen"}}});
}

std::string load_error(std::string_view text) {
    try {
        catalog_from(text);
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    FAIL("load_catalog accepted an invalid catalog");
    return "";
}

rapidjson::Document parsed(const std::string& text) {
    return json::parse_json_text(text, "out");
}

}  // namespace

TEST_CASE("catalog: streams, keys, cursors and volatile fields are read") {
    auto catalog = catalog_from(k_catalog);
    REQUIRE(catalog.streams.size() == 2);
    const auto& users = catalog.streams[0];
    CHECK(users.name == "users");
    CHECK(!users.name_space);
    CHECK(users.incremental());
    CHECK(users.cursor_field == FieldPath{"meta", "updated"});
    REQUIRE(users.primary_key.size() == 2);
    CHECK(users.primary_key[1] == FieldPath{"org", "id"});
    CHECK(users.volatile_pointers == std::vector<std::string>{"/seen"});
    CHECK(users.schema != nullptr);
    CHECK(parsed(users.json_schema) == parsed(R"({"type":"object"})"));
    const auto& logs = catalog.streams[1];
    CHECK(logs.sync_mode == "full_refresh");
    CHECK(!logs.incremental());
    CHECK(logs.display_name() == "app.logs");
    CHECK(users.display_name() == "users");
    CHECK(logs.volatile_pointers.empty());
}

TEST_CASE("catalog: an empty key path names no field and adds nothing to the key") {
    auto catalog = catalog_from(R"({"streams":[
      {"stream":{"name":"a","json_schema":{},"source_defined_primary_key":[[]]}},
      {"stream":{"name":"b","json_schema":{}},"primary_key":[["id"],[]]}]})");
    CHECK(catalog.streams[0].primary_key.empty());
    REQUIRE(catalog.streams[1].primary_key.size() == 1);
    CHECK(catalog.streams[1].primary_key[0] == FieldPath{"id"});
}

TEST_CASE("catalog: null is an absent value, as Airbyte's models read it") {
    // Written so by Airbyte's connector builder (source-captain-data's configured catalog).
    auto catalog = catalog_from(R"({"streams":[
      {"stream":{"name":"workspace","namespace":null,"json_schema":{},
                 "default_cursor_field":null,"source_defined_cursor":null,
                 "source_defined_primary_key":[["name"]],"supported_sync_modes":["full_refresh"]},
       "cursor_field":null,"destination_sync_mode":"append","primary_key":null,
       "sync_mode":"full_refresh"},
      {"stream":{"name":"events","json_schema":{},"default_cursor_field":["at"]},
       "cursor_field":null,"sync_mode":"incremental"}]})");
    const auto& workspace = catalog.streams[0];
    CHECK(!workspace.name_space);
    CHECK(workspace.cursor_field.empty());
    REQUIRE(workspace.primary_key.size() == 1);
    CHECK(workspace.primary_key[0] == FieldPath{"name"});
    CHECK(catalog.streams[1].cursor_field == FieldPath{"at"});
}

TEST_CASE("catalog: find matches namespace when both sides have one") {
    auto catalog = catalog_from(k_catalog);
    CHECK(catalog.find("users", std::nullopt) == 0);
    CHECK(catalog.find("users", "anything") == 0);
    CHECK(catalog.find("logs", "app") == 1);
    CHECK(catalog.find("logs", std::nullopt) == 1);
    CHECK(!catalog.find("logs", "other"));
    CHECK(!catalog.find("nope", std::nullopt));
}

TEST_CASE("catalog: malformed catalogs are input errors naming the place") {
    CHECK(load_error(R"({"stream":[]})") ==
          "catalog.json: expected a ConfiguredAirbyteCatalog with a 'streams' array");
    CHECK(load_error(R"({"streams":[{"stream":{"json_schema":{}}}]})") ==
          "catalog.json: /streams/0/stream/name: expected a string");
    CHECK(
        load_error(
            R"({"streams":[{"stream":{"name":"a","json_schema":{}}},{"stream":{"name":"b"}}]})") ==
        "catalog.json: /streams/1/stream/json_schema: missing");
    CHECK(load_error(
              R"({"streams":[{"stream":{"name":"a","json_schema":{}},"cursor_field":"x"}]})") ==
          "catalog.json: /streams/0: expected an array of field names");
    // Discover's output where a configured catalog goes (20 connectors' catalog.json).
    auto discovered = load_error(R"({"streams":[{"name":"a","json_schema":{}}]})");
    CHECK(
        discovered.starts_with("catalog.json: /streams/0: expected an object with a 'stream' "
                               "object: this is a discovered stream"));
    CHECK(load_error(R"({"type":"CATALOG","catalog":{"streams":[]}})")
              .starts_with("catalog.json: expected a ConfiguredAirbyteCatalog with a 'streams' "
                           "array: this holds a 'catalog' (a CATALOG message"));
    auto bad_schema =
        load_error(R"({"streams":[{"stream":{"name":"a","json_schema":{"type":5}}}]})");
    CHECK(bad_schema.starts_with("catalog.json: /streams/0/stream/json_schema: "));
}

TEST_CASE("catalog: to_pointer escapes per RFC 6901") {
    CHECK(to_pointer({}) == "");
    CHECK(to_pointer({"a"}) == "/a");
    CHECK(to_pointer({"a/b", "c~d"}) == "/a~1b/c~0d");
}

TEST_CASE("catalog: write_catalog adds extension keys in the chosen spelling") {
    auto catalog = catalog_from(k_catalog);
    CatalogExtensions extensions;
    extensions.tail = true;
    extensions.range_json = R"({"begin":"00000000","end":"7fffffff"})";
    extensions.projections["users"] = {{"alias", "/meta/name"}, {"x", "/x"}};

    auto estuary = parsed(write_catalog(catalog, extensions, KeySpelling::estuary));
    REQUIRE(estuary.HasMember("estuary.dev/tail"));
    CHECK(estuary["estuary.dev/tail"].IsTrue());
    CHECK(estuary["estuary.dev/range"] == parsed(R"({"begin":"00000000","end":"7fffffff"})"));
    CHECK(!estuary.HasMember("tail"));
    const auto& users = estuary["streams"][0];
    REQUIRE(users.HasMember("estuary.dev/projections"));
    CHECK(json::to_json(users["estuary.dev/projections"]) == R"({"alias":"/meta/name","x":"/x"})");
    CHECK(!estuary["streams"][1].HasMember("estuary.dev/projections"));
    // The configured streams are otherwise untouched.
    CHECK(users["cursor_field"] == parsed(R"(["meta","updated"])"));

    auto bare = parsed(write_catalog(catalog, extensions, KeySpelling::bare));
    CHECK(bare["tail"].IsTrue());
    CHECK(bare.HasMember("range"));
    CHECK(bare["streams"][0].HasMember("projections"));
    CHECK(!bare.HasMember("estuary.dev/tail"));
}

TEST_CASE(
    "catalog: write_catalog writes only what is set, and false and malformed ranges as given") {
    auto catalog = catalog_from(k_catalog);
    CHECK(parsed(write_catalog(catalog, {}, KeySpelling::estuary)) == parsed(catalog.document));

    CatalogExtensions extensions;
    extensions.tail = false;
    extensions.range_json = R"({"begin":"zzzzzzzz","end":"ffffffff"})";
    auto written = parsed(write_catalog(catalog, extensions, KeySpelling::bare));
    CHECK(written["tail"].IsFalse());
    CHECK(std::string(written["range"]["begin"].GetString()) == "zzzzzzzz");
}

TEST_CASE("catalog: write_catalog replaces extension keys already in the catalog") {
    auto catalog =
        catalog_from(R"({"tail":false,"streams":[)"
                     R"({"stream":{"name":"a","json_schema":{}},"projections":{"old":"/o"}}]})");
    CatalogExtensions extensions;
    extensions.tail = true;
    extensions.projections["a"] = {{"new", "/n"}};
    auto text = write_catalog(catalog, extensions, KeySpelling::bare);
    auto written = parsed(text);
    CHECK(written["tail"].IsTrue());
    CHECK(json::to_json(written["streams"][0]["projections"]) == R"({"new":"/n"})");
    CHECK(text.find("\"tail\"") == text.rfind("\"tail\""));
}

TEST_CASE("catalog: configure_discovered picks incremental only with a default cursor") {
    auto discovered = json::parse_json_text(R"({"streams":[
      {"name":"inc","json_schema":{},"supported_sync_modes":["full_refresh","incremental"],
       "default_cursor_field":["updated"],"source_defined_primary_key":[["id"]]},
      {"name":"no_cursor","json_schema":{},"supported_sync_modes":["incremental"]},
      {"name":"full","json_schema":{},"supported_sync_modes":["full_refresh"],
       "default_cursor_field":["updated"]}
    ]})",
                                            "discovered");
    auto configured = parsed(configure_discovered(discovered));
    REQUIRE(configured["streams"].Size() == 3);
    const auto& inc = configured["streams"][0];
    CHECK(std::string(inc["sync_mode"].GetString()) == "incremental");
    CHECK(std::string(inc["destination_sync_mode"].GetString()) == "append");
    CHECK(inc["cursor_field"] == parsed(R"(["updated"])"));
    CHECK(inc["primary_key"] == parsed(R"([["id"]])"));
    CHECK(inc["stream"] == discovered["streams"][0]);
    for (int i : {1, 2}) {
        const auto& stream = configured["streams"][i];
        CHECK(std::string(stream["sync_mode"].GetString()) == "full_refresh");
        CHECK(std::string(stream["destination_sync_mode"].GetString()) == "overwrite");
        CHECK(!stream.HasMember("cursor_field"));
        CHECK(!stream.HasMember("primary_key"));
    }
    // The result loads as a configured catalog.
    auto catalog = load_catalog(configured, "configured", {});
    CHECK(catalog.streams.size() == 3);
    CHECK(catalog.streams[0].incremental());

    auto empty = parsed(configure_discovered(json::parse_json_text("{}", "empty")));
    CHECK(empty["streams"].IsArray());
    CHECK(empty["streams"].Empty());
}
