#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "json/parse.hpp"
#include "report/console.hpp"
#include "report/files.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::report;
namespace pt = boost::property_tree;

namespace {

constexpr std::string_view k_nasty =
    "quote\" back\\slash <tag> & amp\nnew\tline \x01\x1f bell\x07 é";

CheckResult check(std::string id, Status status, std::vector<Example> examples = {},
                  std::string note = {}) {
    CheckResult result;
    result.id = std::move(id);
    result.clauses = {"AP-READ-2"};
    result.level = report::Level::must;
    result.title = "title of " + result.id;
    result.status = status;
    result.occurrences = examples.size();
    result.examples = std::move(examples);
    result.note = std::move(note);
    return result;
}

RunReport sample_report() {
    RunReport report;
    report.conform_version = "0.1.0";
    report.connector = "./source --flag";
    report.test_config = "conform.json";
    report.started_at = "2024-05-01T12:00:00Z";
    report.duration_ms = 1234;
    report.strict = true;

    ScenarioResult read;
    read.id = "read";
    read.suite = "core";
    read.title = "read emits valid records";
    read.status = Status::failed;
    read.duration_ms = 1000;
    read.rerun = "conform run --only read";
    read.checks = {
        check("read.records_match_schema", Status::failed,
              {{std::string(k_nasty), "read", 12, "{\"a\":\"<b>\"}"}, {"second", "read", 13, ""}}),
        check("io.json_lines", Status::warned, {{"not json", "read", 3, "hello & bye"}}),
        check("range.split_union", Status::skipped, {}, "not claimed: <range> & co"),
        check("cli.read", Status::passed),
    };
    read.checks[0].occurrences = 7;
    read.checks[0].duration_ms = 3;
    report.claimed_extensions = {"range"};
    RunSummary run;
    run.label = "read";
    run.command = "./source read --config c.json";
    run.exit = "exit code 0";
    run.duration_ms = 900;
    run.records = 10;
    run.states = 2;
    run.lines = 13;
    run.stderr_tail = "warn: \x02 something\n";
    read.runs.push_back(run);

    ScenarioResult spec;
    spec.id = "spec";
    spec.suite = "core";
    spec.title = "spec";
    spec.status = Status::passed;
    spec.checks = {check("cli.spec", Status::passed)};

    report.scenarios = {read, spec};
    return report;
}

const schema::Schema& report_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("report.schema.json"));
    return k_schema;
}

std::string violations_of(const rapidjson::Value& document) {
    std::vector<schema::Violation> violations;
    report_schema().validate(document, &violations, 10);
    std::string text;
    for (const auto& violation : violations) {
        text += violation.instance_path + ": " + violation.message + "\n";
    }
    return text;
}

pt::ptree parse_xml(const std::string& xml) {
    std::istringstream input(xml);
    pt::ptree tree;
    pt::read_xml(input, tree);
    return tree;
}

std::vector<const pt::ptree*> children_named(const pt::ptree& tree, const std::string& name) {
    std::vector<const pt::ptree*> found;
    for (const auto& [key, child] : tree) {
        if (key == name) {
            found.push_back(&child);
        }
    }
    return found;
}

}  // namespace

TEST_CASE("json report: parses, has version 2 and validates against its schema") {
    auto report = sample_report();
    auto text = to_json_report(report);
    auto document = json::parse_json_text(text, "report.json");
    REQUIRE(document.IsObject());
    CHECK(document["version"].GetInt() == 2);
    CHECK(violations_of(document) == "");
    CHECK(document["metadata"]["strict"].GetBool());
    CHECK(std::string(document["metadata"]["connector"].GetString()) == "./source --flag");
    CHECK(document["metadata"]["duration_ms"].GetInt() == 1234);
    CHECK(document["totals"]["passed"].GetInt() == 2);
    CHECK(document["totals"]["failed"].GetInt() == 1);
    CHECK(document["totals"]["warned"].GetInt() == 1);
    CHECK(document["totals"]["skipped"].GetInt() == 1);
    const auto& scenarios = document["scenarios"];
    REQUIRE(scenarios.Size() == 2);
    CHECK(std::string(scenarios[0]["status"].GetString()) == "failed");
    CHECK(std::string(scenarios[0]["rerun"].GetString()) == "conform run --only read");
    const auto& checks = scenarios[0]["checks"];
    REQUIRE(checks.Size() == 4);
    CHECK(std::string(checks[0]["level"].GetString()) == "MUST");
    CHECK(checks[0]["occurrences"].GetInt() == 7);
    CHECK(checks[0]["examples"].Size() == 2);
    CHECK(checks[0]["examples"][0]["line"].GetInt() == 12);
    CHECK(std::string(checks[1]["status"].GetString()) == "warned");
    CHECK(std::string(checks[2]["status"].GetString()) == "skipped");
    CHECK(std::string(checks[2]["note"].GetString()) == "not claimed: <range> & co");
    CHECK(scenarios[0]["runs"][0]["records"].GetInt() == 10);
    CHECK(checks[0]["duration_ms"].GetInt() == 3);
    CHECK(std::string(checks[0]["clause_texts"]["AP-READ-2"].GetString()).find("json_schema") !=
          std::string::npos);
    CHECK(std::string(scenarios[0]["extension"].GetString()).empty());
    const auto& certification = document["certification"];
    REQUIRE(certification.Size() == 5);
    CHECK(std::string(certification[0]["area"].GetString()) == "core");
    CHECK(std::string(certification[0]["level"].GetString()) == "failed");
    CHECK(std::string(document["metadata"]["claimed_extensions"][0].GetString()) == "range");
    CHECK(text.back() == '\n');
}

TEST_CASE("json report: special characters survive the round trip") {
    auto report = sample_report();
    auto text = to_json_report(report);
    auto document = json::parse_json_text(text, "report.json");
    const auto& example = document["scenarios"][0]["checks"][0]["examples"][0];
    CHECK(std::string(example["message"].GetString(), example["message"].GetStringLength()) ==
          k_nasty);
    CHECK(std::string(document["scenarios"][0]["runs"][0]["stderr_tail"].GetString()) ==
          "warn: \x02 something\n");
    // JSON text may not carry raw control characters.
    CHECK(std::none_of(text.begin(), text.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != ' ';
    }));
}

TEST_CASE("json report: an empty report is valid") {
    RunReport report;
    report.started_at = "2024-05-01T12:00:00Z";
    auto document = json::parse_json_text(to_json_report(report), "report.json");
    CHECK(violations_of(document) == "");
    CHECK(document["scenarios"].Empty());
    CHECK(document["totals"]["passed"].GetInt() == 0);
}

TEST_CASE("json report: the schema rejects what is not a report") {
    CHECK(violations_of(json::parse_json_text(R"({"version":1})", "x")) != "");
    auto text = to_json_report(sample_report());
    auto document = json::parse_json_text(text, "report.json");
    document["scenarios"][0]["checks"][0]["clauses"][0].SetString("READ-2");
    CHECK(violations_of(document).find("/scenarios/0/checks/0/clauses/0") != std::string::npos);
}

TEST_CASE("junit: one testsuite per scenario, one testcase per check") {
    auto xml = to_junit_xml(sample_report());
    auto tree = parse_xml(xml);
    const auto& root = tree.get_child("testsuites");
    CHECK(root.get<std::string>("<xmlattr>.name") == "conform");
    CHECK(root.get<int>("<xmlattr>.tests") == 5);
    CHECK(root.get<int>("<xmlattr>.failures") == 1);
    CHECK(root.get<int>("<xmlattr>.skipped") == 1);
    CHECK(root.get<std::string>("<xmlattr>.time") == "1.234");
    auto suites = children_named(root, "testsuite");
    REQUIRE(suites.size() == 2);
    CHECK(suites[0]->get<std::string>("<xmlattr>.name") == "read");
    CHECK(suites[0]->get<int>("<xmlattr>.tests") == 4);
    CHECK(suites[0]->get<int>("<xmlattr>.failures") == 1);
    CHECK(suites[0]->get<int>("<xmlattr>.skipped") == 1);
    auto cases = children_named(*suites[0], "testcase");
    REQUIRE(cases.size() == 4);
    CHECK(cases[0]->get<std::string>("<xmlattr>.classname") == "read");
    CHECK(cases[0]->get<std::string>("<xmlattr>.name") == "read.records_match_schema");
    CHECK(children_named(*suites[1], "testcase").size() == 1);
}

TEST_CASE("junit: failures, warnings and skips carry escaped text") {
    auto xml = to_junit_xml(sample_report());
    auto tree = parse_xml(xml);
    auto suite = children_named(tree.get_child("testsuites"), "testsuite").at(0);
    auto cases = children_named(*suite, "testcase");
    REQUIRE(cases.size() == 4);

    const auto& failure = cases[0]->get_child("failure");
    auto message = failure.get<std::string>("<xmlattr>.message");
    CHECK(message.find("quote\" back\\slash <tag> & amp") == 0);
    CHECK(message.find("bell? é") != std::string::npos);
    auto body = failure.data();
    CHECK(body.find("read.records_match_schema [AP-READ-2]: title of read.records_match_schema") ==
          0);
    CHECK(body.find("seen: {\"a\":\"<b>\"}") != std::string::npos);
    CHECK(body.find("- second (run read, stdout line 13)") != std::string::npos);
    CHECK(body.find("rerun: conform run --only read") != std::string::npos);
    CHECK(cases[0]->count("skipped") == 0);

    CHECK(cases[1]->count("failure") == 0);
    auto out = cases[1]->get<std::string>("system-out");
    CHECK(out.find("WARNING (SHOULD clause): io.json_lines") == 0);
    CHECK(out.find("seen: hello & bye") != std::string::npos);

    CHECK(cases[2]->get<std::string>("skipped.<xmlattr>.message") == "not claimed: <range> & co");
    CHECK(cases[2]->count("failure") == 0);

    CHECK(cases[3]->count("failure") == 0);
    CHECK(cases[3]->count("skipped") == 0);
    CHECK(cases[3]->count("system-out") == 0);
}

TEST_CASE("junit: no raw control characters, markup escaped") {
    auto xml = to_junit_xml(sample_report());
    CHECK(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"));
    CHECK(std::none_of(xml.begin(), xml.end(), [](char c) {
        return static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r';
    }));
    CHECK(xml.find("<tag>") == std::string::npos);
    CHECK(xml.find("&lt;tag&gt;") != std::string::npos);
    CHECK(xml.find("quote&quot; back") != std::string::npos);
    CHECK(xml.find("& amp") == std::string::npos);
}

TEST_CASE("junit: an empty report is a valid empty testsuites element") {
    auto tree = parse_xml(to_junit_xml(RunReport{}));
    CHECK(tree.get<int>("testsuites.<xmlattr>.tests") == 0);
    CHECK(tree.get_child("testsuites").count("testsuite") == 0);
}

TEST_CASE("write_report_file: writes the content and names an unwritable path") {
    auto path = std::filesystem::temp_directory_path() /
                ("conform-test-report-" + std::to_string(::getpid()) + ".json");
    write_report_file(path, "{\"x\":1}\n");
    std::ifstream file(path);
    std::string content((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    CHECK(content == "{\"x\":1}\n");
    std::filesystem::remove(path);
    CHECK_THROWS_WITH_AS(write_report_file("/nonexistent-dir/r.json", "x"),
                         "cannot write report '/nonexistent-dir/r.json'", Error);
}

TEST_CASE("prepare_report_file: creates missing folders and says why a path cannot be written") {
    auto root = std::filesystem::temp_directory_path() /
                ("conform-test-prepare-" + std::to_string(::getpid()));
    CHECK(prepare_report_file(root / "new" / "deeper" / "junit.xml").empty());
    CHECK(std::filesystem::is_directory(root / "new" / "deeper"));
    CHECK(prepare_report_file(root / "new") == "it is a folder; give a file name in it");
    std::ofstream(root / "plain") << "a file";
    CHECK(prepare_report_file(root / "plain" / "r.json")
              .starts_with("cannot create its folder '" + (root / "plain").string() + "': "));
    CHECK(prepare_report_file("relative-report.json").empty());  // the current folder
    std::filesystem::remove_all(root);
}

TEST_CASE("console: skips of extensions the connector does not claim are one line") {
    std::FILE* out = std::tmpfile();
    REQUIRE(out != nullptr);
    auto report = sample_report();
    report.test_config = std::string(k_command_line_origin);
    auto reporter = make_console_reporter(out, false, {});
    for (const auto& scenario : report.scenarios) {
        reporter->scenario_finished(scenario);
    }
    reporter->run_finished(report);
    std::rewind(out);
    std::string text;
    for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) {
        text += static_cast<char>(c);
    }
    std::fclose(out);
    INFO(text);
    CHECK(text.find("SKIP range.split_union") == std::string::npos);
    CHECK(text.find("SKIP 1 check(s) of extensions the connector does not claim: range; a "
                    "connector that supports one claims it with --extensions range\n") !=
          std::string::npos);
}

TEST_CASE("console: a failed scenario shows its checks, examples, counts and rerun") {
    std::FILE* out = std::tmpfile();
    REQUIRE(out != nullptr);
    auto report = sample_report();
    auto reporter = make_console_reporter(out, false, report.claimed_extensions);
    reporter->scenario_started("read", "read emits valid records");
    reporter->scenario_finished(report.scenarios[0]);
    reporter->run_finished(report);
    std::rewind(out);
    std::string text;
    for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) {
        text += static_cast<char>(c);
    }
    std::fclose(out);
    INFO(text);
    CHECK(text.find("FAIL read") != std::string::npos);
    CHECK(text.find("  FAIL read.records_match_schema [AP-READ-2] title of "
                    "read.records_match_schema\n") != std::string::npos);
    CHECK(text.find("      - second (run read, stdout line 13)\n") != std::string::npos);
    CHECK(text.find("        seen: {\"a\":\"<b>\"}\n") != std::string::npos);
    CHECK(text.find("      … and 5 more\n") != std::string::npos);
    CHECK(text.find("  WARN io.json_lines") != std::string::npos);
    // A skipped check is one line with its reason; passed checks are only listed when verbose.
    CHECK(text.find("  SKIP range.split_union: ") != std::string::npos);
    CHECK(text.find("cli.read") == std::string::npos);
    CHECK(text.find("    rerun: conform run --only read\n") != std::string::npos);
    CHECK(text.find("2 scenarios, 1 failed; checks: 2 passed, 1 failed, 1 warned, 1 skipped "
                    "(1.2 s)") != std::string::npos);
    // Not a terminal: no colours.
    CHECK(text.find('\033') == std::string::npos);
}
