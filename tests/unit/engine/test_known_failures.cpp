// Known failures (engine/known_failures.*): parsing with file:line errors and did-you-mean, which
// failures an entry covers (check, scenario, stream), stale entries, and the written list.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/known_failures.hpp"
#include "util/error.hpp"

using namespace conform;
using engine::KnownFailureLedger;
using engine::KnownFailures;
using report::Status;

namespace {

const engine::KnownIds k_ids{{"read.emitted_at_ms", "read.no_duplicates", "cli.read"},
                             {"read", "read-expected"}};

std::string error_of(const std::string& text) {
    try {
        engine::parse_known_failures(text, "known.json", k_ids);
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    return "(no error)";
}

report::CheckResult check_with(std::string id, Status status, std::vector<std::string> messages) {
    report::CheckResult check;
    check.id = std::move(id);
    check.status = status;
    for (auto& message : messages) {
        check.examples.push_back({std::move(message)});
    }
    check.occurrences = check.examples.size();
    return check;
}

report::ScenarioResult scenario_with(std::string id, std::vector<report::CheckResult> checks) {
    report::ScenarioResult scenario;
    scenario.id = std::move(id);
    scenario.checks = std::move(checks);
    scenario.status = Status::failed;
    return scenario;
}

}  // namespace

TEST_CASE("a known-failures file is read with each entry's line") {
    auto list = engine::parse_known_failures(
        "[\n  {\"check\": \"cli.read\", \"reason\": \"r1\"},\n"
        "  {\"check\": \"read.no_duplicates\", \"scenario\": \"read\", \"stream\": \"users\",\n"
        "   \"reason\": \"r2\"}\n]",
        "known.json", k_ids);
    REQUIRE(list.entries.size() == 2);
    CHECK(list.origin == "known.json");
    CHECK(list.entries[0].check == "cli.read");
    CHECK(list.entries[0].scenario.empty());
    CHECK(list.entries[0].line == 2);
    CHECK(list.entries[1].scenario == "read");
    CHECK(list.entries[1].stream == "users");
    CHECK(list.entries[1].reason == "r2");
    CHECK(list.entries[1].line == 3);
}

TEST_CASE("a malformed known-failures file names the file, the line and what was expected") {
    auto missing_reason = error_of("[\n  {\"check\": \"cli.read\"}\n]");
    CHECK(missing_reason.find("known.json:2") != std::string::npos);
    CHECK(missing_reason.find("reason") != std::string::npos);
    auto not_a_list = error_of("{\"check\": \"cli.read\", \"reason\": \"x\"}");
    CHECK(not_a_list.find("array") != std::string::npos);
    auto unknown_key = error_of("[{\"check\": \"cli.read\", \"reason\": \"x\", \"why\": 1}]");
    CHECK(unknown_key.find("why") != std::string::npos);
}

TEST_CASE("an id no check or scenario has is bad input with the nearest id") {
    auto check = error_of("[\n{\"check\": \"read.emited_at_ms\", \"reason\": \"x\"}]");
    CHECK(check.find("known.json:2") != std::string::npos);
    CHECK(check.find("did you mean 'read.emitted_at_ms'") != std::string::npos);
    auto scenario =
        error_of("[{\"check\": \"cli.read\", \"scenario\": \"raed\", \"reason\": \"x\"}]");
    CHECK(scenario.find("did you mean 'read'") != std::string::npos);
}

TEST_CASE("an example names a stream when quoted or after the word stream") {
    CHECK(engine::names_stream({"record of 'users' lacks id"}, "users"));
    CHECK(engine::names_stream({"", "", 3, R"({"type":"RECORD","record":{"stream":"users"}})"},
                               "users"));
    CHECK(engine::names_stream({"stream users: no state"}, "users"));
    CHECK_FALSE(engine::names_stream({"stream users_v2: no state"}, "users"));
    CHECK_FALSE(engine::names_stream({"record of 'events' lacks id"}, "users"));
}

TEST_CASE("a listed failure becomes expected; an unlisted one, or another stream's, stays failed") {
    auto list = engine::parse_known_failures(
        R"([{"check": "read.emitted_at_ms", "reason": "float"},
            {"check": "read.no_duplicates", "stream": "users", "reason": "dupes"}])",
        "known.json", k_ids);
    KnownFailureLedger ledger(list);
    auto result = scenario_with(
        "read", {check_with("read.emitted_at_ms", Status::failed, {"1.5 is not an integer"}),
                 check_with("read.no_duplicates", Status::failed, {"'events' record twice"}),
                 check_with("cli.read", Status::failed, {"exit 1"})});
    ledger.apply(result);
    CHECK(result.checks[0].status == Status::expected_failure);
    CHECK(result.checks[0].known_failure_reason == "float");
    CHECK(result.checks[1].status == Status::failed);
    CHECK(result.checks[2].status == Status::failed);
    CHECK(result.status == Status::failed);

    auto only_listed = scenario_with(
        "read", {check_with("read.emitted_at_ms", Status::failed, {"x"}),
                 check_with("read.no_duplicates", Status::failed, {"'users' record twice"})});
    ledger.apply(only_listed);
    CHECK(only_listed.checks[1].status == Status::expected_failure);
    CHECK(only_listed.status == Status::expected_failure);
}

TEST_CASE("an entry whose check passed everywhere it ran is stale and fails that check") {
    auto list = engine::parse_known_failures(
        R"([{"check": "cli.read", "reason": "old"},
            {"check": "read.emitted_at_ms", "reason": "still"}])",
        "known.json", k_ids);
    KnownFailureLedger ledger(list);
    report::RunReport report;
    report.scenarios.push_back(
        scenario_with("read", {check_with("cli.read", Status::passed, {}),
                               check_with("read.emitted_at_ms", Status::passed, {})}));
    report.scenarios.push_back(scenario_with(
        "read-expected", {check_with("read.emitted_at_ms", Status::failed, {"float"})}));
    for (auto& scenario : report.scenarios) {
        ledger.apply(scenario);
    }
    ledger.settle(report);
    REQUIRE(report.stale_known_failures.size() == 1);
    CHECK(report.stale_known_failures[0].find("remove its entry from known.json:1") !=
          std::string::npos);
    const auto& read = report.scenarios[0];
    CHECK(read.checks[0].status == Status::failed);
    CHECK(read.checks[0].examples.front().message.find("stale known failure: cli.read") == 0);
    CHECK(read.checks[1].status == Status::passed);  // its entry still fails in read-expected
    CHECK(read.status == Status::failed);
    CHECK(report.scenarios[1].checks[0].status == Status::expected_failure);
    CHECK(report.known_failures_file == "known.json");
}

TEST_CASE("an entry whose check did not run is not stale") {
    auto list =
        engine::parse_known_failures(R"([{"check": "cli.read", "reason": "x"}])", "k.json", k_ids);
    KnownFailureLedger ledger(list);
    report::RunReport report;
    report.scenarios.push_back(
        scenario_with("read", {check_with("cli.read", Status::skipped, {})}));
    ledger.apply(report.scenarios[0]);
    ledger.settle(report);
    CHECK(report.stale_known_failures.empty());
    CHECK(report.scenarios[0].checks[0].status == Status::skipped);
}

TEST_CASE("the written list holds today's failures and the expected ones, not stale ones") {
    report::RunReport report;
    auto stale = check_with("cli.read", Status::failed, {"stale known failure: cli.read passes"});
    auto expected = check_with("read.no_duplicates", Status::expected_failure, {"dupes"});
    expected.known_failure_reason = "ticket 7";
    report.scenarios.push_back(scenario_with(
        "read", {check_with("read.emitted_at_ms", Status::failed, {"1.5 is not an integer"}),
                 expected, stale, check_with("io.json_lines", Status::passed, {})}));
    auto written = engine::parse_known_failures(
        engine::known_failures_json(report), "w.json",
        {{"read.emitted_at_ms", "read.no_duplicates", "cli.read", "io.json_lines"}, {"read"}});
    REQUIRE(written.entries.size() == 2);
    CHECK(written.entries[0].check == "read.emitted_at_ms");
    CHECK(written.entries[0].scenario == "read");
    CHECK(written.entries[0].reason == "fails today: 1.5 is not an integer");
    CHECK(written.entries[1].check == "read.no_duplicates");
    CHECK(written.entries[1].reason == "ticket 7");
}
