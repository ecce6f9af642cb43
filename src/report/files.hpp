#pragma once

#include <filesystem>
#include <string>

#include "report/model.hpp"

namespace conform::report {

// The JSON report (schema: schemas/report.schema.json, "version": 1).
std::string to_json_report(const RunReport& report);

// JUnit XML: one testsuite per scenario, one testcase per check.
std::string to_junit_xml(const RunReport& report);

// Writes `content` to `path`; throws conform::Error (internal) naming the path on failure.
void write_report_file(const std::filesystem::path& path, const std::string& content);

}  // namespace conform::report
