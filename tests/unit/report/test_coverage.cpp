#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "report/coverage.hpp"
#include "report/files.hpp"
#include "report/json_read.hpp"
#include "report/model.hpp"

#include "report_schema.hpp"

using namespace conform;
using namespace conform::report;
using conform::report::testing::report_schema_violations;

namespace {

CheckResult result_of(std::string id, std::vector<std::string> clauses, Status status,
                      std::string note = {}) {
    CheckResult check;
    check.id = std::move(id);
    check.clauses = std::move(clauses);
    check.status = status;
    check.note = std::move(note);
    return check;
}

// The checks conform would have, as far as these tests need: cli.spec (AP-CLI-1),
// read.expected_records (AP-READ-7) and state.resume_no_loss (X-STATE-2); AP-READ-9 has none.
std::vector<CheckClauses> known_checks() {
    return {{"cli.spec", {"AP-CLI-1"}},
            {"read.expected_records", {"AP-READ-7"}},
            {"state.resume_no_loss", {"X-STATE-2"}}};
}

std::vector<ScenarioResult> scenarios_run() {
    ScenarioResult basic;
    basic.id = "basic";
    basic.checks = {result_of("cli.spec", {"AP-CLI-1"}, Status::passed),
                    result_of("read.expected_records", {"AP-READ-7"}, Status::skipped,
                              "the test config names no expected records")};
    return {basic};
}

const ClauseCoverage& clause(const std::vector<ClauseCoverage>& clauses, const std::string& id) {
    auto found = std::find_if(clauses.begin(), clauses.end(),
                              [&id](const ClauseCoverage& c) { return c.clause == id; });
    REQUIRE(found != clauses.end());
    return *found;
}

Coverage sample_coverage() {
    Coverage coverage;
    coverage.clauses = clause_coverage(k_airbyte_source, known_checks(), scenarios_run());
    coverage.streams.streams = {
        {"users",
         true,
         true,
         {"incremental"},
         {{"incremental", 3, 12}},
         {"the configured catalog names no primary key; discover declares /id"}},
        {"empty", true, true, {"full_refresh"}, {{"full_refresh", 2, 0}}, {}},
        {"unused", true, false, {}, {}, {}},
    };
    return coverage;
}

}  // namespace

TEST_CASE("coverage: a clause is judged, skipped with its reason, not selected or has no check") {
    auto clauses = clause_coverage(k_airbyte_source, known_checks(), scenarios_run());

    CHECK(clause(clauses, "AP-CLI-1").state() == ClauseState::judged);
    CHECK(clause(clauses, "AP-CLI-1").judged_by == std::vector<std::string>{"cli.spec"});

    const auto& skipped = clause(clauses, "AP-READ-7");
    CHECK(skipped.state() == ClauseState::skipped);
    REQUIRE(skipped.skipped_by.size() == 1);
    CHECK(skipped.skipped_by[0].check == "read.expected_records");
    CHECK(skipped.skipped_by[0].reason == "the test config names no expected records");
    CHECK(why_not_judged(skipped) ==
          "read.expected_records: the test config names no expected records");

    CHECK(clause(clauses, "X-STATE-2").state() == ClauseState::not_selected);
    CHECK(clause(clauses, "AP-READ-9").state() == ClauseState::no_check);
    CHECK(why_not_judged(clause(clauses, "AP-READ-9")) == "conform has no check for it");
}

TEST_CASE("coverage: a protocol's clauses are its families' only") {
    auto airbyte = clause_coverage(k_airbyte_source, {}, {});
    auto singer = clause_coverage(k_singer, {}, {});
    auto has = [](const std::vector<ClauseCoverage>& clauses, std::string_view prefix) {
        return std::any_of(clauses.begin(), clauses.end(), [prefix](const ClauseCoverage& c) {
            return c.clause.starts_with(prefix);
        });
    };
    CHECK(has(airbyte, "AP-"));
    CHECK(has(airbyte, "X-"));
    CHECK_FALSE(has(airbyte, "SG-"));
    CHECK(has(singer, "SG-"));
    CHECK_FALSE(has(singer, "AP-"));
    CHECK(has(clause_coverage(k_meltano_extension, {}, {}), "MX-"));
    CHECK(has(clause_coverage(k_airbyte_destination, {}, {}), "DST-"));
}

TEST_CASE("coverage: streams with and without data") {
    auto coverage = sample_coverage();
    CHECK(coverage.streams.streams[0].records() == 12);
    CHECK(coverage.streams.streams[1].records() == 0);
    CHECK(streams_summary(coverage.streams) ==
          "3 available, 2 configured, 1 with data (incremental)");
    CHECK(modes_read(coverage.streams.streams[2]) == "not read");

    StreamsCoverage unknown = coverage.streams;
    unknown.available_known = false;
    CHECK(streams_summary(unknown) ==
          "available not known, 2 configured, 1 with data "
          "(incremental)");
    CHECK(why_not_judged(clause(clause_coverage(k_airbyte_source, known_checks(), {}),
                                "X-STATE-2")) == "not run: state.resume_no_loss");
    StreamsCoverage none{false, false, "not applicable: a Meltano extension has no streams", {}};
    CHECK(streams_summary(none) == "not applicable: a Meltano extension has no streams");
}

TEST_CASE("coverage: the JSON report carries it, valid, and reads back") {
    RunReport report;
    report.started_at = "2026-12-01T23:00:00Z";
    report.coverage = sample_coverage();
    auto json = to_json_report(report);
    CHECK(report_schema_violations(json) == "");
    CHECK(json.find("\"state\": \"skipped\"") != std::string::npos);
    CHECK(json.find("\"catalog_differences\": [") != std::string::npos);

    auto path = std::filesystem::temp_directory_path() /
                ("conform-test-coverage-" + std::to_string(getpid()) + ".json");
    std::ofstream(path) << json;
    auto back = read_json_report(path);
    std::filesystem::remove(path);
    REQUIRE(back.coverage);
    CHECK(to_json_report(back) == json);
}

TEST_CASE("coverage: merged shards are the union of their coverages") {
    auto one = sample_coverage();
    Coverage two;
    ScenarioResult resumed;
    resumed.checks = {result_of("state.resume_no_loss", {"X-STATE-2"}, Status::failed),
                      result_of("cli.spec", {"AP-CLI-1"}, Status::skipped, "spec did not run")};
    two.clauses = clause_coverage(k_airbyte_source, known_checks(), {resumed});
    two.streams.streams = {{"empty", true, true, {"full_refresh"}, {{"full_refresh", 1, 4}}, {}},
                           {"other", true, false, {}, {}, {}}};

    auto merged = merged_coverage(one, two);
    // Judged in one shard: judged in the whole run, whatever the other skipped.
    CHECK(clause(merged.clauses, "AP-CLI-1").state() == ClauseState::judged);
    CHECK(clause(merged.clauses, "X-STATE-2").state() == ClauseState::judged);
    CHECK(clause(merged.clauses, "AP-READ-7").state() == ClauseState::skipped);
    CHECK(clause(merged.clauses, "AP-READ-9").state() == ClauseState::no_check);
    // Last shard wins would say "empty" had 4 records, and lose "users".
    CHECK(streams_summary(merged.streams) ==
          "4 available, 2 configured, 2 with data (full_refresh, incremental)");
    // What one shard's discover found of a stream the other's catalog holds stays said.
    CHECK(merged.streams.streams[0].catalog_differences ==
          std::vector<std::string>{
              "the configured catalog names no primary key; discover declares /id"});
    REQUIRE(merged.streams.streams[1].modes.size() == 1);
    CHECK(merged.streams.streams[1].modes[0].runs == 3);
    CHECK(merged.streams.streams[1].records() == 4);
}

TEST_CASE("coverage: merge_reports keeps it only when every shard has it") {
    RunReport one;
    one.shard = "1/2";
    one.coverage = sample_coverage();
    RunReport two = one;
    two.shard = "2/2";
    CHECK(merge_reports({one, two}, {"a", "b"}).coverage.has_value());
    two.coverage.reset();
    CHECK_FALSE(merge_reports({one, two}, {"a", "b"}).coverage.has_value());
}

TEST_CASE("coverage: the streams whose catalog differs, the first few and how many more") {
    StreamsCoverage streams;
    streams.streams = {{"a", true, true, {}, {}, {"x", "y"}},
                       {"b", true, true, {}, {}, {}},
                       {"c", true, true, {}, {}, {"z"}},
                       {"d", true, true, {}, {}, {"w"}}};
    auto lines = catalog_difference_lines(streams, 2);
    REQUIRE(lines.shown.size() == 2);
    CHECK(lines.shown[0] == std::pair<std::string, std::string>{"a", "x; y"});
    CHECK(lines.shown[1].first == "c");
    CHECK(lines.more == 1);
}
