#include <doctest/doctest.h>

#include <regex>
#include <string>

#include "report/files.hpp"

using namespace conform::report;

namespace {

RunReport failing_report() {
    RunReport report;
    report.conform_version = "0.1.0";
    report.connector = "./source <script>alert(1)</script>";
    report.started_at = "2026-11-30T12:00:00Z";
    report.claimed_extensions = {"range"};
    ScenarioResult read;
    read.id = "read";
    read.suite = "core";
    read.title = "read emits valid records";
    read.status = Status::failed;
    read.rerun = "conform run -t 'my conform.json' --only read";
    CheckResult check;
    check.id = "read.records_match_schema";
    check.clauses = {"AP-READ-2"};
    check.title = "every record validates against its stream schema";
    check.status = Status::failed;
    check.occurrences = 3;
    check.examples = {{"at '/updated_at': \"yesterday\" is not a valid date-time", "read", 32,
                       R"({"type":"RECORD","record":{"data":{"updated_at":"yesterday"}}})"}};
    read.checks = {check};
    RunSummary first;
    first.label = "read [range 00000000-7fffffff]";
    first.records = 40;
    RunSummary second;
    second.label = "read [range 80000000-ffffffff]";
    second.records = 10;
    read.runs = {first, second};
    report.scenarios = {read};
    return report;
}

}  // namespace

TEST_CASE("html report: the failure, its clause text, expected versus seen and the rerun") {
    auto html = to_html_report(failing_report());
    CHECK(html.starts_with("<!DOCTYPE html>"));
    CHECK(html.find("id=\"fail-s-read--read_records_match_schema\"") != std::string::npos);
    CHECK(html.find("Every RECORD&#39;s `data` validates") != std::string::npos);
    CHECK(html.find("&quot;yesterday&quot; is not a valid date-time") != std::string::npos);
    CHECK(html.find("stdout line 32") != std::string::npos);
    CHECK(html.find("conform run -t &#39;my conform.json&#39; --only read") != std::string::npos);
    CHECK(html.find("3 occurrence(s) in all") != std::string::npos);
    CHECK(html.find("read [range 80000000-ffffffff]") != std::string::npos);
}

TEST_CASE("html report: self-contained, no script, everything escaped") {
    auto html = to_html_report(failing_report());
    CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
    CHECK(html.find("<script") == std::string::npos);
    CHECK(html.find("&lt;script&gt;alert(1)&lt;/script&gt;") != std::string::npos);
    std::regex external(R"((src|href)\s*=\s*"(?!#)|url\(|https?:)", std::regex::icase);
    CHECK_FALSE(std::regex_search(html, external));
}

TEST_CASE("html report: certification table and the pass/fail matrix") {
    auto html = to_html_report(failing_report());
    CHECK(html.find("<td>core</td><td><span class=\"badge failed\">failed</span>") !=
          std::string::npos);
    CHECK(html.find("<td>range</td><td><span class=\"badge not-tested\">not tested</span>") !=
          std::string::npos);
    CHECK(html.find("<td>tail</td><td><span class=\"badge not-claimed\">not claimed</span>") !=
          std::string::npos);
    CHECK(html.find("title=\"read.records_match_schema: failed\"") != std::string::npos);
}

TEST_CASE("html registry: one row per connector, each section's ids unique on the page") {
    auto first = failing_report();
    auto second = failing_report();
    second.connector = "./another";
    auto html = to_html_registry({first, second});
    CHECK(html.find("conform registry report: 2 connector(s)") != std::string::npos);
    CHECK(html.find("<a href=\"#c1\"><code>./another</code></a>") != std::string::npos);
    CHECK(html.find("id=\"c0fail-s-read--read_records_match_schema\"") != std::string::npos);
    CHECK(html.find("id=\"c1fail-s-read--read_records_match_schema\"") != std::string::npos);
    CHECK(html.find("href=\"#c1fail-s-read--read_records_match_schema\"") != std::string::npos);
    CHECK(html.find("id=\"fail-") == std::string::npos);
    CHECK(html.find("Content-Security-Policy\" content=\"default-src 'none'") != std::string::npos);
}

TEST_CASE("html report: differences from the control, breaking first, each rule and detail") {
    auto report = failing_report();
    report.differences = Differences{
        "the control version ./v1",
        {{"spec.property_added", "/properties/region", "optional property added", false, ""},
         {"catalog.stream_removed", "users", "stream <users> is gone", true, ""},
         {"records.changed", "events", "3 records changed", true, "reviewed: new ids"}},
        {"state compatibility not checked"}};
    auto html = to_html_report(report);
    auto section = html.find("Differences from the control version ./v1");
    REQUIRE(section != std::string::npos);
    CHECK(html.find("3 difference(s), 1 breaking and not accepted") != std::string::npos);
    auto removed = html.find("catalog.stream_removed", section);
    auto added = html.find("spec.property_added", section);
    REQUIRE(removed != std::string::npos);
    REQUIRE(added != std::string::npos);
    CHECK(removed < added);
    CHECK(html.find("stream &lt;users&gt; is gone") != std::string::npos);
    CHECK(html.find("accepted: reviewed: new ids") != std::string::npos);
    CHECK(html.find("state compatibility not checked") != std::string::npos);
    CHECK(to_html_report(failing_report()).find("Differences from") == std::string::npos);
}

TEST_CASE("html report: the streams whose configured catalog contradicts discover") {
    auto report = failing_report();
    Coverage coverage;
    coverage.streams.streams = {{"<users>",
                                 true,
                                 true,
                                 {"full_refresh"},
                                 {},
                                 {"discover says the source's own cursor "
                                  "is /updated_at"}},
                                {"events", true, true, {"incremental"}, {}, {}}};
    report.coverage = coverage;
    auto html = to_html_report(report);
    CHECK(html.find("<p><b>Configured catalog against discover:</b></p><ul><li><code>&lt;users"
                    "&gt;</code>: discover says the source&#39;s own cursor is /updated_at</li>"
                    "</ul>") != std::string::npos);
}
