#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <string>
#include <vector>

#include "diff/change.hpp"
#include "diff/schema_diff.hpp"
#include "diff/verdicts.hpp"
#include "json/parse.hpp"

using namespace conform;
using namespace conform::diff;

namespace {

constexpr const char* k_spec = R"({
  "type": "object", "required": ["api_key"],
  "properties": {
    "api_key": {"type": "string", "airbyte_secret": true},
    "count": {"type": "integer"},
    "mode": {"type": "string", "enum": ["a", "b"]},
    "auth": {"type": "object", "oneOf": [
      {"properties": {"kind": {"const": "oauth"}, "token": {"type": "string"}}},
      {"properties": {"kind": {"const": "key"}, "key": {"type": "string"}}}
    ]}
  }
})";

constexpr const char* k_catalog = R"({"streams": [
  {"name": "users", "json_schema": {"properties": {
      "id": {"type": "integer"}, "score": {"type": ["number", "null"]},
      "kind": {"type": "string", "enum": ["x", "y"]},
      "at": {"type": "string", "format": "date-time"}}},
   "supported_sync_modes": ["full_refresh", "incremental"],
   "source_defined_primary_key": [["id"]], "default_cursor_field": ["at"]},
  {"name": "events", "json_schema": {"properties": {"id": {"type": "integer"}}},
   "supported_sync_modes": ["full_refresh"]}
]})";

// `text` with every `from` replaced once, to make a target version.
std::string edited(std::string text,
                   const std::vector<std::pair<std::string, std::string>>& edits) {
    for (const auto& [from, to] : edits) {
        auto at = text.find(from);
        REQUIRE_MESSAGE(at != std::string::npos, from);
        text.replace(at, from.size(), to);
    }
    return text;
}

std::vector<Change> spec_changes(const std::string& target) {
    auto before = json::parse_json_text(k_spec, "control");
    auto after = json::parse_json_text(target, "target");
    return diff_spec(before, after);
}

std::vector<Change> catalog_changes(const std::string& target) {
    auto before = json::parse_json_text(k_catalog, "control");
    auto after = json::parse_json_text(target, "target");
    return diff_catalog(before, after);
}

// "rule@where!" for a breaking change, "rule@where" for a harmless one, sorted.
std::vector<std::string> summary(const std::vector<Change>& changes) {
    std::vector<std::string> lines;
    for (const auto& change : changes) {
        lines.push_back(change.rule + "@" + change.where + (change.breaking ? "!" : ""));
    }
    std::sort(lines.begin(), lines.end());
    return lines;
}

using Lines = std::vector<std::string>;

}  // namespace

TEST_CASE("identical spec and catalog have no changes") {
    CHECK(spec_changes(k_spec).empty());
    CHECK(catalog_changes(k_catalog).empty());
}

TEST_CASE("spec: each breaking change is reported as breaking") {
    CHECK(summary(spec_changes(edited(k_spec, {{R"("count": {"type": "integer"},)", ""}}))) ==
          Lines{"spec.property_removed@/count!"});
    CHECK(summary(spec_changes(edited(
              k_spec, {{R"("count": {"type": "integer"})", R"("count": {"type": "string"})"}}))) ==
          Lines{"spec.type_changed@/count!"});
    CHECK(summary(spec_changes(edited(k_spec, {{R"(["api_key"])", R"(["api_key", "count"])"}}))) ==
          Lines{"spec.newly_required@/count!"});
    CHECK(summary(spec_changes(edited(k_spec, {{R"(["a", "b"])", R"(["a"])"}}))) ==
          Lines{"spec.enum_narrowed@/mode!"});
    CHECK(summary(spec_changes(edited(k_spec, {{R"(, "airbyte_secret": true)", ""}}))) ==
          Lines{"spec.secret_unmarked@/api_key!"});
    CHECK(summary(spec_changes(edited(
              k_spec, {{R"("kind": {"const": "key"})", R"("kind": {"const": "apikey"})"}}))) ==
          Lines{"spec.discriminator_changed@/auth[kind=\"key\"]!",
                "spec.variant_added@/auth[kind=\"apikey\"]"});
    CHECK(summary(spec_changes(edited(
              k_spec, {{R"("kind": {"const": "oauth"})", R"("method": {"const": "oauth"})"},
                       {R"("kind": {"const": "key"})", R"("method": {"const": "key"})"}}))) ==
          Lines{"spec.discriminator_changed@/auth!"});
    CHECK(
        summary(spec_changes(edited(k_spec, {{R"("count": {"type": "integer"})",
                                              R"("count": {"type": "integer", "enum": [1]})"}}))) ==
        Lines{"spec.enum_introduced@/count!"});
}

TEST_CASE("spec: widening, new optional properties and enum values are harmless") {
    auto changes = spec_changes(edited(
        k_spec, {{R"("count": {"type": "integer"})", R"("count": {"type": ["number", "null"]})"},
                 {R"(["a", "b"])", R"(["a", "b", "c"])"},
                 {R"("properties": {
    "api_key")",
                  R"("properties": {
    "region": {"type": "string"}, "api_key")"}}));
    CHECK(summary(changes) == Lines{"spec.enum_extended@/mode", "spec.property_added@/region",
                                    "spec.type_widened@/count"});
    CHECK(breaking_count(changes) == 0);
}

TEST_CASE("catalog: each breaking change is reported as breaking") {
    CHECK(summary(catalog_changes(edited(k_catalog, {{R"(,
  {"name": "events", "json_schema": {"properties": {"id": {"type": "integer"}}},
   "supported_sync_modes": ["full_refresh"]})",
                                                      ""}}))) ==
          Lines{"catalog.stream_removed@events!"});
    CHECK(summary(catalog_changes(edited(k_catalog, {{R"(["number", "null"])", R"("number")"}}))) ==
          Lines{"catalog.type_narrowed@users:/score!"});
    CHECK(summary(catalog_changes(edited(k_catalog, {{R"("id": {"type": "integer"}, "score")",
                                                      R"("id": {"type": "string"}, "score")"}}))) ==
          Lines{"catalog.type_changed@users:/id!"});
    CHECK(summary(catalog_changes(edited(k_catalog, {{R"([["id"]])", R"([["kind"]])"}}))) ==
          Lines{"catalog.primary_key_changed@users!"});
    CHECK(summary(catalog_changes(edited(k_catalog, {{R"(["at"])", R"(["id"])"}}))) ==
          Lines{"catalog.cursor_changed@users!"});
    CHECK(summary(catalog_changes(edited(
              k_catalog, {{R"(["full_refresh", "incremental"])", R"(["full_refresh"])"}}))) ==
          Lines{"catalog.sync_mode_dropped@users!"});
    CHECK(summary(catalog_changes(edited(k_catalog, {{R"(["x", "y"])", R"(["x"])"}}))) ==
          Lines{"catalog.enum_narrowed@users:/kind!"});
    CHECK(summary(catalog_changes(
              edited(k_catalog, {{R"("format": "date-time")", R"("format": "date")"}}))) ==
          Lines{"catalog.format_changed@users:/at!"});
}

TEST_CASE("catalog: new streams, fields, sync modes, widened types, enum values are harmless") {
    auto changes = catalog_changes(
        edited(k_catalog, {{R"(["number", "null"])", R"(["number", "string", "null"])"},
                           {R"(["x", "y"])", R"(["x", "y", "z"])"},
                           {R"("id": {"type": "integer"}, "score")",
                            R"("id": {"type": "integer"}, "nick": {}, "score")"},
                           {R"("supported_sync_modes": ["full_refresh"]})",
                            R"("supported_sync_modes": ["full_refresh", "incremental"]},
  {"name": "orders", "json_schema": {}, "supported_sync_modes": ["full_refresh"]})"}}));
    CHECK(summary(changes) == Lines{"catalog.enum_extended@users:/kind",
                                    "catalog.field_added@users:/nick",
                                    "catalog.stream_added@orders", "catalog.sync_mode_added@events",
                                    "catalog.type_widened@users:/score"});
    CHECK(breaking_count(changes) == 0);
}

TEST_CASE("integer to number is a widening, number to integer a narrowing") {
    auto widened = catalog_changes(edited(k_catalog, {{R"("id": {"type": "integer"}, "score")",
                                                       R"("id": {"type": "number"}, "score")"}}));
    CHECK(summary(widened) == Lines{"catalog.type_widened@users:/id"});
}

TEST_CASE("an accepted change no longer counts as breaking, and needs its place to match") {
    auto changes = catalog_changes(
        edited(k_catalog, {{R"([["id"]])", R"([["kind"]])"}, {R"(["at"])", R"(["id"])"}}));
    REQUIRE(breaking_count(changes) == 2);
    apply_accepted(changes, {{"catalog.primary_key_changed", "events", "wrong stream"}});
    CHECK(breaking_count(changes) == 2);
    apply_accepted(changes, {{"catalog.primary_key_changed", "users", "ids were reused"}});
    CHECK(breaking_count(changes) == 1);
    apply_accepted(changes, {{"catalog.cursor_changed", "", "seq is monotonic"}});
    CHECK(breaking_count(changes) == 0);
}

TEST_CASE("verdicts: a new failure is breaking, a fix or a skip is not") {
    auto report_with = [](report::Status spec, report::Status read) {
        report::RunReport run;
        report::ScenarioResult scenario;
        scenario.id = "basic";
        scenario.checks.push_back({"spec.valid", {}, report::Level::must, "", spec, {}, 0, 0, ""});
        scenario.checks.push_back({"read.valid", {}, report::Level::must, "", read, {}, 0, 0, ""});
        run.scenarios.push_back(scenario);
        return run;
    };
    using report::Status;
    auto changes = diff_verdicts(report_with(Status::passed, Status::failed),
                                 report_with(Status::failed, Status::passed));
    CHECK(summary(changes) ==
          Lines{"verdict.fixed@basic/read.valid", "verdict.regressed@basic/spec.valid!"});
    CHECK(diff_verdicts(report_with(Status::passed, Status::passed),
                        report_with(Status::passed, Status::passed))
              .empty());
    CHECK(summary(diff_verdicts(report_with(Status::passed, Status::passed),
                                report_with(Status::warned, Status::passed))) ==
          Lines{"verdict.changed@basic/spec.valid"});
}

TEST_CASE("verdicts: skipped is no verdict, a check skipped on one side is a note") {
    auto report_with = [](report::Status spec, report::Status read, const char* note) {
        report::RunReport run;
        report::ScenarioResult scenario;
        scenario.id = "resume";
        scenario.checks.push_back(
            {"spec.valid", {}, report::Level::must, "", spec, {}, 0, 0, note});
        scenario.checks.push_back(
            {"read.valid", {}, report::Level::must, "", read, {}, 0, 0, note});
        run.scenarios.push_back(scenario);
        return run;
    };
    using report::Status;
    std::vector<std::string> notes;
    auto changes = diff_verdicts(report_with(Status::skipped, Status::failed, "no state"),
                                 report_with(Status::failed, Status::skipped, "no state"), &notes);
    CHECK(changes.empty());
    REQUIRE(notes.size() == 1);
    CHECK(notes[0].find("resume: 2 check(s) skipped on one side or the other") == 0);
    notes.clear();
    CHECK(diff_verdicts(report_with(Status::passed, Status::passed, ""),
                        report_with(Status::skipped, Status::skipped, "the read failed"), &notes)
              .empty());
    REQUIRE(notes.size() == 1);
    CHECK(notes[0] ==
          "resume: 2 check(s) skipped on the target and judged on the other side, not compared: "
          "read.valid (passed), spec.valid (passed) (skipped: the read failed)");
}

TEST_CASE("catalog: a primary key or cursor gained, lost or changed is reported") {
    auto gained = catalog_changes(edited(
        k_catalog,
        {{R"("supported_sync_modes": ["full_refresh"]})",
          R"("supported_sync_modes": ["full_refresh"], "source_defined_primary_key": [["id"]]})"}}));
    CHECK(summary(gained) == Lines{"catalog.primary_key_changed@events!"});
    CHECK(gained[0].detail == R"(gained source_defined_primary_key: none -> [["id"]])");
    auto lost =
        catalog_changes(edited(k_catalog, {{R"("source_defined_primary_key": [["id"]], )", ""}}));
    CHECK(summary(lost) == Lines{"catalog.primary_key_changed@users!"});
    CHECK(lost[0].detail.find("lost") == 0);
    CHECK(summary(catalog_changes(edited(k_catalog, {{R"([["id"]])", "[]"}}))) ==
          Lines{"catalog.primary_key_changed@users!"});
    // A cursor gained by a stream without incremental syncs moves nothing.
    auto cursor = catalog_changes(
        edited(k_catalog,
               {{R"("supported_sync_modes": ["full_refresh"]})",
                 R"("supported_sync_modes": ["full_refresh"], "default_cursor_field": ["id"]})"}}));
    CHECK(summary(cursor) == Lines{"catalog.cursor_changed@events"});
    CHECK(summary(
              catalog_changes(edited(k_catalog, {{R"(, "default_cursor_field": ["at"])", ""}}))) ==
          Lines{"catalog.cursor_changed@users!"});
}

TEST_CASE("catalog: a likely rename is one change with what else changed in the stream") {
    auto changes =
        catalog_changes(edited(k_catalog, {{R"({"name": "users")", R"({"name": "Users")"},
                                           {R"(["x", "y"])", R"(["x"])"}}));
    REQUIRE(summary(changes) == Lines{"catalog.stream_renamed@users!"});
    CHECK(changes[0].detail ==
          "now Users (the names differ only in case or punctuation): breaking "
          "catalog.enum_narrowed /kind: values removed: \"y\"");
    auto similar =
        catalog_changes(edited(k_catalog, {{R"({"name": "users")", R"({"name": "people")"}}));
    CHECK(summary(similar) == Lines{"catalog.stream_renamed@users!"});
    CHECK(similar[0].detail.find("now people (100% of the fields are the same): nothing else") ==
          0);
    // A stream with other fields and another name is a removal and an addition.
    auto other =
        catalog_changes(edited(k_catalog, {{R"({"name": "events")", R"({"name": "orders")"}}));
    CHECK(summary(other) == Lines{"catalog.stream_added@orders", "catalog.stream_removed@events!"});
}

TEST_CASE("spec: a changed default and a relaxed required list are harmless") {
    auto changes = spec_changes(edited(
        k_spec,
        {{R"("required": ["api_key"])", R"("required": [])"},
         {R"("count": {"type": "integer"})", R"("count": {"type": "integer", "default": 5})"}}));
    CHECK(summary(changes) ==
          Lines{"spec.default_changed@/count", "spec.no_longer_required@/api_key"});
    CHECK(breaking_count(changes) == 0);
}
