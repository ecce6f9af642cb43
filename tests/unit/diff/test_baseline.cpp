#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "diff/baseline.hpp"
#include "diff/regression.hpp"
#include "json/parse.hpp"
#include "report/files.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"

using namespace conform;
using namespace conform::diff;

namespace {

ReadCapture capture_of(const std::vector<std::string>& users) {
    ReadCollector collector;
    for (const auto& data : users) {
        collector.add_line(R"({"type":"RECORD","record":{"stream":"users","data":)" + data +
                           R"(,"emitted_at":1}})");
    }
    return collector.take();
}

const StreamKeys k_keys = {{"users", {"/id"}}};

std::vector<std::string> rules_of(const std::vector<Change>& changes) {
    std::vector<std::string> rules;
    for (const auto& change : changes) {
        rules.push_back(change.rule + (change.breaking ? "!" : ""));
    }
    return rules;
}

report::RunReport one_check_report(report::Status status) {
    report::RunReport run;
    run.started_at = "2026-11-30T00:00:00Z";
    report::ScenarioResult scenario;
    scenario.id = "read";
    report::CheckResult check;
    check.id = "read.records_match_schema";
    check.status = status;
    scenario.checks.push_back(check);
    run.scenarios.push_back(scenario);
    return run;
}

}  // namespace

TEST_CASE("baseline digests: identical reads compare equal, whatever the record order") {
    auto before = digests_of(capture_of({R"({"id":1,"a":"x"})", R"({"id":2,"a":"y"})"}), k_keys);
    auto after = digests_of(capture_of({R"({"a":"y","id":2})", R"({"id":1,"a":"x"})"}), k_keys);
    REQUIRE(before.size() == 1);
    CHECK(before[0].count == 2);
    CHECK(before[0].records.count("[1]") == 1);
    CHECK(before[0].digest == after[0].digest);
    CHECK(diff_digests(before, after).empty());
}

TEST_CASE("baseline digests: removed, changed and added records by identity") {
    auto before = digests_of(
        capture_of({R"({"id":1,"a":"x"})", R"({"id":2,"a":"y"})", R"({"id":3})"}), k_keys);
    auto after = digests_of(
        capture_of({R"({"id":1,"a":"x"})", R"({"id":2,"a":"Y"})", R"({"id":4})"}), k_keys);
    CHECK(rules_of(diff_digests(before, after)) ==
          std::vector<std::string>{"records.removed!", "records.changed!", "records.added"});
    CHECK(rules_of(diff_digests(before, {})) == std::vector<std::string>{"records.removed!"});
}

TEST_CASE("baseline: a report with digests and a diff is a valid report and loads back") {
    auto digests = digests_of(capture_of({R"({"id":1})", R"({"id":2})"}), k_keys);
    DiffReport diff;
    diff.control = "base.json";
    diff.target = "connector";
    diff.changes.push_back({"records.changed", "users", "1 record(s) changed", true, "reviewed"});
    diff.notes.push_back("a note");
    auto text = with_diff_member(
        with_member(report::to_json_report(one_check_report(report::Status::passed)), "streams",
                    to_streams_member(digests)),
        diff);
    auto document = json::parse_json_text(text, "report");
    auto schema = schema::Schema::compile_text(resources::find("report.schema.json"));
    std::vector<schema::Violation> violations;
    CHECK(schema.validate(document, &violations, 5));
    CHECK(violations.empty());

    auto path = std::filesystem::temp_directory_path() / "conform-test-baseline.json";
    std::ofstream(path) << text;
    auto baseline = load_baseline(path.string());
    std::filesystem::remove(path);
    REQUIRE(baseline.streams.size() == 1);
    CHECK(baseline.streams[0].records == digests[0].records);
    CHECK(diff_digests(baseline.streams, digests).empty());
    REQUIRE(baseline.verdicts.scenarios.size() == 1);
    CHECK(baseline.verdicts.scenarios[0].checks[0].status == report::Status::passed);
}

TEST_CASE("the JUnit report gains a diff testsuite with one failure per unaccepted break") {
    DiffReport diff;
    diff.changes.push_back({"records.removed", "users", "<2> missing", true, ""});
    diff.changes.push_back({"records.changed", "users", "changed", true, "reviewed"});
    diff.changes.push_back({"records.added", "users", "added", false, ""});
    auto xml =
        with_diff_testsuite(report::to_junit_xml(one_check_report(report::Status::passed)), diff);
    CHECK(xml.find(R"(<testsuite name="diff" tests="3" failures="1">)") != std::string::npos);
    CHECK(xml.find(R"(<failure message="&lt;2&gt; missing"/>)") != std::string::npos);
    CHECK(xml.rfind("</testsuites>") > xml.find(R"(name="diff")"));
}

TEST_CASE("secret config values are masked in every text of a diff") {
    DiffReport diff;
    diff.changes.push_back(
        {"records.changed", "users", R"([1]: /token: "old" -> "hunter2-secret")", true, ""});
    diff.notes.push_back("saw hunter2-secret");
    redact_secrets(diff,
                   {std::nullopt, std::string(R"({"properties":{"key":{"airbyte_secret":true}}})")},
                   R"({"key": "hunter2-secret"})");
    CHECK(diff.changes[0].detail.find("hunter2") == std::string::npos);
    CHECK(diff.changes[0].detail.find("**********") != std::string::npos);
    CHECK(diff.notes[0] == "saw **********");
}
