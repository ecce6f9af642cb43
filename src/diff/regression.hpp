#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "diff/change.hpp"
#include "diff/probe.hpp"
#include "diff/records.hpp"
#include "report/model.hpp"

namespace conform::diff {

// Everything `conform diff` found between a control and a target version.
struct DiffReport {
    std::string control;  // how each version was run
    std::string target;
    std::vector<Change> changes;
    std::vector<StreamSummary> streams;
    std::vector<std::string> notes;  // what could not be compared, and why

    std::size_t breaking() const { return breaking_count(changes); }
};

// Spec, catalog, records and verdicts compared; the control's state resumed on the target.
DiffReport compare_versions(const config::TestConfig& control, const config::TestConfig& target,
                            const report::RunReport& control_report,
                            const report::RunReport& target_report,
                            const std::vector<AcceptedChange>& accepted);

// Gives `report` the differences, for the HTML report and the Markdown summary; `compared_with`
// names the control version or the baseline file.
void attach_differences(report::RunReport& report, const DiffReport& diff,
                        std::string compared_with);

// Masks, in every text of `diff`, the config's values at properties any of `specs` (their
// connectionSpecification, as JSON) marks airbyte_secret: a record or a detail may quote one.
void redact_secrets(DiffReport& diff, const std::vector<std::optional<std::string>>& specs,
                    const std::string& config_text);

// The diff as console text: one line per change, breaking ones first, and a summary line.
std::string to_console_text(const DiffReport& diff);

// The diff as the JSON object stored under "diff" in the JSON report.
std::string to_json_member(const DiffReport& diff);

// `report_json` (a JSON report) with the diff added as its member "diff".
std::string with_diff_member(const std::string& report_json, const DiffReport& diff);

// `junit_xml` with one more testsuite, "diff", holding a failing testcase per breaking change.
std::string with_diff_testsuite(const std::string& junit_xml, const DiffReport& diff);

}  // namespace conform::diff
