#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "json/parse.hpp"
#include "report/files.hpp"
#include "report/json_read.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"

using namespace conform::report;

namespace {

// A failure whose neighbouring lines try to break out of the Markdown fence and the HTML <pre>.
RunReport report_with_context() {
    RunReport report;
    report.connector = "./source";
    report.started_at = "2026-12-01T00:00:00Z";
    CheckResult check;
    check.id = "io.json_lines";
    check.clauses = {"AP-IO-1"};
    check.status = Status::failed;
    check.occurrences = 1;
    Example example{"not JSON", "read", 3, "DEBUG page 2"};
    example.context = {
        {2, "```\n# escaped"}, {3, "DEBUG page 2"}, {4, "</pre><script>x()</script>"}};
    check.examples = {example};
    ScenarioResult read;
    read.id = "read";
    read.status = Status::failed;
    read.checks = {check};
    report.scenarios = {read};
    return report;
}

}  // namespace

TEST_CASE("the JSON report carries the lines around a failure and reads them back") {
    auto text = to_json_report(report_with_context());
    CHECK(text.find("\"context\"") != std::string::npos);
    auto path = std::filesystem::temp_directory_path() /
                ("conform-test-context-" + std::to_string(getpid()) + ".json");
    std::ofstream(path) << text;
    auto back = read_json_report(path);
    std::filesystem::remove(path);
    const auto& context = back.scenarios.at(0).checks.at(0).examples.at(0).context;
    REQUIRE(context.size() == 3);
    CHECK(context[0].number == 2);
    CHECK(context[2].text == "</pre><script>x()</script>");
    CHECK(to_json_report(back) == text);
}

TEST_CASE("an example without transcript lines has no context member") {
    auto report = report_with_context();
    report.scenarios[0].checks[0].examples[0].context.clear();
    CHECK(to_json_report(report).find("\"context\"") == std::string::npos);
}

TEST_CASE("the HTML report shows the lines around a failure, escaped, the offending one marked") {
    auto html = to_html_report(report_with_context());
    CHECK(html.find("<mark class=\"offending\">&gt;       3 | DEBUG page 2</mark>") !=
          std::string::npos);
    CHECK(html.find("      4 | &lt;/pre&gt;&lt;script&gt;") != std::string::npos);
    CHECK(html.find("<script>x()") == std::string::npos);
}

TEST_CASE("the Markdown summary fences the lines around a failure so they cannot close it") {
    auto markdown = to_markdown_summary(report_with_context());
    auto marked = markdown.find(">       3 | DEBUG page 2");
    REQUIRE(marked != std::string::npos);
    // The fence before the lines is longer than the ``` inside them.
    auto fence = markdown.rfind("````\n", marked);
    REQUIRE(fence != std::string::npos);
    CHECK(markdown.find("````\n", marked) != std::string::npos);
}

TEST_CASE("every report names the connector's version and where it was read, or says unknown") {
    auto report = report_with_context();
    report.connector_version = "1.2.3<b>";
    report.connector_version_source = "image label io.airbyte.version";
    auto json = to_json_report(report);
    CHECK(json.find("\"connector_version\": \"1.2.3<b>\"") != std::string::npos);
    CHECK(json.find("\"connector_version_source\": \"image label io.airbyte.version\"") !=
          std::string::npos);
    CHECK(to_html_report(report).find(
              "<code>1.2.3&lt;b&gt;</code> (image label io.airbyte.version)") != std::string::npos);
    CHECK(to_markdown_summary(report).find("**Connector version:** 1.2.3") != std::string::npos);
    CHECK(to_html_registry({report}).find("<td>1.2.3&lt;b&gt;</td>") != std::string::npos);

    report.connector_version.clear();
    report.connector_version_source.clear();
    CHECK(to_json_report(report).find("\"connector_version\": \"unknown\"") != std::string::npos);
    CHECK(to_markdown_summary(report).find("**Connector version:** unknown") != std::string::npos);
    CHECK(to_html_registry({report}).find("<td>unknown</td>") != std::string::npos);
}

TEST_CASE("the connector version survives a JSON round trip; unknown reads back as unknown") {
    auto path = std::filesystem::temp_directory_path() /
                ("conform-test-version-" + std::to_string(getpid()) + ".json");
    auto report = report_with_context();
    report.connector_version = "0.4.1";
    report.connector_version_source = "--connector-version";
    std::ofstream(path) << to_json_report(report);
    auto back = read_json_report(path);
    CHECK(back.connector_version == "0.4.1");
    CHECK(back.connector_version_source == "--connector-version");
    report.connector_version.clear();
    report.connector_version_source.clear();
    std::ofstream(path) << to_json_report(report);
    back = read_json_report(path);
    std::filesystem::remove(path);
    CHECK(back.connector_version.empty());
}

TEST_CASE("transcript lines and the connector version validate against the report schema") {
    auto schema =
        conform::schema::Schema::compile_text(conform::resources::find("report.schema.json"));
    auto report = report_with_context();
    report.connector_version = "1.2.3";
    report.connector_version_source = "image label io.airbyte.version";
    auto valid = conform::json::parse_json_text(to_json_report(report), "report.json");
    std::vector<conform::schema::Violation> violations;
    schema.validate(valid, &violations, 10);
    for (const auto& violation : violations) {
        std::string text = violation.instance_path + ": " + violation.message;
        MESSAGE(text);
    }
    CHECK(violations.empty());

    report.scenarios[0].checks[0].examples[0].context[0].number = 0;  // lines count from 1
    auto invalid = conform::json::parse_json_text(to_json_report(report), "report.json");
    schema.validate(invalid, &violations, 10);
    CHECK_FALSE(violations.empty());
}

TEST_CASE("a JUnit failure carries the transcript lines around it, escaped") {
    auto xml = to_junit_xml(report_with_context());
    CHECK(xml.find("  &gt;       3 | DEBUG page 2\n") != std::string::npos);
    CHECK(xml.find("        4 | &lt;/pre&gt;&lt;script&gt;") != std::string::npos);
}
