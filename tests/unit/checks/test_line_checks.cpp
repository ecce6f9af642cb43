#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "checks/checks.hpp"
#include "json/bounded_parse.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "protocol/analyzer.hpp"
#include "protocol/catalog.hpp"
#include "protocol/secrets.hpp"

using namespace conform;
using namespace conform::protocol;

namespace {

// users: incremental on /updated with primary key /id; app.logs: full refresh, no key, /seen_at
// volatile.
constexpr std::string_view k_catalog = R"({"streams":[
  {"stream":{"name":"users","json_schema":{"type":"object","properties":{
      "id":{"type":["integer","string","null"]},
      "updated":{"type":"string","format":"date-time"},
      "name":{"type":"string"}}},
    "supported_sync_modes":["full_refresh","incremental"]},
   "sync_mode":"incremental","cursor_field":["updated"],"primary_key":[["id"]],
   "destination_sync_mode":"append"},
  {"stream":{"name":"logs","namespace":"app","json_schema":{"type":"object"},
    "supported_sync_modes":["full_refresh"]},
   "sync_mode":"full_refresh","destination_sync_mode":"overwrite"}
]})";

constexpr std::string_view k_user_line =
    R"({"type":"RECORD","record":{"stream":"users",)"
    R"("data":{"id":1,"updated":"2024-01-01T00:00:00Z","name":"a"},"emitted_at":1700000000000}})";

Catalog test_catalog() {
    auto document = json::parse_json_text(k_catalog, "catalog.json");
    return load_catalog(document, "catalog.json", {{"logs", {"/seen_at"}}});
}

// A RECORD line; `name_space` is written when not empty.
std::string record_line(std::string_view stream, std::string_view data,
                        std::string_view emitted_at = "1700000000000",
                        std::string_view name_space = "") {
    std::string namespace_member =
        name_space.empty() ? "" : fmt::format(R"("namespace":"{}",)", name_space);
    return fmt::format(R"({{"type":"RECORD","record":{{"stream":"{}",{})"
                       R"("data":{},"emitted_at":{}}}}})",
                       stream, namespace_member, data, emitted_at);
}

std::string log_record_line(std::string_view data) {
    return record_line("logs", data, "1700000000000", "app");
}

std::string state_line(std::string_view state) {
    return fmt::format(R"({{"type":"STATE","state":{}}})", state);
}

// An AirbyteStateMessage's `state` of type STREAM.
std::string stream_state(std::string_view stream, std::string_view state) {
    return fmt::format(R"({{"type":"STREAM","stream":{{"stream_descriptor":{{"name":"{}"}},)"
                       R"("stream_state":{}}}}})",
                       stream, state);
}

Observation analyze_once(const std::vector<std::string>& lines, AnalyzerSetup setup) {
    Analyzer analyzer(std::move(setup));
    std::uint64_t number = 0;
    for (const auto& line : lines) {
        analyzer.on_stdout_line(line, ++number, false);
    }
    process::RunResult result;
    result.exit.code = 0;
    return analyzer.finish(std::move(result));
}

// Whether two observations of the same lines say the same about them, record for record.
void check_same_observation(const Observation& left, const Observation& right) {
    CHECK(left.lines == right.lines);
    CHECK(left.invalid_lines == right.invalid_lines);
    CHECK(left.type_counts == right.type_counts);
    CHECK(left.last_record_line == right.last_record_line);
    CHECK(left.last_state_line == right.last_state_line);
    CHECK(left.records_without_key == right.records_without_key);
    CHECK(left.merge_states == right.merge_states);
    CHECK(left.unprojected_count == right.unprojected_count);
    CHECK(left.error_log_count == right.error_log_count);
    CHECK(left.stream_statuses == right.stream_statuses);
    REQUIRE(left.tallies.size() == right.tallies.size());
    for (const auto& [id, tally] : left.tallies) {
        CAPTURE(id);
        const auto& other = right.tallies.at(id);
        CHECK(tally.judged == other.judged);
        CHECK(tally.failures == other.failures);
        CHECK(tally.advisories == other.advisories);
        REQUIRE(tally.examples.size() == other.examples.size());
        for (std::size_t i = 0; i < tally.examples.size(); ++i) {
            CHECK(tally.examples[i].message == other.examples[i].message);
            CHECK(tally.examples[i].line == other.examples[i].line);
            CHECK(tally.examples[i].excerpt == other.examples[i].excerpt);
        }
    }
    REQUIRE(left.kept.size() == right.kept.size());
    for (std::size_t i = 0; i < left.kept.size(); ++i) {
        CHECK(left.kept[i].line == right.kept[i].line);
        CHECK(left.kept[i].json == right.kept[i].json);
    }
    REQUIRE(left.records.size() == right.records.size());
    for (std::size_t i = 0; i < left.records.size(); ++i) {
        auto a = left.records[i];
        auto b = right.records[i];
        CAPTURE(i);
        CHECK(a.identity == b.identity);
        CHECK(a.content == b.content);
        CHECK(a.projected == b.projected);
        CHECK(a.line == b.line);
        CHECK(a.checkpoint == b.checkpoint);
        CHECK(a.stream == b.stream);
        CHECK(a.key == b.key);
        CHECK(a.key_missing == b.key_missing);
    }
    REQUIRE(left.checkpoints.size() == right.checkpoints.size());
    for (std::size_t i = 0; i < left.checkpoints.size(); ++i) {
        auto a = left.checkpoints[i];
        auto b = right.checkpoints[i];
        CHECK(a.line == b.line);
        CHECK(a.records_before == b.records_before);
        CHECK(a.state_file == b.state_file);
        CHECK(a.materialized == b.materialized);
        CHECK(a.streams == b.streams);
    }
}

// Feeds `lines` (numbered from 1) to an analyzer and returns what it observed: prepared on the
// caller's thread alone, and again on a worker too, which must observe the same.
Observation analyze(const std::vector<std::string>& lines, AnalyzerSetup setup) {
    auto batched_setup = setup;
    batched_setup.prepare_on_worker = true;
    setup.prepare_on_worker = false;
    auto at_once = analyze_once(lines, std::move(setup));
    auto batched = analyze_once(lines, std::move(batched_setup));
    check_same_observation(at_once, batched);
    return at_once;
}

// The per-line code of every per-message check (as a scenario listing them all runs it).
std::vector<const LineJudge*> every_judge() {
    const auto& checks = conform::checks::airbyte_checks();
    std::vector<std::string> ids;
    for (const auto& check : checks) {
        ids.emplace_back(check.info.id);
    }
    return suite::judges_of(checks, ids);
}

AnalyzerSetup setup_for(const Catalog& catalog) {
    AnalyzerSetup setup;
    setup.catalog = &catalog;
    setup.judges = every_judge();
    return setup;
}

Observation analyze(const std::vector<std::string>& lines, const Catalog& catalog) {
    return analyze(lines, setup_for(catalog));
}

std::vector<Finding> findings_of(const Observation& observation, std::string_view check) {
    auto found = observation.tallies.find(check);
    return found == observation.tallies.end() ? std::vector<Finding>{} : found->second.examples;
}

std::uint64_t count_of(const Observation& observation, const std::string& check) {
    auto found = observation.tallies.find(check);
    return found == observation.tallies.end() ? 0
                                              : found->second.failures + found->second.advisories;
}

// True when no judge saw anything wrong.
bool no_findings(const Observation& observation) {
    return std::all_of(observation.tallies.begin(), observation.tallies.end(),
                       [](const auto& tally) { return tally.second.examples.empty(); });
}

std::string canonical(std::string_view json_text) {
    return json::to_json(json::parse_json_text(json_text, "expected"));
}

}  // namespace

TEST_CASE("analyzer: a valid record passes every check") {
    auto catalog = test_catalog();
    auto observation = analyze({std::string(k_user_line)}, catalog);
    CHECK(no_findings(observation));
    CHECK(count_of(observation, "read.records_match_schema") == 0);
    CHECK(observation.lines == 1);
    CHECK(observation.invalid_lines == 0);
    CHECK(observation.count("RECORD") == 1);
    REQUIRE(observation.records.size() == 1);
    CHECK(observation.records[0].line == 1);
    CHECK(observation.records[0].stream == 0);
    CHECK(observation.records[0].key == "[1]");
    CHECK(observation.last_record_line == 1);
    CHECK(observation.process.exit.succeeded());
}

TEST_CASE("analyzer: a non-JSON line is io.json_lines with its line number and text") {
    auto catalog = test_catalog();
    auto observation =
        analyze({std::string(k_user_line), "Starting sync...", std::string(k_user_line)}, catalog);
    auto found = findings_of(observation, "io.json_lines");
    REQUIRE(found.size() == 1);
    CHECK(found[0].line == 2);
    CHECK(found[0].excerpt == "Starting sync...");
    CHECK(found[0].message == "not a JSON object: not an AirbyteMessage");
    CHECK(observation.invalid_lines == 1);
    CHECK(observation.lines == 3);
    CHECK(observation.records.size() == 2);
}

TEST_CASE("analyzer: JSON that is not one object per line is io.json_lines") {
    auto catalog = test_catalog();
    std::string log = R"({"type":"LOG","log":{"level":"INFO","message":"x"}})";
    auto observation = analyze({log + " " + log, "[1,2]", "\"text\"", "{\"type\":"}, catalog);
    CHECK(count_of(observation, "io.json_lines") == 4);
    CHECK(observation.invalid_lines == 4);
    CHECK(observation.count("LOG") == 0);
    auto found = findings_of(observation, "io.json_lines");
    REQUIRE(found.size() == 4);
    CHECK(found[0].line == 1);
    CHECK(found[3].line == 4);
}

TEST_CASE("analyzer: an over-long line is reported as truncated, not parsed") {
    auto catalog = test_catalog();
    Analyzer analyzer(setup_for(catalog));
    analyzer.on_stdout_line(R"({"type":"LOG","log":{"level":"INFO","mess)", 7, true);
    const auto& observation = analyzer.observation();
    auto found = findings_of(observation, "io.messages_valid");
    REQUIRE(found.size() == 1);
    CHECK(found[0].line == 7);
    CHECK(found[0].message.find("line too long") != std::string::npos);
    CHECK(observation.invalid_lines == 1);
    CHECK(count_of(observation, "io.json_lines") == 0);
}

TEST_CASE(
    "analyzer: a line nested past the limit is io.messages_valid's, naming it and the limit") {
    auto catalog = test_catalog();
    std::size_t arrays = conform::json::k_max_nesting;  // inside the message, record and data
    std::string deep =
        R"({"type":"RECORD","record":{"stream":"users","emitted_at":1,"data":{"a":)" +
        std::string(arrays, '[') + std::string(arrays, ']') + "}}}";
    std::string within =
        R"({"type":"RECORD","record":{"stream":"users","emitted_at":1,"data":{"a":)" +
        std::string(100, '[') + std::string(100, ']') + "}}}";
    auto observation = analyze({within, deep}, catalog);
    auto found = findings_of(observation, "io.messages_valid");
    REQUIRE(found.size() == 1);
    CHECK(found[0].line == 2);
    CHECK(found[0].message.find("nested more than 10000 levels deep") != std::string::npos);
    CHECK(observation.invalid_lines == 1);
    CHECK(observation.count("RECORD") == 1);
    CHECK(count_of(observation, "io.json_lines") == 0);
}

TEST_CASE("analyzer: an unknown message type is io.known_types and still counted") {
    auto catalog = test_catalog();
    auto observation = analyze({R"({"type":"VENDOR_THING","x":1})"}, catalog);
    auto found = findings_of(observation, "io.known_types");
    REQUIRE(found.size() == 1);
    CHECK(found[0].message == "unknown message type 'VENDOR_THING'");
    CHECK(found[0].line == 1);
    CHECK(observation.count("VENDOR_THING") == 1);
    CHECK(count_of(observation, "io.json_lines") == 0);
}

TEST_CASE("analyzer: an envelope violation is io.messages_valid with the path") {
    auto catalog = test_catalog();
    auto observation = analyze({R"({"type":"RECORD","record":{"stream":"users"}})",
                                R"({"type":"LOG","log":{"level":"INFO"}})"},
                               catalog);
    auto found = findings_of(observation, "io.messages_valid");
    REQUIRE(found.size() >= 2);
    CHECK(found.front().line == 1);
    CHECK(found.front().message.starts_with("not a valid AirbyteMessage: at '/record"));
    CHECK(found.back().line == 2);
    CHECK(observation.invalid_lines == 2);
    CHECK(observation.records.empty());
}

TEST_CASE("analyzer: a record for a stream not in the catalog is read.streams_configured") {
    auto catalog = test_catalog();
    auto observation = analyze({record_line("ghosts", R"({"id":1})"),
                                // logs is configured in namespace "app" only
                                record_line("logs", "{}", "1700000000000", "other")},
                               catalog);
    auto found = findings_of(observation, "read.streams_configured");
    REQUIRE(found.size() == 2);
    CHECK(found[0].message == "record for stream 'ghosts', which is not in the configured catalog");
    CHECK(found[0].line == 1);
    CHECK(found[1].line == 2);
    CHECK(observation.records.empty());
}

TEST_CASE("analyzer: a record whose namespace is absent matches the stream by name") {
    auto catalog = test_catalog();
    auto observation = analyze({record_line("logs", R"({"m":1})")}, catalog);
    CHECK(no_findings(observation));
    REQUIRE(observation.records.size() == 1);
    CHECK(observation.records[0].stream == 1);
}

TEST_CASE(
    "analyzer: a record that breaks its schema (format date-time) is read.records_match_schema") {
    auto catalog = test_catalog();
    auto observation =
        analyze({record_line("users", R"({"id":1,"updated":"yesterday at noon"})"),
                 record_line("users", R"({"id":2,"updated":"2024-01-01T00:00:00Z","name":5})")},
                catalog);
    auto found = findings_of(observation, "read.records_match_schema");
    REQUIRE(found.size() == 2);
    CHECK(found[0].line == 1);
    CHECK(found[0].message.starts_with("users record does not match its schema: at '/updated'"));
    CHECK(found[1].message.starts_with("users record does not match its schema: at '/name'"));
    // The record is still remembered: only its content is wrong.
    CHECK(observation.records.size() == 2);
}

TEST_CASE("analyzer: emitted_at as a float or in seconds is read.emitted_at_ms") {
    auto catalog = test_catalog();
    auto observation = analyze(
        {record_line("users", R"({"id":1,"updated":"2024-01-01T00:00:00Z"})", "1700000000000.5"),
         record_line("users", R"({"id":2,"updated":"2024-01-01T00:00:00Z"})", "1700000000"),
         record_line("users", R"({"id":3,"updated":"2024-01-01T00:00:00Z"})", "1700000000000")},
        catalog);
    auto found = findings_of(observation, "read.emitted_at_ms");
    REQUIRE(found.size() == 2);
    CHECK(found[0].line == 1);
    CHECK(found[0].message.find("/record/emitted_at") != std::string::npos);
    CHECK(found[1].line == 2);
    CHECK(found[1].message == "emitted_at 1700000000 looks like seconds, not milliseconds");
    CHECK(count_of(observation, "io.messages_valid") == 0);
}

TEST_CASE("analyzer: a null or missing primary key is read.primary_key_present") {
    auto catalog = test_catalog();
    auto observation =
        analyze({record_line("users", R"({"id":null,"updated":"2024-01-01T00:00:00Z"})"),
                 record_line("users", R"({"updated":"2024-01-01T00:00:00Z"})")},
                catalog);
    auto found = findings_of(observation, "read.primary_key_present");
    REQUIRE(found.size() == 2);
    CHECK(found[0].message == "users record has a null primary-key field '/id'");
    CHECK(found[0].line == 1);
    CHECK(found[1].message == "users record has no primary-key field '/id'");
    REQUIRE(observation.records.size() == 2);
    // Without a key the record is identified by its content.
    CHECK(observation.records[0].identity == observation.records[0].content);
    CHECK(observation.records[0].key.empty());
}

TEST_CASE("analyzer: an incremental record without its cursor is read.cursor_present") {
    auto catalog = test_catalog();
    auto observation = analyze({record_line("users", R"({"id":1,"name":"a"})"),
                                log_record_line(R"({"no_cursor_needed":true})")},
                               catalog);
    auto found = findings_of(observation, "read.cursor_present");
    REQUIRE(found.size() == 1);
    CHECK(found[0].message == "users record has no cursor field '/updated'");
    CHECK(found[0].line == 1);
}

TEST_CASE("analyzer: the newest cursor is tracked and older records than the floor reported") {
    auto catalog = test_catalog();
    auto setup = setup_for(catalog);
    setup.cursor_floor = {CursorFloor{{std::nullopt, "2024-02-01T00:00:00Z"}}, std::nullopt};
    auto observation =
        analyze({record_line("users", R"({"id":1,"updated":"2024-03-01T00:00:00Z"})"),
                 record_line("users", R"({"id":2,"updated":"2024-01-01T00:00:00Z"})"),
                 record_line("users", R"({"id":3,"updated":"2024-02-01T00:00:00Z"})")},
                std::move(setup));
    auto found = findings_of(observation, "state.incremental_no_older");
    REQUIRE(found.size() == 1);
    CHECK(found[0].line == 2);
    CHECK(found[0].message ==
          "users record with cursor \"2024-01-01T00:00:00Z\" is older than the state's cursor "
          "\"2024-02-01T00:00:00Z\"");
    REQUIRE(observation.max_cursor.size() == 2);
    REQUIRE(observation.max_cursor[0]);
    CHECK(observation.max_cursor[0]->text == "2024-03-01T00:00:00Z");
    CHECK(!observation.max_cursor[1]);
}

TEST_CASE("analyzer: a floor that is not the state's cursor field only advises") {
    auto catalog = test_catalog();
    auto advice = [&catalog](CursorFloor::Origin origin) {
        auto setup = setup_for(catalog);
        setup.cursor_floor = {CursorFloor{{std::nullopt, "2024-02-01T00:00:00Z"}, origin},
                              std::nullopt};
        auto observation =
            analyze({record_line("users", R"({"id":2,"updated":"2024-01-01T00:00:00Z"})")},
                    std::move(setup));
        auto found = findings_of(observation, "state.incremental_no_older");
        REQUIRE(found.size() == 1);
        CHECK(found[0].advisory);
        return found[0].message;
    };
    CHECK(advice(CursorFloor::Origin::newest_record) ==
          "users record with cursor \"2024-01-01T00:00:00Z\" is older than the newest record of "
          "the read that emitted the state, \"2024-02-01T00:00:00Z\": conform could not read the "
          "state's own cursor, which may be older (per partition)");
    CHECK(advice(CursorFloor::Origin::state_date_time) ==
          "users record with cursor \"2024-01-01T00:00:00Z\" is older than "
          "\"2024-02-01T00:00:00Z\", the date-time the state keeps under another name than the "
          "cursor field's, taken for its cursor");
}

TEST_CASE("analyzer: each applied STATE is a checkpoint with its state file") {
    auto catalog = test_catalog();
    auto observation =
        analyze({std::string(k_user_line), state_line(stream_state("users", R"({"c":1})")),
                 std::string(k_user_line), std::string(k_user_line),
                 state_line(stream_state("users", R"({"c":2})"))},
                catalog);
    CHECK(no_findings(observation));
    REQUIRE(observation.checkpoints.size() == 2);
    CHECK(observation.checkpoints[0].line == 2);
    CHECK(observation.checkpoints[0].records_before == 1);
    CHECK(canonical(observation.checkpoints[0].state_file) ==
          canonical("[" + stream_state("users", R"({"c":1})") + "]"));
    CHECK(observation.checkpoints[1].line == 5);
    CHECK(observation.checkpoints[1].records_before == 3);
    CHECK(canonical(observation.checkpoints[1].state_file) ==
          canonical("[" + stream_state("users", R"({"c":2})") + "]"));
    CHECK(observation.checkpoints[0].materialized != observation.checkpoints[1].materialized);
    CHECK(observation.last_state_line == 5);
    REQUIRE(observation.records.size() == 3);
    CHECK(observation.records[0].checkpoint == 0);
    CHECK(observation.records[1].checkpoint == 1);
    CHECK(observation.records[2].checkpoint == 1);
}

TEST_CASE("analyzer: a legacy STATE's state file is its data") {
    auto catalog = test_catalog();
    auto observation = analyze({state_line(R"({"data":{"cursor":"a"}})")}, catalog);
    CHECK(no_findings(observation));
    REQUIRE(observation.checkpoints.size() == 1);
    CHECK(canonical(observation.checkpoints[0].state_file) == canonical(R"({"cursor":"a"})"));
    CHECK(observation.checkpoints[0].records_before == 0);
}

TEST_CASE("analyzer: a STATE changing shape mid-run is state.well_formed") {
    auto catalog = test_catalog();
    auto observation =
        analyze({state_line(R"({"data":{"cursor":"a"}})"), state_line(stream_state("users", "{}"))},
                catalog);
    auto found = findings_of(observation, "state.well_formed");
    REQUIRE(found.size() == 1);
    CHECK(found[0].line == 2);
    CHECK(found[0].message.find("legacy to per-stream") != std::string::npos);
}

TEST_CASE("analyzer: a merge STATE without data is merge.reduction_valid and no checkpoint") {
    auto catalog = test_catalog();
    auto observation =
        analyze({state_line(R"({"data":{"a":1}})"), state_line(R"({"merge":true})")}, catalog);
    auto found = findings_of(observation, "merge.reduction_valid");
    REQUIRE(found.size() == 1);
    CHECK(found[0].line == 2);
    CHECK(found[0].message.find("without \"data\"") != std::string::npos);
    REQUIRE(observation.checkpoints.size() == 1);
    CHECK(observation.checkpoints[0].line == 1);
}

TEST_CASE("analyzer: merge STATEs reduce into the checkpoint's state file") {
    auto catalog = test_catalog();
    auto observation = analyze({state_line(R"({"data":{"a":1,"b":{"c":2}}})"),
                                state_line(R"({"data":{"b":{"c":null,"d":3}},"merge":true})")},
                               catalog);
    CHECK(no_findings(observation));
    REQUIRE(observation.checkpoints.size() == 2);
    CHECK(canonical(observation.checkpoints[1].state_file) == canonical(R"({"a":1,"b":{"d":3}})"));
}

TEST_CASE("analyzer: a STREAM state for a stream outside the catalog is the source's own state") {
    // The protocol does not limit STREAM states to configured streams; the faros CDK keeps its
    // own pseudo-streams' state that way. It commits no configured stream's records.
    auto catalog = test_catalog();
    auto observation = analyze({state_line(stream_state("ghosts", "{}"))}, catalog);
    CHECK(findings_of(observation, "state.well_formed").empty());
    REQUIRE(observation.checkpoints.size() == 1);
    CHECK_FALSE(observation.checkpoints[0].all_streams);
    CHECK(observation.checkpoints[0].streams.empty());
}

TEST_CASE("analyzer: explicit nulls in optional protocol fields are valid (Python CDK)") {
    auto catalog = test_catalog();
    auto observation = analyze(
        {R"({"type":"TRACE","trace":{"type":"STREAM_STATUS","emitted_at":1796057845619.605,)"
         R"("stream_status":{"stream_descriptor":{"name":"users","namespace":null},)"
         R"("status":"STARTED"}}})",
         R"({"type":"RECORD","record":{"stream":"users","namespace":null,"data":{"id":1,)"
         R"("updated":"2024-01-01T00:00:00Z"},"emitted_at":1700000000000}})",
         R"({"type":"STATE","state":{"type":"STREAM","stream":{"stream_descriptor":{"name":)"
         R"("users","namespace":null},"stream_state":{"__ab_full_refresh_state_message":true}},)"
         R"("sourceStats":{"recordCount":1.0}}})"},
        catalog);
    CHECK(no_findings(observation));
    CHECK(observation.records.size() == 1);
    REQUIRE(observation.checkpoints.size() == 1);
    CHECK(observation.checkpoints[0].streams == std::vector<std::uint32_t>{0});
}

TEST_CASE("analyzer: a required field that is null still breaks the envelope, once") {
    auto catalog = test_catalog();
    auto observation = analyze(
        {R"({"type":"RECORD","record":{"stream":null,"data":{},"emitted_at":1}})"}, catalog);
    CHECK(count_of(observation, "io.messages_valid") >= 1);
    CHECK(observation.records.empty());
}

TEST_CASE("analyzer: a STATE the envelope dislikes is still reduced: no cascade") {
    auto catalog = test_catalog();
    // "type" is not one of the enum's values, but the reducer still reads the legacy data.
    auto observation =
        analyze({state_line(R"({"type":"LEGACY","data":{"a":1},"sourceStats":"odd"})")}, catalog);
    CHECK(observation.checkpoints.size() == 1);
    CHECK(count_of(observation, "state.well_formed") == 1);  // reported once
}

TEST_CASE("analyzer: a secret on stdout or stderr is secrets.not_leaked and never shown") {
    auto catalog = test_catalog();
    Secrets secrets({"hunter2-password"});
    auto setup = setup_for(catalog);
    setup.secrets = &secrets;
    Analyzer analyzer(std::move(setup));
    analyzer.on_stdout_line(
        R"({"type":"LOG","log":{"level":"INFO","message":"connecting with hunter2-password"}})", 1,
        false);
    analyzer.on_stdout_line("plain hunter2-password text", 2, false);
    process::RunResult result;
    result.stderr_text = "debug: password=hunter2-password\n";
    auto observation = analyzer.finish(std::move(result));

    auto found = findings_of(observation, "secrets.not_leaked");
    REQUIRE(found.size() == 3);
    CHECK(found[0].line == 1);
    CHECK(found[1].line == 2);
    CHECK(found[2].line == 0);
    CHECK(found[2].message == "a secret config value appears on stderr");
    for (const auto& [check, tally] : observation.tallies) {
        for (const auto& finding : tally.examples) {
            CHECK(finding.excerpt.find("hunter2-password") == std::string::npos);
            CHECK(finding.message.find("hunter2-password") == std::string::npos);
        }
    }
    CHECK(found[0].excerpt.find("connecting with **********") != std::string::npos);
    // The non-JSON line's own finding shows it redacted too.
    auto json_lines = findings_of(observation, "io.json_lines");
    REQUIRE(json_lines.size() == 1);
    CHECK(json_lines[0].excerpt == "plain ********** text");
    CHECK(observation.process.stderr_text == "debug: password=**********\n");
}

TEST_CASE("analyzer: a CONTROL message's config carries its secrets: not a leak") {
    // source-gitlab 3.0.0 migrating a deprecated config: the platform persists what it sends.
    auto catalog = test_catalog();
    Secrets secrets({"hunter2-password"});
    auto setup = setup_for(catalog);
    setup.secrets = &secrets;
    Analyzer analyzer(std::move(setup));
    analyzer.on_stdout_line(
        R"({"type":"CONTROL","control":{"type":"CONNECTOR_CONFIG","emitted_at":1.7e12,)"
        R"("connectorConfig":{"config":{"access_token":"hunter2-password"}}}})",
        1, false);
    auto observation = analyzer.finish(process::RunResult{});
    CHECK(findings_of(observation, "secrets.not_leaked").empty());
}

TEST_CASE("analyzer: identity comes from the primary key, content ignores volatile fields") {
    auto catalog = test_catalog();
    auto observation =
        analyze({record_line("users", R"({"id":7,"updated":"2024-01-01T00:00:00Z","name":"a"})"),
                 record_line("users", R"({"name":"b","id":7,"updated":"2024-01-01T00:00:00Z"})"),
                 record_line("users", R"({"updated":"2024-01-01T00:00:00Z","id":7,"name":"a"})"),
                 record_line("users", R"({"id":8,"updated":"2024-01-01T00:00:00Z","name":"a"})"),
                 log_record_line(R"({"m":"x","seen_at":"10:00"})"),
                 log_record_line(R"({"seen_at":"11:30","m":"x"})"),
                 log_record_line(R"({"m":"y","seen_at":"10:00"})")},
                catalog);
    CHECK(no_findings(observation));
    const auto& records = observation.records;
    REQUIRE(records.size() == 7);
    CHECK(records[0].identity == records[1].identity);
    CHECK(records[0].content != records[1].content);
    CHECK(records[0].content == records[2].content);
    CHECK(records[0].identity != records[3].identity);
    CHECK(records[3].key == "[8]");
    // No primary key: identity is the content, and seen_at is volatile.
    CHECK(records[4].identity == records[4].content);
    CHECK(records[4].content == records[5].content);
    CHECK(records[4].content != records[6].content);
    CHECK(records[4].stream == 1);
    // No projections applied: projected equals content.
    CHECK(records[0].projected == records[0].content);
}

TEST_CASE("analyzer: applied projections change the projected digest only") {
    auto catalog = test_catalog();
    auto setup = setup_for(catalog);
    setup.apply_projections = {{{"name", "/profile/name"}}, {}};
    auto observation = analyze(
        {record_line("users", R"({"id":1,"updated":"2024-01-01T00:00:00Z","name":"a"})"),
         record_line("users",
                     R"({"id":1,"updated":"2024-01-01T00:00:00Z","profile":{"name":"a"}})")},
        std::move(setup));
    REQUIRE(observation.records.size() == 2);
    CHECK(observation.records[0].projected != observation.records[0].content);
    CHECK(observation.records[0].projected == observation.records[1].content);
}

namespace {

// Lines nested `depth` levels inside their messages: an array, records and a STATE.
std::vector<std::string> deeply_nested_lines(std::size_t depth) {
    std::string deep = std::string(depth, '[') + std::string(depth, ']');
    std::string deep_object;
    for (std::size_t i = 0; i < depth; ++i) {
        deep_object += "{\"a\":";
    }
    deep_object += "1" + std::string(depth, '}');
    return {deep, log_record_line("{\"x\":" + deep + "}"),
            record_line("users", "{\"id\":1,\"name\":" + deep + "}"), log_record_line(deep_object),
            state_line("{\"data\":" + deep_object + "}")};
}

}  // namespace

TEST_CASE("analyzer: lines nested as deep as the parser reads are analysed without a crash") {
    auto catalog = test_catalog();
    // The envelope adds up to four levels to what the lines nest.
    auto observation = analyze(deeply_nested_lines(conform::json::k_max_nesting - 4), catalog);
    CHECK(observation.lines == 5);
    CHECK(findings_of(observation, "io.json_lines").size() == 1);
    CHECK(count_of(observation, "io.messages_valid") == 0);
    CHECK(observation.records.size() == 3);
    CHECK(count_of(observation, "read.records_match_schema") >= 1);
    CHECK(observation.checkpoints.size() == 1);
}

TEST_CASE("analyzer: lines nested far deeper are io.messages_valid's findings, not analysed") {
    auto catalog = test_catalog();
    auto observation = analyze(deeply_nested_lines(100'000), catalog);
    CHECK(observation.lines == 5);
    CHECK(count_of(observation, "io.messages_valid") == 5);
    CHECK(count_of(observation, "io.json_lines") == 0);
    CHECK(observation.records.empty());
    CHECK(observation.checkpoints.empty());
}

TEST_CASE("analyzer: examples are capped per check but every finding is counted") {
    auto catalog = test_catalog();
    std::vector<std::string> lines;
    for (int i = 0; i < 20; ++i) {
        lines.push_back(fmt::format("garbage {}", i));
        lines.push_back(record_line("ghosts", "{}"));
    }
    auto setup = setup_for(catalog);
    setup.examples_per_check = 3;
    auto observation = analyze(lines, std::move(setup));
    CHECK(count_of(observation, "io.json_lines") == 20);
    CHECK(count_of(observation, "read.streams_configured") == 20);
    auto found = findings_of(observation, "io.json_lines");
    REQUIRE(found.size() == 3);
    CHECK(found[0].excerpt == "garbage 0");
    CHECK(found[2].excerpt == "garbage 2");
    CHECK(findings_of(observation, "read.streams_configured").size() == 3);
    CHECK(observation.invalid_lines == 20);
}

TEST_CASE("analyzer: small messages are kept whole, records are not") {
    auto catalog = test_catalog();
    std::string spec = R"({"type":"SPEC","spec":{"connectionSpecification":{"type":"object"}}})";
    auto observation = analyze({std::string(k_user_line), spec}, catalog);
    CHECK(no_findings(observation));
    REQUIRE(observation.kept.size() == 1);
    CHECK(observation.kept[0].type == "SPEC");
    CHECK(observation.kept[0].line == 2);
    CHECK(observation.kept[0].json == spec);
    CHECK(observation.first_kept("SPEC") == &observation.kept[0]);
    CHECK(observation.first_kept("RECORD") == nullptr);
}

TEST_CASE("analyzer: records after the mark are counted") {
    auto catalog = test_catalog();
    Analyzer analyzer(setup_for(catalog));
    analyzer.on_stdout_line(k_user_line, 1, false);
    analyzer.set_mark();
    analyzer.on_stdout_line(k_user_line, 2, false);
    analyzer.on_stdout_line(k_user_line, 3, false);
    CHECK(analyzer.observation().mark_set);
    CHECK(analyzer.observation().records_after_mark == 2);
}

TEST_CASE("analyzer: lines prepared on a worker, in batches, are judged as if one by one") {
    auto catalog = test_catalog();
    std::vector<std::string> lines;
    std::string long_name(200 * 1024, 'n');  // longer than a batch holds: judged on its own
    // Batched, but a few of these fill the bytes the batches in flight may hold.
    std::string big_name(100 * 1024, 'b');
    for (int i = 0; i < 3000; ++i) {
        std::string updated = fmt::format("2024-01-{:02}T00:00:00Z", 1 + i % 28);
        switch (i % 13) {
            case 0:
                lines.push_back(state_line(stream_state("users", fmt::format(R"({{"n":{}}})", i))));
                break;
            case 1:
                lines.push_back(record_line("users", fmt::format(R"({{"id":"x{}","name":5}})", i)));
                break;
            case 2:
                lines.push_back(i % 2 == 0 ? "{not json" : R"(["an array"])");
                break;
            case 3:
                lines.push_back(
                    log_record_line(fmt::format(R"({{"a":{},"a":2,"seen_at":{}}})", i, i)));
                break;
            case 4:
                lines.push_back(record_line("nowhere", "{}"));
                break;
            case 5:
                lines.push_back(R"({"type":"LOG","log":{"level":"ERROR","message":"boom"}})");
                break;
            case 6:
                lines.push_back(record_line(
                    "users", fmt::format(R"({{"id":null,"updated":"{}"}})", updated), "1.5"));
                break;
            default:
                lines.push_back(record_line(
                    "users",
                    fmt::format(R"({{"id":{},"updated":"{}","name":"{}"}})", i % 500, updated,
                                i == 1000 ? long_name : (i % 41 == 0 ? big_name : "u"))));
        }
    }
    // Run through twice, so that the observation is compared with the one judged line by line.
    auto observation = analyze(lines, setup_for(catalog));
    CHECK(observation.lines == lines.size());
    CHECK(count_of(observation, "read.records_match_schema") > 0);
    CHECK(count_of(observation, "io.json_lines") > 0);
    CHECK(observation.checkpoints.size() > 200);

    SUBCASE("a mark judges the lines before it first") {
        auto setup = setup_for(catalog);
        setup.prepare_on_worker = true;
        Analyzer analyzer(std::move(setup));
        for (std::uint64_t number = 1; number <= 700; ++number) {
            analyzer.on_stdout_line(k_user_line, number, false);
        }
        analyzer.set_mark();
        analyzer.on_stdout_line(k_user_line, 701, false);
        analyzer.on_stdout_line(k_user_line, 702, false);
        CHECK(analyzer.observation().records_after_mark == 2);
        CHECK(analyzer.observation().mark_line == 700);
        CHECK(analyzer.observation().count("RECORD") == 702);
    }
}

TEST_CASE("analyzer: without a catalog records are counted but not checked against streams") {
    AnalyzerSetup setup;
    setup.judges = every_judge();
    auto observation = analyze({record_line("anything", R"({"x":1})"), "{bad"}, std::move(setup));
    CHECK(observation.count("RECORD") == 1);
    CHECK(observation.records.empty());
    CHECK(count_of(observation, "read.streams_configured") == 0);
    CHECK(count_of(observation, "io.json_lines") == 1);
}

TEST_CASE("cursor value: numbers and strings compare within their kind only") {
    CursorValue one{1.0, std::nullopt};
    CursorValue two{2.0, std::nullopt};
    CursorValue a{std::nullopt, "a"};
    CursorValue b{std::nullopt, "b"};
    CHECK(one.compare(two) == -1);
    CHECK(two.compare(one) == 1);
    CHECK(one.compare(one) == 0);
    CHECK(a.compare(b) == -1);
    CHECK(!one.compare(a).has_value());
    CHECK(one.describe() == "1");
    CHECK(a.describe() == "\"a\"");
}

TEST_CASE("analyzer: invalid UTF-8 is rejected as not valid JSON") {
    auto catalog = test_catalog();
    std::string line = record_line("users", "{\"id\":1,\"name\":\"a\xff\xfe\"}");
    auto observation = analyze({line}, catalog);
    auto found = findings_of(observation, "io.messages_valid");
    REQUIRE(found.size() == 1);
    CHECK(found[0].message.find("invalid UTF-8") != std::string::npos);
    CHECK(observation.records.empty());
}

TEST_CASE("analyzer: valid JSON it cannot read gets an accurate message, not 'not JSON'") {
    auto catalog = test_catalog();
    std::string huge_integer(100000, '7');
    auto observation = analyze({record_line("users", R"({"id":1e400})"),
                                record_line("users", "{\"id\":" + huge_integer + "}"),
                                record_line("users", R"({"id":1,"name":"\ud800"})")},
                               catalog);
    auto found = findings_of(observation, "io.json_lines");
    REQUIRE(found.size() == 3);
    CHECK(found[0].message.find("beyond the range of a 64-bit float") != std::string::npos);
    CHECK(found[1].message.find("beyond the range of a 64-bit float") != std::string::npos);
    CHECK(found[2].message.find("lone UTF-16 surrogate") != std::string::npos);
    for (const auto& finding : found) {
        CHECK(finding.message.find("not a JSON object") == std::string::npos);
    }
}

TEST_CASE("analyzer: duplicate keys are flagged at SHOULD level and the message still read") {
    auto catalog = test_catalog();
    auto observation =
        analyze({record_line("users", R"({"id":1,"name":"a","name":"b"})")}, catalog);
    auto found = findings_of(observation, "io.json_lines");
    REQUIRE(found.size() == 1);
    CHECK(found[0].message.find("duplicate key \"name\"") != std::string::npos);
    CHECK(observation.records.size() == 1);
    std::string many = "{";
    for (int i = 0; i < 40; ++i) {
        many += fmt::format("\"k{}\":{},", i, i);
    }
    many += "\"k7\":0}";
    auto wide = analyze({record_line("logs", many, "1700000000000", "app")}, catalog);
    REQUIRE(findings_of(wide, "io.json_lines").size() == 1);
    CHECK(findings_of(wide, "io.json_lines")[0].message.find("\"k7\"") != std::string::npos);
}

TEST_CASE("analyzer: more than 65,535 streams do not wrap the stream index") {
    constexpr int k_streams = 70000;
    std::string text = R"({"streams":[)";
    for (int i = 0; i < k_streams; ++i) {
        text += fmt::format(R"({{"stream":{{"name":"s{}","json_schema":{{"type":"object"}},)"
                            R"("supported_sync_modes":["full_refresh"]}},)"
                            R"("sync_mode":"full_refresh","destination_sync_mode":"overwrite"}})",
                            i);
        text += i + 1 < k_streams ? "," : "]}";
    }
    auto document = json::parse_json_text(text, "catalog.json");
    auto catalog = load_catalog(document, "catalog.json", {});
    auto observation = analyze({record_line("s69999", R"({"a":1})")}, catalog);
    REQUIRE(observation.records.size() == 1);
    CHECK(observation.records[0].stream == 69999);
    CHECK(no_findings(observation));
}

TEST_CASE(
    "analyzer: sourceStats.recordCount is state.record_counts, per stream since its last "
    "STATE") {
    auto catalog = test_catalog();
    auto user = [](int id) {
        return record_line("users",
                           fmt::format(R"({{"id":{},"updated":"2024-01-0{}T00:00:00Z"}})", id, id));
    };
    auto counted_state = [](std::string_view stream, double count) {
        auto state = stream_state(stream, R"({"cursor":"x"})");
        state.insert(state.size() - 1,
                     fmt::format(R"(,"sourceStats":{{"recordCount":{}}})", count));
        return state_line(state);
    };
    auto observation =
        analyze({user(1), user(2), log_record_line("{}"), counted_state("users", 2), user(3),
                 counted_state("users", 2), state_line(stream_state("users", "{}"))},
                catalog);
    auto found = findings_of(observation, "state.record_counts");
    REQUIRE(found.size() == 1);
    CHECK(found[0].line == 6);
    CHECK(found[0].message ==
          "sourceStats.recordCount is 2 but 1 RECORD(s) of its stream came since the previous "
          "STATE of that stream");
    CHECK(observation.tallies.at("state.record_counts").judged == 2);
}
