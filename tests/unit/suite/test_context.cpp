#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "suite/context.hpp"

using namespace conform;
using namespace conform::suite;
using report::Status;

namespace {

CheckOutcome outcome_with(std::uint64_t occurrences) {
    CheckOutcome outcome;
    for (std::uint64_t i = 0; i < occurrences; ++i) {
        outcome.add("problem " + std::to_string(i), "read", i + 1, "{}");
    }
    return outcome;
}

report::CheckResult result_with(Status status) {
    report::CheckResult result;
    result.status = status;
    return result;
}

}  // namespace

TEST_CASE("to_check_result: a MUST check with findings fails, without passes") {
    auto failed = to_check_result("read.records_match_schema", outcome_with(2), false);
    CHECK(failed.status == Status::failed);
    CHECK(failed.id == "read.records_match_schema");
    CHECK(failed.clauses == std::vector<std::string>{"AP-READ-2"});
    CHECK(failed.level == checks::Level::must);
    CHECK(failed.title == "every record validates against its stream schema");
    CHECK(failed.occurrences == 2);
    REQUIRE(failed.examples.size() == 2);
    CHECK(failed.examples[1].message == "problem 1");
    CHECK(failed.examples[1].line == 2);

    auto passed = to_check_result("read.records_match_schema", outcome_with(0), false);
    CHECK(passed.status == Status::passed);
    CHECK(passed.occurrences == 0);
}

TEST_CASE("to_check_result: a SHOULD check warns, and fails under strict") {
    CHECK(to_check_result("io.json_lines", outcome_with(1), false).status == Status::warned);
    CHECK(to_check_result("io.json_lines", outcome_with(1), true).status == Status::failed);
    CHECK(to_check_result("io.json_lines", outcome_with(0), true).status == Status::passed);
    CHECK(to_check_result("io.json_lines", outcome_with(1), false).level == checks::Level::should);
}

TEST_CASE("to_check_result: not applicable is skipped with the reason as note") {
    auto outcome = outcome_with(0);
    outcome.not_applicable = "the connector does not claim range";
    outcome.note = "ignored";
    auto result = to_check_result("range.split_union", outcome, true);
    CHECK(result.status == Status::skipped);
    CHECK(result.note == "the connector does not claim range");
}

TEST_CASE("to_check_result: findings of a partly run check stand, the note says what is missing") {
    auto outcome = outcome_with(3);
    outcome.not_applicable = "step 'again' did not run";
    outcome.note = "compared by key";
    auto result = to_check_result("range.split_union", outcome, false);
    CHECK(result.status == Status::failed);
    CHECK(result.note == "compared by key (incomplete: step 'again' did not run)");
}

TEST_CASE("to_check_result: advisory findings warn inside a MUST check, fail under --strict") {
    CheckOutcome outcome;
    outcome.advise("re-emitted a committed record");
    auto result = to_check_result("range.state_subdivision", outcome, false);
    CHECK(result.status == Status::warned);
    CHECK(result.examples.at(0).message == "(SHOULD) re-emitted a committed record");
    CHECK(to_check_result("range.state_subdivision", outcome, true).status == Status::failed);
    outcome.add("lost a record");
    CHECK(to_check_result("range.state_subdivision", outcome, false).status == Status::failed);
}

TEST_CASE("report::redact masks notes, messages, excerpts, commands, stderr and resume examples") {
    protocol::Secrets secrets({"topsecret"});
    CheckOutcome outcome;
    outcome.add("saw topsecret", "read", 3, "{\"k\":\"topsecret\"}");
    outcome.note = "compared with topsecret";
    CheckOutcome skipped;
    skipped.not_applicable = "topsecret missing";
    report::ScenarioResult scenario;
    scenario.checks.push_back(to_check_result("secrets.not_leaked", outcome, false));
    scenario.checks.push_back(to_check_result("secrets.not_leaked", skipped, false));
    scenario.runs.push_back(
        {"read", "run --pin topsecret", "exit 0", 1, 0, 0, 0, "err topsecret", "rm topsecret", {}});
    report::ResumedCheckpoint resume;
    resume.run = "read [resume topsecret]";
    resume.lost_example = "users id=[\"topsecret\"]";
    resume.repeated_example = "events id=[\"topsecret\"]";
    scenario.runs[0].timeline.resumes.push_back(resume);
    scenario.rerun = "conform run --only x # topsecret";
    report::redact(scenario, [&secrets](std::string_view text) { return secrets.redact(text); });
    const auto& result = scenario.checks[0];
    REQUIRE(result.examples.size() == 1);
    CHECK(result.examples[0].message == "saw **********");
    CHECK(result.examples[0].excerpt == "{\"k\":\"**********\"}");
    CHECK(result.note == "compared with **********");
    CHECK(scenario.checks[1].note == "********** missing");
    CHECK(scenario.runs[0].command == "run --pin **********");
    CHECK(scenario.runs[0].stderr_tail == "err **********");
    CHECK(scenario.runs[0].cleanup_problem == "rm **********");
    const auto& masked = scenario.runs[0].timeline.resumes[0];
    CHECK(masked.run == "read [resume **********]");
    CHECK(masked.lost_example == "users id=[\"**********\"]");
    CHECK(masked.repeated_example == "events id=[\"**********\"]");
    CHECK(scenario.rerun == "conform run --only x # **********");
}

TEST_CASE("CheckOutcome::add keeps five examples and counts all") {
    auto outcome = outcome_with(12);
    CHECK(outcome.occurrences == 12);
    CHECK(outcome.examples.size() == 5);
    CHECK(outcome.examples[4].message == "problem 4");
}

TEST_CASE("scenario_status: failed beats warned beats passed; all skipped is skipped") {
    using Results = std::vector<report::CheckResult>;
    CHECK(scenario_status(Results{}) == Status::skipped);
    CHECK(scenario_status({result_with(Status::skipped), result_with(Status::skipped)}) ==
          Status::skipped);
    CHECK(scenario_status({result_with(Status::skipped), result_with(Status::passed)}) ==
          Status::passed);
    CHECK(scenario_status({result_with(Status::passed), result_with(Status::warned),
                           result_with(Status::skipped)}) == Status::warned);
    CHECK(scenario_status({result_with(Status::warned), result_with(Status::failed),
                           result_with(Status::passed)}) == Status::failed);
}

TEST_CASE("evaluate_check: analyzer findings of every run are collected with their counts") {
    Scenario scenario;
    scenario.id = "s";
    Step step;
    step.id = "read";
    step.run = Command::read;
    protocol::Catalog catalog;
    ScenarioContext context;
    context.scenario = &scenario;
    context.catalog = &catalog;
    StepResult result;
    result.step = &step;
    for (int run = 0; run < 2; ++run) {
        protocol::Observation observation;
        observation.label = "read #" + std::to_string(run);
        observation.findings.push_back({"io.json_lines", "not json", 4, "x"});
        observation.findings.push_back({"io.known_types", "unknown", 5, "y"});
        // 10 occurrences, of which one example was kept.
        observation.finding_counts["io.json_lines"] = 10;
        observation.finding_counts["io.known_types"] = 1;
        result.runs.push_back(std::move(observation));
    }
    context.steps.push_back(std::move(result));

    auto outcome = evaluate_check("io.json_lines", context);
    CHECK(outcome.occurrences == 20);
    REQUIRE(outcome.examples.size() == 2);
    CHECK(outcome.examples[0].run == "read #0");
    CHECK(outcome.examples[1].run == "read #1");
    CHECK(outcome.examples[0].line == 4);
    CHECK(outcome.examples[0].excerpt == "x");
    CHECK(evaluate_check("read.emitted_at_ms", context).occurrences == 0);
    CHECK(context.step("read") == &context.steps[0]);
    CHECK(context.step("other") == nullptr);
    CHECK(context.steps_running(Command::read).size() == 1);
    CHECK(context.steps_running(Command::spec).empty());
}
