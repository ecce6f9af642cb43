#include <doctest/doctest.h>

#include <string>

#include "report/files.hpp"

using namespace conform::report;

namespace {

RunReport report_with(Status status, std::string excerpt_text = "{\"a\":1}") {
    RunReport report;
    report.connector = "./source | tee";
    report.conform_version = "0.1.0";
    report.claimed_extensions = {"range"};
    ScenarioResult read;
    read.id = "read";
    read.status = status;
    read.rerun = "conform run -t conform.json --only read";
    CheckResult check;
    check.id = "read.records_match_schema";
    check.clauses = {"AP-READ-2"};
    check.status = status;
    check.occurrences = 1;
    check.examples = {{"at '/x': 1 is not a string", "read", 7, std::move(excerpt_text)}};
    read.checks = {check};
    ScenarioResult range;
    range.id = "range-splits";
    range.extension = "range";
    range.status = Status::passed;
    CheckResult split;
    split.id = "range.split_union";
    split.status = Status::passed;
    range.checks = {split};
    report.scenarios = {read, range};
    return report;
}

}  // namespace

TEST_CASE("markdown summary: verdict, certification table, the failure with its rerun") {
    auto text = to_markdown_summary(report_with(Status::failed));
    CHECK(text.starts_with("## ❌ conform: ./source \\| tee failed"));
    CHECK(
        text.find("| core | ❌ failed | 1 check(s) failed: read:read.records\\_match\\_schema |") !=
        std::string::npos);
    CHECK(text.find("| range | ✅ certified |") != std::string::npos);
    CHECK(text.find("<code>read.records_match_schema</code> in scenario <b>read</b>") !=
          std::string::npos);
    CHECK(text.find("> **AP-READ-2** Every RECORD") != std::string::npos);
    CHECK(text.find("(run read, stdout line 7)") != std::string::npos);
    CHECK(text.find("```sh\nconform run -t conform.json --only read\n```") != std::string::npos);
}

TEST_CASE("markdown summary: an example names only the location it has") {
    auto report = report_with(Status::failed);
    report.scenarios[0].checks[0].examples = {{"the config does not match the spec"}};
    auto text = to_markdown_summary(report);
    CHECK(text.find("- the config does not match the spec\n") != std::string::npos);
    CHECK(text.find("stdout line 0") == std::string::npos);
    CHECK(text.find("(run ,") == std::string::npos);
}

TEST_CASE("markdown summary: unclaimed extensions' skips are one line, not table rows") {
    auto report = report_with(Status::passed);
    report.claimed_extensions = {};
    report.test_config = "conform.json";
    report.scenarios[1].status = Status::skipped;
    report.scenarios[1].checks[0].status = Status::skipped;
    auto text = to_markdown_summary(report);
    CHECK(text.find("⏭️ 1 check(s) of extensions the connector does not claim: range; a "
                    "connector that supports one claims it in its test config: "
                    "\"extensions\": \\[\"range\"\\]\n") != std::string::npos);
    CHECK(text.find("| range-splits |") == std::string::npos);
}

TEST_CASE("markdown summary: an excerpt with backticks cannot close its fence") {
    auto text = to_markdown_summary(report_with(Status::failed, "a ``` b ```` c"));
    CHECK(text.find("`````json\na ``` b ```` c\n`````") != std::string::npos);
}

TEST_CASE("svg badge: failed in red, certified areas in green") {
    auto failed = to_svg_badge(report_with(Status::failed));
    CHECK(failed.find(">failed</text>") != std::string::npos);
    CHECK(failed.find("#cf222e") != std::string::npos);
    auto passed = to_svg_badge(report_with(Status::passed));
    CHECK(passed.find(">core + range</text>") != std::string::npos);
    CHECK(passed.find("#1a7f37") != std::string::npos);
}

TEST_CASE("markdown summary: breaking differences listed, harmless and accepted ones folded") {
    auto report = report_with(Status::passed);
    report.differences =
        Differences{"the baseline base.json",
                    {{"catalog.stream_removed", "users", "stream users is gone", true, ""},
                     {"catalog.stream_added", "orders", "new stream", false, ""},
                     {"records.changed", "events", "3 records changed", true, "reviewed"}},
                    {}};
    auto text = to_markdown_summary(report);
    CHECK(text.find("### Differences from the baseline base.json: 1 breaking") !=
          std::string::npos);
    CHECK(text.find("❌ `catalog.stream_removed` users: stream users is gone") != std::string::npos);
    auto folded = text.find("<details><summary>Harmless and accepted differences</summary>");
    REQUIRE(folded != std::string::npos);
    CHECK(text.find("`catalog.stream_added` orders", folded) != std::string::npos);
    CHECK(text.find("`records.changed` events: 3 records changed (accepted: reviewed)", folded) !=
          std::string::npos);
}

TEST_CASE("markdown summary: the streams whose configured catalog contradicts discover") {
    auto report = report_with(Status::passed);
    Coverage coverage;
    coverage.streams.streams = {{"users",
                                 true,
                                 true,
                                 {"full_refresh"},
                                 {},
                                 {"the configured catalog names no primary "
                                  "key; discover declares /id"}},
                                {"events", true, true, {"incremental"}, {}, {}}};
    report.coverage = coverage;
    auto text = to_markdown_summary(report);
    CHECK(text.find("**Configured catalog against discover:**\n\n- `users`: the configured "
                    "catalog names no primary key; discover declares /id\n") != std::string::npos);
    CHECK(text.find("- `events`") == std::string::npos);
    coverage.streams.streams[0].catalog_differences.clear();
    report.coverage = coverage;
    CHECK(to_markdown_summary(report).find("against discover") == std::string::npos);
}
