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
          std::vector<std::string>{"records.removed!", "records.changed", "records.added"});
    CHECK(rules_of(diff_digests(before, {})) == std::vector<std::string>{"records.removed!"});
    auto retyped =
        digests_of(capture_of({R"({"id":1,"a":"x"})", R"({"id":2,"a":2})", R"({"id":3})"}), k_keys);
    CHECK(rules_of(diff_digests(before, retyped)) ==
          std::vector<std::string>{"records.fields_changed!"});
}

TEST_CASE("baseline digests without a key: only records beyond the replaced ones are lost") {
    auto before = digests_of(capture_of({R"({"a":"x"})", R"({"a":"y"})", R"({"a":"z"})"}), {});
    auto changed = digests_of(capture_of({R"({"a":"x"})", R"({"a":"Y"})", R"({"a":"Z"})"}), {});
    CHECK(rules_of(diff_digests(before, changed)) == std::vector<std::string>{"records.changed"});
    auto fewer = digests_of(capture_of({R"({"a":"x"})", R"({"a":"Y"})"}), {});
    auto rules = rules_of(diff_digests(before, fewer));
    CHECK(rules == std::vector<std::string>{"records.removed!", "records.changed"});
    auto retyped = digests_of(capture_of({R"({"a":"x"})", R"({"a":1})", R"({"a":"z"})"}), {});
    CHECK(rules_of(diff_digests(before, retyped)) ==
          std::vector<std::string>{"records.fields_changed!"});
    auto more = digests_of(
        capture_of({R"({"a":"x"})", R"({"a":"y"})", R"({"a":"z"})", R"({"a":"w"})"}), {});
    CHECK(rules_of(diff_digests(before, more)) == std::vector<std::string>{"records.added"});
}

TEST_CASE("baseline keys: the configured key, else the discovered source-defined one") {
    auto keys = keys_for_digests(
        R"({"streams":[{"stream":{"name":"users","source_defined_primary_key":[["id"]]}},
                      {"stream":{"name":"events"},"primary_key":[["seq"]]}]})",
        std::string(
            R"({"streams":[{"name":"users"},{"name":"events","source_defined_primary_key":[["id"]]}]})"));
    CHECK(keys["users"].empty());
    CHECK(keys["events"] == std::vector<std::string>{"/seq"});
}

TEST_CASE("baseline: a report with digests and a diff is a valid report and loads back") {
    auto digests = digests_of(capture_of({R"({"id":1})", R"({"id":2})"}), k_keys);
    DiffReport diff;
    diff.control = "base.json";
    diff.target = "connector";
    diff.changes.push_back({"records.changed", "users", "1 record(s) changed", true, "reviewed"});
    diff.streams.push_back({"users", 2, 2, 0, 0, 1, 3, 3, "the configured primary key /id"});
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

TEST_CASE("a diff's HTML and Markdown head with its verdict, and carry streams and notes") {
    DiffReport diff;
    diff.control = "v1";
    diff.changes.push_back({"records.removed", "users", "2 record(s) missing", true, ""});
    diff.streams.push_back({"users", 20, 18, 0, 2, 0, 2, 2, "the configured primary key /id"});
    diff.notes.push_back("state compatibility: the target was resumed from the final state");
    auto report = one_check_report(report::Status::failed);
    report.connector = "source-x";
    attach_differences(report, diff, "the control version v1");
    auto markdown = report::to_markdown_summary(report);
    CHECK(markdown.find("## ❌ conform diff: source-x: 1 breaking change(s)\n") == 0);
    CHECK(markdown.find("**Target's conformance run:** ❌ failed") != std::string::npos);
    CHECK(
        markdown.find("| users | 20 → 18 | 0 | 2 | 0 | 2 → 2 | the configured primary key /id |") !=
        std::string::npos);
    CHECK(markdown.find("- state compatibility: the target was resumed from the final state") !=
          std::string::npos);
    auto html = report::to_html_report(report);
    CHECK(
        html.find("<h1>conform diff: 1 breaking change(s) <span class=\"badge failed\">breaking") !=
        std::string::npos);
    CHECK(html.find("<h3>Records per stream</h3>") != std::string::npos);
    CHECK(html.find("<li>state compatibility: the target was resumed from the final state</li>") !=
          std::string::npos);

    // A clean diff of a target whose own run failed heads with the diff's verdict.
    diff.changes.clear();
    attach_differences(report, diff, "the control version v1");
    CHECK(report::to_markdown_summary(report).find(
              "## ✅ conform diff: source-x: no breaking change") == 0);
    CHECK(report::to_html_report(report).find("<h1>conform diff: no breaking change") !=
          std::string::npos);
}
