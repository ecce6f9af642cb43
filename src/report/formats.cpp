#include "report/formats.hpp"

#include "report/files.hpp"

namespace conform::report {

const std::vector<Format>& formats() {
    static const std::vector<Format> k_formats = {
        {"json", "--report-json", "--json", "the JSON report (schemas/report.schema.json)",
         to_json_report, false},
        {"junit", "--junit", "--junit", "a JUnit XML report", to_junit_xml, false},
        {"html", "--html", "--html", "a self-contained HTML certification report", to_html_report,
         true},
        {"markdown", "--markdown", "--markdown", "a Markdown summary (e.g. $GITHUB_STEP_SUMMARY)",
         to_markdown_summary, true},
        {"badge", "--badge", "--badge", "an SVG certification badge", to_svg_badge, true},
    };
    return k_formats;
}

}  // namespace conform::report
