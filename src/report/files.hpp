#pragma once

#include <filesystem>
#include <string>

#include "report/model.hpp"

namespace conform::report {

inline constexpr int k_json_report_version = 2;

// The JSON report (schema: schemas/report.schema.json, "version": k_json_report_version).
std::string to_json_report(const RunReport& report);

// JUnit XML: one testsuite per scenario, one testcase per check.
std::string to_junit_xml(const RunReport& report);

// A self-contained HTML certification report (docs/certification.md): no script, no network.
std::string to_html_report(const RunReport& report);

// A Markdown summary for $GITHUB_STEP_SUMMARY or a pull-request comment: the verdict, the
// certification table, each failure (first 20) with its clause, examples and rerun command.
std::string to_markdown_summary(const RunReport& report);

// A shields-style SVG badge: "conform | core + range" (green), "failed" (red) or "incomplete".
std::string to_svg_badge(const RunReport& report);

// One page for several connectors (a registry): a table of their certification levels, then
// each one's failures with clause texts and rerun commands. Self-contained like to_html_report.
std::string to_html_registry(const std::vector<RunReport>& reports);

// Creates the folder of the report file `path` when it is missing, before anything runs. Returns
// why the file cannot be written (a folder in its place, a folder that cannot be created or
// written), or "" when it can.
std::string prepare_report_file(const std::filesystem::path& path);

// Writes `content` to `path`; throws conform::Error (internal) naming the path on failure.
void write_report_file(const std::filesystem::path& path, const std::string& content);

}  // namespace conform::report
