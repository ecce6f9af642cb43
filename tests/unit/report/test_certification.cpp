#include <doctest/doctest.h>

#include <string>

#include "report/certification.hpp"
#include "report/clauses.hpp"

using namespace conform::report;

namespace {

ScenarioResult scenario(std::string id, std::string extension, std::vector<Status> statuses) {
    ScenarioResult result;
    result.id = std::move(id);
    result.extension = std::move(extension);
    for (auto status : statuses) {
        CheckResult check;
        check.id = "check." + std::to_string(result.checks.size());
        check.status = status;
        result.checks.push_back(check);
    }
    return result;
}

RunReport claiming(std::vector<std::string> extensions, std::vector<ScenarioResult> scenarios) {
    RunReport report;
    report.claimed_extensions = std::move(extensions);
    report.scenarios = std::move(scenarios);
    return report;
}

AreaVerdict verdict_for(const RunReport& report, const std::string& area) {
    for (const auto& verdict : certify(report)) {
        if (verdict.area == area) {
            return verdict;
        }
    }
    FAIL("no verdict for " << area);
    return {};
}

}  // namespace

TEST_CASE("certification: core certified with nothing-to-judge skips, extensions by claim") {
    auto report = claiming({"range"}, {scenario("read", "", {Status::passed, Status::skipped}),
                                       scenario("range-splits", "range", {Status::passed})});
    auto verdicts = certify(report);
    REQUIRE(verdicts.size() == 1 + known_extensions().size());
    CHECK(verdicts[0].area == "core");
    CHECK(verdicts[0].level == Certified::certified);
    CHECK(verdict_for(report, "range").level == Certified::certified);
    CHECK(verdict_for(report, "tail").level == Certified::not_claimed);
}

TEST_CASE("certification: the skips of unclaimed extensions, in their scenarios and core ones") {
    auto read = scenario("read", "", {Status::passed, Status::skipped});
    read.checks[1].id = "merge.reduction_valid";
    auto report = claiming({"tail"}, {read, scenario("range-splits", "range", {Status::skipped}),
                                      scenario("tail-on", "tail", {Status::skipped})});
    CHECK(unclaimed_extension_of(report.scenarios[0], report.scenarios[0].checks[1],
                                 report.claimed_extensions) == "merge");
    CHECK(unclaimed_extension_of(report.scenarios[0], report.scenarios[0].checks[0],
                                 report.claimed_extensions)
              .empty());
    CHECK(unclaimed_extension_of(report.scenarios[2], report.scenarios[2].checks[0],
                                 report.claimed_extensions)
              .empty());  // tail is claimed: its skip is the connector's
    auto skips = unclaimed_skips(report, report.claimed_extensions);
    CHECK(skips.checks == 2);
    CHECK(skips.extensions == std::vector<std::string>{"range", "merge"});
    report.test_config = std::string(k_command_line_origin);
    CHECK(unclaimed_summary(report, skips) ==
          "2 check(s) of extensions the connector does not claim: range, merge; a "
          "connector that supports one claims it with --extensions range,merge");
    report.recorded_transcript = true;
    CHECK(unclaimed_summary(report, skips)
              .ends_with("; conform run tests the extensions a connector claims"));
    CHECK(unclaimed_summary(report, {}).empty());
}

TEST_CASE("certification: a claimed extension with a skipped check is incomplete") {
    auto report =
        claiming({"tail"}, {scenario("read", "", {Status::passed}),
                            scenario("tail-on", "tail", {Status::passed, Status::skipped})});
    auto tail = verdict_for(report, "tail");
    CHECK(tail.level == Certified::incomplete);
    CHECK(tail.reason.find("tail-on:check.1") != std::string::npos);
}

TEST_CASE("certification: a failure fails its area only; warnings certify") {
    auto report = claiming({"merge"}, {scenario("read", "", {Status::warned}),
                                       scenario("merge-states", "merge", {Status::failed})});
    CHECK(verdict_for(report, "core").level == Certified::certified);
    auto merge = verdict_for(report, "merge");
    CHECK(merge.level == Certified::failed);
    CHECK(merge.reason.find("merge-states:check.0") != std::string::npos);
}

TEST_CASE(
    "certification: nothing ran, a filtered, an interrupted run and a recorded transcript certify "
    "nothing") {
    auto empty = claiming({"range"}, {});
    CHECK(verdict_for(empty, "core").level == Certified::not_tested);
    CHECK(verdict_for(empty, "range").level == Certified::not_tested);

    auto filtered = claiming({}, {scenario("read", "", {Status::passed})});
    filtered.filtered = true;
    CHECK(verdict_for(filtered, "core").level == Certified::incomplete);

    auto interrupted = claiming({}, {scenario("read", "", {Status::passed})});
    interrupted.interrupted = true;
    CHECK(verdict_for(interrupted, "core").level == Certified::incomplete);

    auto recorded = claiming({}, {scenario("transcript", "", {Status::passed})});
    recorded.recorded_transcript = true;
    CHECK(verdict_for(recorded, "core").level == Certified::incomplete);
    CHECK(verdict_for(recorded, "core").reason.find("conform run") != std::string::npos);
}

TEST_CASE("clause texts come from docs/CONTRACT.md") {
    CHECK(clause_text("AP-CLI-1").find("exactly one SPEC") != std::string::npos);
    CHECK(clause_text("X-STATE-1").find("STATE") != std::string::npos);
    CHECK(clause_text("MX-HELP-1").find("--help") != std::string::npos);
    CHECK(clause_text("AP-NOPE-9").empty());
    CHECK(clause_text("AP-CLI-1").find('|') == std::string::npos);
}
