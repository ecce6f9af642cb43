// The checkpoint timeline in the reports: JSON (schema-valid, read back unchanged), the HTML
// picture with its table, and the Markdown lines.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <string>

#include "json/parse.hpp"
#include "report/files.hpp"
#include "report/json_read.hpp"
#include "report/timeline.hpp"

#include "report_schema.hpp"

using namespace conform;
using namespace conform::report;
using conform::report::testing::report_schema_violations;

namespace {

ResumedCheckpoint resumed(std::uint64_t checkpoint, std::uint64_t lost, std::uint64_t repeated) {
    ResumedCheckpoint resume;
    resume.checkpoint = checkpoint;
    resume.line = checkpoint * 11 + 1;
    resume.records_before = checkpoint * 10;
    resume.run = "resume: read [from checkpoint " + std::to_string(checkpoint) + "/4]";
    resume.lost = lost;
    resume.lost_example = lost > 0 ? "events key [11] (line 36 of full: read)" : "";
    resume.repeated = repeated;
    resume.repeated_example = repeated > 0 ? "events key [1] (line 3 of <resumed>)" : "";
    return resume;
}

RunReport report_with_resumes(std::vector<ResumedCheckpoint> resumes) {
    RunSummary full;
    full.label = "full: read";
    full.records = 40;
    full.states = 4;
    full.timeline.total = 4;
    for (std::uint64_t k = 1; k <= 4; ++k) {
        full.timeline.checkpoints.push_back({k * 11 + 1, k * 10, k == 4, {}});
        if (k < 4) {
            full.timeline.checkpoints.back().streams = {k == 1 ? "users" : "events"};
        }
    }
    full.timeline.resumes = std::move(resumes);
    RunSummary plain;  // no STATE: no timeline
    plain.label = "plain: read";
    ScenarioResult scenario;
    scenario.id = "resume";
    scenario.runs = {full, plain};
    RunReport report;
    report.connector = "./source";
    report.started_at = "2026-12-01T03:00:00Z";
    report.scenarios = {scenario};
    return report;
}

}  // namespace

TEST_CASE("json report: the timeline validates, only runs with STATEs carry one, reads back") {
    auto report = report_with_resumes({resumed(1, 0, 0), resumed(2, 10, 0), resumed(3, 0, 2)});
    auto text = to_json_report(report);
    CHECK(report_schema_violations(text) == "");
    auto document = json::parse_json_text(text, "report.json");
    const auto& runs = document["scenarios"][0]["runs"];
    REQUIRE(runs[0].HasMember("timeline"));
    CHECK_FALSE(runs[1].HasMember("timeline"));
    const auto& timeline = runs[0]["timeline"];
    CHECK(timeline["checkpoints_total"].GetInt() == 4);
    CHECK(timeline["checkpoints"][0]["streams"][0].GetString() == std::string("users"));
    CHECK(timeline["checkpoints"][3]["all_streams"].GetBool());
    CHECK(timeline["resumes"][1]["lost"].GetInt() == 10);
    CHECK(timeline["resumes"][1]["checkpoint"].GetInt() == 2);

    auto path = std::filesystem::temp_directory_path() /
                ("conform-test-" + std::to_string(getpid()) + "-timeline.json");
    std::ofstream(path) << text;
    auto read = read_json_report(path);
    std::filesystem::remove(path);
    CHECK(to_json_report(read) == text);
    REQUIRE(read.scenarios[0].runs[0].timeline.resumes.size() == 3);
    CHECK(read.scenarios[0].runs[0].timeline.resumes[2].repeated == 2);
}

TEST_CASE("json report: a timeline with a negative count is refused, naming the field") {
    auto path = std::filesystem::temp_directory_path() /
                ("conform-test-" + std::to_string(getpid()) + "-negative.json");
    std::ofstream(path)
        << R"({"version":2,"metadata":{},"scenarios":[{"status":"passed","runs":[{"timeline":)"
        << R"({"checkpoints_total":1,"resumes":[{"lost":-1}]}}]}]})";
    std::string message;
    try {
        read_json_report(path);
    } catch (const std::exception& error) {
        message = error.what();
    }
    std::filesystem::remove(path);
    INFO(message);
    CHECK(message.find("/scenarios/0/runs/0/timeline/resumes/0/lost: expected a count") !=
          std::string::npos);
}

TEST_CASE("html report: a timeline per run with STATEs, each outcome as a shape and in words") {
    auto html = to_html_report(
        report_with_resumes({resumed(1, 0, 0), resumed(2, 10, 0), resumed(3, 0, 2)}));
    CHECK(html.find("aria-label=\"checkpoint timeline of full: read\"") != std::string::npos);
    CHECK(html.find("aria-label=\"checkpoint timeline of plain: read\"") == std::string::npos);
    CHECK(html.find("<circle") != std::string::npos);
    CHECK(html.find("<rect x=") != std::string::npos);
    CHECK(html.find("<polygon") != std::string::npos);
    CHECK(html.find("<title>checkpoint 2 (stdout line 23, after 20 records): lost 10</title>") !=
          std::string::npos);
    CHECK(html.find("4 STATE(s) over 40 record(s); 3 resumed: 1 clean, 1 lost records, 1 "
                    "repeated records") != std::string::npos);
    CHECK(html.find("<span class=\"badge failed\" style=\"white-space:nowrap\">lost 10</span>") !=
          std::string::npos);
    CHECK(
        html.find("<span class=\"badge warned\" style=\"white-space:nowrap\">repeated 2</span>") !=
        std::string::npos);
    CHECK(html.find("&lt;resumed&gt;") != std::string::npos);
    CHECK(html.find("<resumed>") == std::string::npos);
}

TEST_CASE("html report: without STATEs no timeline; runs not resumed from are folded") {
    auto none = report_with_resumes({});
    none.scenarios[0].runs[0].timeline = {};
    CHECK(to_html_report(none).find("checkpoint timeline") == std::string::npos);
    auto html = to_html_report(report_with_resumes({}));
    CHECK(html.find("<details><summary>checkpoints of 1 other run(s) with STATEs</summary>") !=
          std::string::npos);
}

TEST_CASE("markdown summary: which checkpoints lost or repeated records, or all clean") {
    auto markdown = to_markdown_summary(
        report_with_resumes({resumed(1, 0, 0), resumed(2, 10, 0), resumed(3, 0, 2)}));
    CHECK(markdown.find("2 of 3 resumed checkpoint(s) lost or repeated records") !=
          std::string::npos);
    CHECK(markdown.find("- scenario resume, run full: read: checkpoint 2 (stdout line 23, after "
                        "20 records): lost 10 (first: events key \\[11\\]") != std::string::npos);
    CHECK(markdown.find("checkpoint 3 (stdout line 34, after 30 records): repeated 2") !=
          std::string::npos);
    auto clean = to_markdown_summary(report_with_resumes({resumed(1, 0, 0)}));
    CHECK(clean.find("**Checkpoint timeline:** 1 resumed checkpoint(s), all clean.") !=
          std::string::npos);
    CHECK(to_markdown_summary(report_with_resumes({})).find("Checkpoint timeline") ==
          std::string::npos);
}
