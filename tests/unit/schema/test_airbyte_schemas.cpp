// Real Airbyte specs, configs, stream schemas and records (tests/data/airbyte).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "schema/schema.hpp"
#include "suite_runner.hpp"
#include "test_helpers.hpp"

using namespace conform::schema;
using namespace conform::schema::testing;

namespace {

std::filesystem::path airbyte_data() {
    const char* data = std::getenv("CONFORM_TEST_DATA");
    REQUIRE_MESSAGE(data != nullptr, "CONFORM_TEST_DATA is not set (run the test through ctest)");
    return std::filesystem::path(data) / "airbyte";
}

Schema spec_schema(const std::string& connector) {
    rapidjson::Document spec = read_json_file(airbyte_data() / connector / "spec.json");
    const rapidjson::Value& connection = spec["connectionSpecification"];
    std::vector<Violation> violations;
    CHECK_MESSAGE(draft7_metaschema().validate(connection, &violations),
                  connector << ": " << (violations.empty() ? "" : violations[0].message));
    return Schema::compile(connection);
}

bool config_is_valid(const Schema& spec, const std::string& connector, const std::string& file) {
    return spec.validate(read_json_file(airbyte_data() / connector / file));
}

// Validates every record of `records_file` against its stream's schema in `catalog_file`.
void check_expected_records(const std::string& connector) {
    rapidjson::Document catalog =
        read_json_file(airbyte_data() / connector / "configured_catalog.json");
    std::map<std::string, Schema> schemas;
    for (const auto& configured : catalog["streams"].GetArray()) {
        const rapidjson::Value& stream = configured["stream"];
        CHECK(draft7_metaschema().validate(stream["json_schema"]));
        schemas.emplace(stream["name"].GetString(), Schema::compile(stream["json_schema"]));
    }
    std::ifstream lines(airbyte_data() / connector / "expected_records.jsonl");
    std::string line;
    std::size_t records = 0;
    while (std::getline(lines, line)) {
        rapidjson::Document record = parse_json(line);
        auto schema = schemas.find(record["stream"].GetString());
        REQUIRE(schema != schemas.end());
        std::vector<Violation> violations;
        CHECK_MESSAGE(schema->second.validate(record["data"], &violations),
                      line << " " << (violations.empty() ? "" : violations[0].message));
        ++records;
    }
    CHECK(records > 0);
}

}  // namespace

TEST_CASE("airbyte::connector specs") {
    SUBCASE("source-faker") {
        Schema spec = spec_schema("source-faker");
        CHECK(config_is_valid(spec, "source-faker", "sample_config.json"));
        auto violations = violations_of(spec, R"({"count": "foo"})");
        REQUIRE(!violations.empty());
        CHECK(violations[0].instance_path == "/count");
        CHECK(violations[0].message == "expected integer, got string");
        CHECK_FALSE(config_is_valid(spec, "source-faker", "invalid_config.json"));
    }
    SUBCASE("source-file") {
        Schema spec = spec_schema("source-file");
        CHECK(config_is_valid(spec, "source-file", "config.json"));
        // Its URL does not resolve, but its shape is valid: CAT expects `check` to fail instead.
        CHECK(config_is_valid(spec, "source-file", "invalid_config.json"));
        auto violations = violations_of(spec, R"({"dataset_name": "x", "format": "csv",
            "url": "u", "provider": {"storage": "SSH", "host": "h"}})");
        REQUIRE(violations.size() == 2);
        CHECK(violations[0].instance_path == "/provider");
        CHECK(violations[0].message == "value matches none of the 8 oneOf alternatives");
        CHECK(violations[1].keyword_path == "/properties/provider/oneOf/4/required");
        CHECK(violations[1].message == "required property \"user\" is missing");
    }
    SUBCASE("source-pokeapi") {
        Schema spec = spec_schema("source-pokeapi");
        CHECK(config_is_valid(spec, "source-pokeapi", "config.json"));
        CHECK_FALSE(config_is_valid(spec, "source-pokeapi", "invalid_config.json"));
    }
}

TEST_CASE("airbyte::stream schemas and expected records") {
    check_expected_records("source-faker");
    check_expected_records("source-file");

    rapidjson::Document pokemon =
        read_json_file(airbyte_data() / "source-pokeapi" / "pokemon.json");
    CHECK(draft7_metaschema().validate(pokemon));
    CHECK_NOTHROW(Schema::compile(pokemon));

    SUBCASE("a broken faker record is caught") {
        rapidjson::Document catalog =
            read_json_file(airbyte_data() / "source-faker" / "configured_catalog.json");
        Schema users = Schema::compile(catalog["streams"][0]["stream"]["json_schema"]);
        auto violations = violations_of(users, R"({"id": 1, "created_at": "yesterday",
            "age": "55"})");
        REQUIRE(violations.size() == 2);
        CHECK(violations[0].keyword_path == "/properties/created_at/format");
        CHECK(violations[1].instance_path == "/age");
    }
}
