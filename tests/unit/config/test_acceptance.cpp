// Airbyte's acceptance-test-config.yml mapped to a test config (config/acceptance.*): both formats,
// what each key becomes, and a warning with its line for each key conform cannot honour.
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "config/acceptance.hpp"
#include "json/parse.hpp"
#include "util/error.hpp"

using namespace conform;

namespace {

rapidjson::Document mapped(const config::AcceptanceMapping& mapping) {
    return json::parse_json_text(mapping.test_config_json, "mapped");
}

bool warns(const config::AcceptanceMapping& mapping, const std::string& needle) {
    return std::any_of(mapping.warnings.begin(), mapping.warnings.end(),
                       [&needle](const std::string& warning) {
                           return warning.find(needle) != std::string::npos;
                       });
}

const char* const k_current = R"(connector_image: airbyte/source-x:dev
test_strictness_level: high
acceptance_tests:
  spec:
    tests:
      - spec_path: source_x/spec.json
  connection:
    tests:
      - config_path: secrets/config.json
        status: succeed
      - config_path: integration_tests/invalid_config.json
        status: failed
        timeout_seconds: 20
  basic_read:
    tests:
      - config_path: secrets/config.json
        configured_catalog_path: integration_tests/configured_catalog.json
        empty_streams: []
        expect_records:
          path: integration_tests/expected_records.jsonl
          exact_order: yes
          extra_records: no
        ignored_fields:
          users:
            - name: updated_at
              bypass_reason: changes
            - address/zip
        timeout_seconds: 600
        fail_on_extra_columns: false
  incremental:
    bypass_reason: "no incremental streams"
)";

}  // namespace

TEST_CASE("the current format maps image, configs, catalog, expected records, fields, timeouts") {
    auto mapping = config::map_acceptance_test_config(k_current, "cat.yml", "/c");
    auto document = mapped(mapping);
    CHECK(std::string(document["connector"]["image"].GetString()) == "airbyte/source-x:dev");
    CHECK(std::string(document["config"].GetString()) == "/c/secrets/config.json");
    CHECK(std::string(document["invalid_config"].GetString()) ==
          "/c/integration_tests/invalid_config.json");
    CHECK(std::string(document["catalog"].GetString()) ==
          "/c/integration_tests/configured_catalog.json");
    CHECK(std::string(document["expected_records"]["mode"].GetString()) == "exact");
    CHECK(document["expected_records"]["in_order"].GetBool());
    CHECK(std::string(document["volatile_fields"]["users"][0].GetString()) == "/updated_at");
    CHECK(std::string(document["volatile_fields"]["users"][1].GetString()) == "/address/zip");
    CHECK(document["timeouts"]["check"].GetDouble() == 20);
    CHECK(document["timeouts"]["read"].GetDouble() == 600);
}

TEST_CASE("each key conform cannot honour is a warning with its line") {
    auto mapping = config::map_acceptance_test_config(k_current, "cat.yml", "/c");
    CHECK(warns(mapping, "cat.yml:2: test_strictness_level: not honoured"));
    CHECK(warns(mapping,
                "cat.yml:6: acceptance_tests.spec.tests[0].spec_path: not honoured: "
                "/c/source_x/spec.json does not exist"));
    CHECK_FALSE(mapped(mapping).HasMember("expected_spec"));
    CHECK_FALSE(warns(mapping, "exact_order"));
    CHECK(warns(mapping,
                "cat.yml:29: acceptance_tests.basic_read.tests[0]."
                "fail_on_extra_columns: not honoured"));
    CHECK(warns(mapping,
                "cat.yml:31: acceptance_tests.incremental.bypass_reason: not honoured: "
                "'incremental' is bypassed (no incremental streams)"));
    CHECK_FALSE(warns(mapping, "config_path"));
    CHECK_FALSE(warns(mapping, "empty_streams"));
    CHECK_FALSE(mapped(mapping).HasMember("empty_streams"));  // [] allows nothing
    CHECK(mapping.warnings.size() == 4);
}

TEST_CASE("the legacy format maps the same sections") {
    auto mapping = config::map_acceptance_test_config(R"(connector_image: airbyte/source-file:dev
tests:
  connection:
    - config_path: "integration_tests/config.json"
      status: "succeed"
    - config_path: "integration_tests/invalid_config.json"
      status: "failed"
  basic_read:
    - config_path: "integration_tests/config.json"
      configured_catalog_path: "integration_tests/configured_catalog.json"
  full_refresh:
    - config_path: "integration_tests/other.json"
      configured_catalog_path: "integration_tests/configured_catalog.json"
)",
                                                      "legacy.yml", "/f");
    auto document = mapped(mapping);
    CHECK(std::string(document["config"].GetString()) == "/f/integration_tests/config.json");
    CHECK(std::string(document["invalid_config"].GetString()) ==
          "/f/integration_tests/invalid_config.json");
    CHECK(std::string(document["catalog"].GetString()) ==
          "/f/integration_tests/configured_catalog.json");
    REQUIRE(mapping.warnings.size() == 1);
    CHECK(mapping.warnings[0].find("legacy.yml:12: tests.full_refresh[0].config_path") == 0);
}

TEST_CASE("empty_streams, objects or the legacy names, are the streams allowed no record") {
    auto mapping = config::map_acceptance_test_config(R"(connector_image: airbyte/source-x:dev
acceptance_tests:
  basic_read:
    tests:
      - config_path: secrets/config.json
        empty_streams:
          - name: refunds
            bypass_reason: the sandbox has none
          - name: disputes
      - config_path: secrets/config.json
        empty_streams:
          - name: refunds
)",
                                                      "cat.yml", "/c");
    auto document = mapped(mapping);
    REQUIRE(document["empty_streams"].Size() == 2);
    CHECK(std::string(document["empty_streams"][0].GetString()) == "refunds");
    CHECK(std::string(document["empty_streams"][1].GetString()) == "disputes");
    CHECK(mapping.warnings.empty());

    auto legacy = config::map_acceptance_test_config(R"(connector_image: airbyte/source-x:dev
tests:
  basic_read:
    - config_path: "secrets/config.json"
      empty_streams: ["refunds"]
)",
                                                     "legacy.yml", "/l");
    CHECK(std::string(mapped(legacy)["empty_streams"][0].GetString()) == "refunds");
    CHECK_FALSE(mapped(mapping).HasMember("volatile_fields"));
}

TEST_CASE("a read test with another config lends conform none of its expectations") {
    // source-tempo 0.3.1: its second basic_read test reads with a config under which two streams
    // are empty. Before 2026-12-08 those streams were allowed no record in conform's read, which
    // uses the first config: a read that lost them passed sg.streams_have_records.
    auto mapping = config::map_acceptance_test_config(R"(connector_image: airbyte/source-x:dev
acceptance_tests:
  basic_read:
    tests:
      - config_path: secrets/config.json
        expect_records:
          path: integration_tests/expected_records.jsonl
      - config_path: secrets/config_no_worklogs.json
        empty_streams:
          - name: worklogs
        ignored_fields:
          accounts:
            - name: lead
        expect_records:
          path: integration_tests/other_records.jsonl
)",
                                                      "cat.yml", "/c");
    auto document = mapped(mapping);
    CHECK_FALSE(document.HasMember("empty_streams"));
    CHECK_FALSE(document.HasMember("volatile_fields"));
    CHECK(std::string(document["expected_records"]["path"].GetString())
              .ends_with("integration_tests/expected_records.jsonl"));
    CHECK(warns(mapping, "basic_read.tests[1].empty_streams"));
    CHECK(warns(mapping,
                "this test reads with secrets/config_no_worklogs.json, conform with "
                "secrets/config.json"));
}

TEST_CASE("a future state file is mapped; what conform does not use of it is reported") {
    auto mapping = config::map_acceptance_test_config(R"(connector_image: airbyte/source-x:dev
acceptance_tests:
  connection:
    tests:
      - config_path: secrets/config.json
  incremental:
    tests:
      - config_path: secrets/config.json
        future_state:
          future_state_path: integration_tests/abnormal_state.json
          missing_streams:
            - name: users
              bypass_reason: no cursor
          bypass_reason: slow
)",
                                                      "cat.yml", "/c");
    auto document = mapped(mapping);
    CHECK(std::string(document["future_state"].GetString()) ==
          "/c/integration_tests/abnormal_state.json");
    CHECK(warns(mapping,
                "cat.yml:11: acceptance_tests.incremental.tests[0].future_state.missing_streams: "
                "not honoured"));
    CHECK(warns(mapping,
                "cat.yml:14: acceptance_tests.incremental.tests[0].future_state.bypass_reason: "
                "not honoured: 'incremental.future_state' is bypassed (slow)"));
    CHECK_FALSE(warns(mapping, "future_state_path"));
    CHECK(mapping.warnings.size() == 2);

    auto legacy = config::map_acceptance_test_config(R"(connector_image: airbyte/source-x:dev
tests:
  connection:
    - config_path: "secrets/config.json"
  incremental:
    - config_path: "secrets/config.json"
      future_state_path: "integration_tests/abnormal_state.json"
)",
                                                     "legacy.yml", "/l");
    CHECK(std::string(mapped(legacy)["future_state"].GetString()) ==
          "/l/integration_tests/abnormal_state.json");
    CHECK(legacy.warnings.empty());
}

TEST_CASE("a spec_path whose file exists is the expected spec") {
    auto folder = std::filesystem::temp_directory_path() /
                  ("conform-acceptance-spec-" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder / "source_x");
    std::ofstream(folder / "source_x" / "spec.json") << "{}";
    auto mapping = config::map_acceptance_test_config(k_current, "cat.yml", folder);
    CHECK(std::string(mapped(mapping)["expected_spec"].GetString()) ==
          (folder / "source_x" / "spec.json").string());
    CHECK_FALSE(warns(mapping, "spec_path"));
    std::filesystem::remove_all(folder);
}

TEST_CASE("a spec_path the system cannot look up is warned of, not an internal error") {
    // A name longer than a file name may be (ENAMETOOLONG): found by fuzz_loaders.
    std::string text =
        "connector_image: airbyte/source-x:dev\n"
        "acceptance_tests:\n"
        "  spec:\n"
        "    tests:\n"
        "      - spec_path: \"" +
        std::string(5000, 'x') +
        "\"\n"
        "  connection:\n"
        "    tests:\n"
        "      - config_path: secrets/config.json\n";
    auto mapping = config::map_acceptance_test_config(text, "long.yml", "/l");
    CHECK(warns(mapping, "cannot be looked up ("));
    CHECK_FALSE(mapped(mapping).HasMember("expected_spec"));
}

TEST_CASE(
    "a section whose tests are null beside its bypass_reason has no tests (source-bing-ads)") {
    const char* text = R"(connector_image: airbyte/source-x:dev
acceptance_tests:
  connection:
    tests:
      - config_path: secrets/config.json
  incremental:
    tests:
    bypass_reason: "complex nested states"
)";
    auto mapping = config::map_acceptance_test_config(text, "bing.yml", "/b");
    CHECK(std::string(mapped(mapping)["config"].GetString()) == "/b/secrets/config.json");
    CHECK(warns(mapping, "bing.yml:8: acceptance_tests.incremental.bypass_reason"));
}

TEST_CASE("a file that gives no config maps without one, saying why") {
    const char* text = R"(connector_image: airbyte/source-x:dev
acceptance_tests:
  spec:
    tests:
      - spec_path: manifest.yaml
  connection:
    bypass_reason: "a builder contribution without secrets"
)";
    auto mapping = config::map_acceptance_test_config(text, "spec_only.yml", "/s");
    CHECK_FALSE(mapped(mapping).HasMember("config"));
    CHECK(mapping.no_config.find("spec_only.yml gives no connector config") != std::string::npos);
    CHECK(mapping.no_config.find("\"a builder contribution without secrets\"") !=
          std::string::npos);
    auto with_config = config::map_acceptance_test_config(k_current, "cat.yml", "/c");
    CHECK(with_config.no_config.empty());
}

TEST_CASE("a wrongly typed value or a missing image is bad input with its line") {
    auto error_of = [](const char* text) {
        try {
            config::map_acceptance_test_config(text, "bad.yml", "/b");
        } catch (const Error& error) {
            CHECK(error.kind() == ErrorKind::input);
            return std::string(error.what());
        }
        return std::string("(no error)");
    };
    auto wrong_type = error_of(
        "connector_image: x\nacceptance_tests:\n  connection:\n    tests:\n"
        "      - config_path: c.json\n        timeout_seconds: soon\n");
    CHECK(wrong_type.find("bad.yml:6") != std::string::npos);
    CHECK(wrong_type.find("timeout_seconds") != std::string::npos);
    CHECK(error_of("acceptance_tests: {}\n").find("connector_image") != std::string::npos);
    CHECK_FALSE(config::map_acceptance_test_config("connector_image: x\n", "bare.yml", "/b")
                    .no_config.empty());
}

TEST_CASE("several configured catalogs are merged: a stream read incrementally anywhere is") {
    // source-braze: basic_read's catalog reads campaigns_analytics in full refresh, the
    // incremental tests' catalog incrementally, and adds nothing else.
    auto merged = json::parse_json_text(
        config::merge_configured_catalogs(
            {R"({"streams":[{"stream":{"name":"campaigns"},"sync_mode":"full_refresh"},)"
             R"({"stream":{"name":"analytics"},"sync_mode":"full_refresh"}]})",
             R"({"streams":[{"stream":{"name":"analytics"},"sync_mode":"incremental",)"
             R"("cursor_field":["date"]},{"stream":{"name":"campaigns"},)"
             R"("sync_mode":"full_refresh","destination_sync_mode":"append"},)"
             R"({"stream":{"name":"kpis","namespace":"x"},"sync_mode":"incremental"}]})"},
            {"basic.json", "incremental.json"}),
        "merged");
    const auto& streams = merged["streams"];
    REQUIRE(streams.Size() == 3);
    CHECK(std::string(streams[0]["stream"]["name"].GetString()) == "campaigns");
    CHECK_FALSE(streams[0].HasMember("destination_sync_mode"));  // the first entry kept
    CHECK(std::string(streams[1]["sync_mode"].GetString()) == "incremental");
    CHECK(std::string(streams[2]["stream"]["namespace"].GetString()) == "x");

    auto message = std::string();
    try {
        config::merge_configured_catalogs({R"({"streams":[]})", R"([1])"}, {"a.json", "b.json"});
    } catch (const Error& error) {
        message = error.what();
    }
    CHECK(message.find("b.json: expected a configured catalog") != std::string::npos);
}

TEST_CASE("a second configured catalog is named as merged, and listed") {
    const char* text = R"(connector_image: airbyte/source-x:dev
acceptance_tests:
  basic_read:
    tests:
      - config_path: secrets/config.json
        configured_catalog_path: integration_tests/configured_catalog.json
  incremental:
    tests:
      - config_path: secrets/config.json
        configured_catalog_path: integration_tests/configured_catalog_incremental.json
  full_refresh:
    tests:
      - config_path: secrets/config.json
        configured_catalog_path: integration_tests/configured_catalog.json
)";
    auto mapping = config::map_acceptance_test_config(text, "cat.yml", "/c");
    CHECK(std::string(mapped(mapping)["catalog"].GetString()) ==
          "/c/integration_tests/configured_catalog.json");
    REQUIRE(mapping.catalogs.size() == 2);
    CHECK(mapping.catalogs[1] == "/c/integration_tests/configured_catalog_incremental.json");
    CHECK(warns(mapping,
                "cat.yml:10: acceptance_tests.incremental.tests[0]."
                "configured_catalog_path: not honoured: conform runs every scenario with "
                "one catalog: this one is merged with"));
}
