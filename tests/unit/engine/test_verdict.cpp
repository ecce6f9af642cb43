// The status rules (engine::conclude) and the closed verdict API: the framework, not the check,
// decides; a check that judged nothing never passes.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/verdict.hpp"
#include "protocol/secrets.hpp"

using namespace conform;
using engine::Circumstances;
using engine::Verdict;
using report::Level;
using report::Status;

namespace {

const engine::CheckInfo k_must{"read.records_match_schema",
                               {"AP-READ-2"},
                               Level::must,
                               "every record validates against its stream schema"};
const engine::CheckInfo k_should{"io.json_lines", {"AP-IO-1"}, Level::should, "JSON lines"};

Verdict judged_with(std::uint64_t failures) {
    Verdict verdict;
    verdict.judged(10);
    for (std::uint64_t i = 0; i < failures; ++i) {
        verdict.fail("problem " + std::to_string(i), {"read", i + 1, "{}"});
    }
    return verdict;
}

report::CheckResult concluded(const engine::CheckInfo& info, const Verdict& verdict,
                              bool strict = false) {
    Circumstances circumstances;
    circumstances.strict = strict;
    circumstances.nothing_judged = "the read emitted no RECORD";
    return engine::conclude(info, verdict, circumstances);
}

report::CheckResult result_with(Status status) {
    report::CheckResult result;
    result.status = status;
    return result;
}

}  // namespace

TEST_CASE("conclude: a MUST check with findings fails; one that judged without findings passes") {
    auto failed = concluded(k_must, judged_with(2));
    CHECK(failed.status == Status::failed);
    CHECK(failed.id == "read.records_match_schema");
    CHECK(failed.clauses == std::vector<std::string>{"AP-READ-2"});
    CHECK(failed.level == Level::must);
    CHECK(failed.title == "every record validates against its stream schema");
    CHECK(failed.occurrences == 2);
    REQUIRE(failed.examples.size() == 2);
    CHECK(failed.examples[1].message == "problem 1");
    CHECK(failed.examples[1].line == 2);

    auto passed = concluded(k_must, judged_with(0));
    CHECK(passed.status == Status::passed);
    CHECK(passed.occurrences == 0);
}

TEST_CASE("conclude: a check that judged nothing is skipped with its own reason, never passed") {
    Verdict nothing;
    auto result = concluded(k_must, nothing);
    CHECK(result.status == Status::skipped);
    CHECK(result.note == "the read emitted no RECORD");
    CHECK(concluded(k_must, nothing, true).status == Status::skipped);
}

TEST_CASE("conclude: a SHOULD check warns, and fails under strict") {
    CHECK(concluded(k_should, judged_with(1)).status == Status::warned);
    CHECK(concluded(k_should, judged_with(1), true).status == Status::failed);
    CHECK(concluded(k_should, judged_with(0), true).status == Status::passed);
    CHECK(concluded(k_should, judged_with(1)).level == Level::should);
}

TEST_CASE("conclude: a skip without findings is skipped with the reason as note") {
    auto verdict = judged_with(0);
    verdict.skip("the connector does not claim range");
    verdict.note("ignored");
    auto result = concluded(k_must, verdict, true);
    CHECK(result.status == Status::skipped);
    CHECK(result.note == "the connector does not claim range");
}

TEST_CASE("conclude: findings of a partly judged check stand, the note says what is missing") {
    auto verdict = judged_with(3);
    verdict.note("compared by key");
    Circumstances circumstances;
    circumstances.not_run = "step 'again' did not run";
    auto result = engine::conclude(k_must, verdict, circumstances);
    CHECK(result.status == Status::failed);
    CHECK(result.note == "compared by key (incomplete: step 'again' did not run)");
}

TEST_CASE("conclude: a step that did not run keeps a clean check from passing") {
    Circumstances circumstances;
    circumstances.not_run = "step 'again' did not run: no checkpoint";
    auto result = engine::conclude(k_must, judged_with(0), circumstances);
    CHECK(result.status == Status::skipped);
    CHECK(result.note == "step 'again' did not run: no checkpoint");
}

TEST_CASE("conclude: advisory findings warn inside a MUST check, fail under --strict") {
    Verdict verdict;
    verdict.judged();
    verdict.advise("re-emitted a committed record");
    auto result = concluded(k_must, verdict);
    CHECK(result.status == Status::warned);
    CHECK(result.examples.at(0).message == "(SHOULD) re-emitted a committed record");
    CHECK(result.advisories == 1);
    CHECK(concluded(k_must, verdict, true).status == Status::failed);
    verdict.fail("lost a record");
    CHECK(concluded(k_must, verdict).status == Status::failed);
}

TEST_CASE("conclude: under --strict a skipped check of a claimed extension fails") {
    Circumstances circumstances;
    circumstances.strict = true;
    circumstances.claimed_extension = "range";
    circumstances.nothing_judged = "no shard ran";
    auto result = engine::conclude(k_must, Verdict{}, circumstances);
    CHECK(result.status == Status::failed);
    REQUIRE(result.examples.size() == 1);
    CHECK(result.examples[0].message.find("claims 'range'") != std::string::npos);
    circumstances.strict = false;
    CHECK(engine::conclude(k_must, Verdict{}, circumstances).status == Status::skipped);
}

TEST_CASE("Verdict keeps five examples and counts every finding, each level apart") {
    auto verdict = judged_with(12);
    verdict.count_more(3, 2);
    CHECK(verdict.failures() == 15);
    CHECK(verdict.advisories() == 2);
    CHECK(verdict.examples().size() == 5);
    CHECK(verdict.examples()[4].message == "problem 4");
    auto result = concluded(k_must, verdict);
    CHECK(result.occurrences == 17);
    CHECK(result.advisories == 2);
}

TEST_CASE("Verdict: one example may stand for several findings, counted even when not kept") {
    Verdict verdict;
    verdict.judged();
    verdict.fail("re-emitted after checkpoints 2, 3, 4", {"read", 7, "{}"}, 3);
    CHECK(verdict.failures() == 3);
    REQUIRE(verdict.examples().size() == 1);
    CHECK(verdict.examples()[0].findings == 3);
    for (int i = 0; i < 5; ++i) {
        verdict.fail("another", {}, 2);
    }
    CHECK(verdict.failures() == 13);
    CHECK(verdict.examples().size() == 5);
}

TEST_CASE("report::redact masks notes, messages, excerpts, commands, stderr and resume examples") {
    protocol::Secrets secrets({"topsecret"});
    auto verdict = judged_with(0);
    verdict.fail("saw topsecret", {"read", 3, "{\"k\":\"topsecret\"}"});
    verdict.note("compared with topsecret");
    Verdict skipped;
    skipped.skip("topsecret missing");
    report::ScenarioResult scenario;
    scenario.checks.push_back(concluded(k_must, verdict));
    scenario.checks.push_back(concluded(k_must, skipped));
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

TEST_CASE("scenario_status: failed beats warned beats passed; all skipped is skipped") {
    using Results = std::vector<report::CheckResult>;
    using engine::scenario_status;
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

TEST_CASE("scenario_status: a scenario never passes when every check it exists for skipped") {
    using engine::scenario_status;
    auto incidental = [](Status status) {
        auto result = result_with(status);
        result.purpose = false;
        return result;
    };
    // sg-currently-syncing with its own check skipped: the messages of its syncs were valid.
    CHECK(scenario_status({result_with(Status::skipped), incidental(Status::passed),
                           incidental(Status::passed)}) == Status::skipped);
    // What the other checks found still counts.
    CHECK(scenario_status({result_with(Status::skipped), incidental(Status::warned)}) ==
          Status::warned);
    CHECK(scenario_status({result_with(Status::skipped), incidental(Status::failed)}) ==
          Status::failed);
    CHECK(scenario_status({result_with(Status::passed), result_with(Status::skipped),
                           incidental(Status::passed)}) == Status::passed);
    // Under --only a scenario may keep none of the checks it exists for: all of them count.
    CHECK(scenario_status({incidental(Status::passed), incidental(Status::skipped)}) ==
          Status::passed);
}
