#include <doctest/doctest.h>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "report/files.hpp"
#include "report/json_read.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::report;

namespace {

std::filesystem::path temp_file(const std::string& name, const std::string& content) {
    auto path = std::filesystem::temp_directory_path() /
                ("conform-test-" + std::to_string(getpid()) + "-" + name);
    std::ofstream(path) << content;
    return path;
}

ScenarioResult scenario(std::string id, std::size_t position, Status status) {
    ScenarioResult result;
    result.id = std::move(id);
    result.position = position;
    result.status = status;
    result.rerun = "conform run --only " + result.id;
    CheckResult check;
    check.id = "cli.read";
    check.clauses = {"AP-CLI-4"};
    check.status = status;
    check.duration_ms = 2;
    check.examples = {{"expected exit 0, saw exit 3", "read", 4, "{\"type\":\"LOG\"}"}};
    result.checks = {check};
    RunSummary run;
    run.label = "read";
    run.records = 5;
    result.runs = {run};
    return result;
}

RunReport shard(std::string name, std::vector<ScenarioResult> scenarios) {
    RunReport report;
    report.connector = "./source";
    report.started_at = "2026-11-30T12:00:00Z";
    report.claimed_extensions = {"range"};
    report.shard = std::move(name);
    report.scenarios = std::move(scenarios);
    return report;
}

std::string error_of(const std::function<void()>& action) {
    try {
        action();
    } catch (const Error& error) {
        return error.what();
    }
    return {};
}

}  // namespace

TEST_CASE("json report: reading a saved report and writing it again gives the same text") {
    auto report = shard("2/3", {scenario("read", 4, Status::failed)});
    report.strict = true;
    report.scenarios.front().checks.front().examples.front().findings = 3;
    auto text = to_json_report(report);
    CHECK(text.find("\"findings\": 3") != std::string::npos);
    auto path = temp_file("roundtrip.json", text);
    auto read = read_json_report(path);
    CHECK(read.scenarios.front().checks.front().examples.front().findings == 3);
    CHECK(to_json_report(read) == text);
    std::filesystem::remove(path);
}

TEST_CASE("json report: a file that is not a report is an input error naming file and field") {
    auto path = temp_file("bad.json", R"({"version":2,"metadata":{"connector":7}})");
    auto message = error_of([&] { read_json_report(path); });
    CHECK(message.find(path.string()) != std::string::npos);
    CHECK(message.find("/metadata/connector: expected a string") != std::string::npos);
    std::filesystem::remove(path);
    auto future = temp_file("future.json", R"({"version":9,"metadata":{}})");
    CHECK(error_of([&] { read_json_report(future); }).find("/version") != std::string::npos);
    std::filesystem::remove(future);
}

TEST_CASE("merge: shards in suite order, the whole run's shard empty") {
    auto merged = merge_reports(
        {shard("2/2", {scenario("b", 1, Status::passed)}),
         shard("1/2", {scenario("a", 0, Status::passed), scenario("c", 2, Status::failed)})},
        {"s2.json", "s1.json"});
    REQUIRE(merged.scenarios.size() == 3);
    CHECK(merged.scenarios[0].id == "a");
    CHECK(merged.scenarios[1].id == "b");
    CHECK(merged.scenarios[2].id == "c");
    CHECK(merged.shard.empty());
    CHECK(merged.check_totals().failed == 1);
}

TEST_CASE("merge: a missing shard, a shard twice, another connector are refused") {
    auto one = shard("1/3", {scenario("a", 0, Status::passed)});
    auto two = shard("2/3", {scenario("b", 1, Status::passed)});
    CHECK(error_of([&] {
              merge_reports({one, two}, {"s1", "s2"});
          }).find("shard 3/3 is missing") != std::string::npos);
    CHECK(error_of([&] {
              merge_reports({one, one}, {"s1", "again"});
          }).find("shard 1/3 given twice: s1 and again") != std::string::npos);
    auto other = shard("", {scenario("b", 1, Status::passed)});
    other.connector = "./another";
    auto whole = shard("", {scenario("a", 0, Status::passed)});
    CHECK(error_of([&] {
              merge_reports({whole, other}, {"w", "o"});
          }).find("connector") != std::string::npos);
}
