// The one run loop, through a fake protocol: selection, shards, --fail-fast, the reporter,
// redaction and rerun commands exist once for every protocol.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "engine/run.hpp"
#include "util/error.hpp"

using namespace conform;
using report::Status;

namespace {

// Scenarios "a" (check x.one), "b" (x.two, fails), "c" (x.three); every text carries "s3cret".
class FakeSource : public engine::ScenarioSource {
public:
    const std::vector<engine::ScenarioHeader>& scenarios() const override { return m_headers; }
    void prepare() override { ++prepared; }
    engine::Target target() const override { return {"fake target", "1.2", "a test"}; }
    report::ScenarioResult run(std::size_t index, const std::vector<std::string>& checks,
                               bool strict) override {
        report::ScenarioResult result;
        result.id = m_headers[index].id;
        for (const auto& id : checks) {
            report::CheckResult check;
            check.id = id;
            check.status = id == "x.two" ? Status::failed : Status::passed;
            check.note = "saw s3cret";
            result.checks.push_back(check);
        }
        result.status = index == 1 ? Status::failed : Status::passed;
        ran.push_back(result.id);
        last_strict = strict;
        return result;
    }
    engine::PlannedScenario plan(std::size_t index) const override {
        return {{"step " + m_headers[index].id}, 1, true, index == 2 ? "needs a thing" : ""};
    }
    std::string mask(std::string_view text) const override {
        std::string masked(text);
        if (auto at = masked.find("s3cret"); at != std::string::npos) {
            masked.replace(at, 6, "***");
        }
        return masked;
    }

    int prepared = 0;
    std::vector<std::string> ran;
    bool last_strict = false;

private:
    std::vector<engine::ScenarioHeader> m_headers{{"a", "core", "A", {"x.one"}},
                                                  {"b", "core", "B", {"x.two"}},
                                                  {"c", "ext", "C", {"x.three"}}};
};

class Recorder : public report::Reporter {
public:
    void scenario_started(const std::string& id, const std::string&) override {
        events.push_back("start " + id);
    }
    void scenario_finished(const report::ScenarioResult& result) override {
        events.push_back("finish " + result.id + " " + result.checks.front().note);
    }
    std::vector<std::string> events;
};

}  // namespace

TEST_CASE("run: every scenario runs in order, masked, with its rerun command and position") {
    FakeSource source;
    Recorder reporter;
    engine::RunOptions options;
    options.rerun_prefix = "conform run -t x.json";
    options.strict = true;
    auto report = engine::run(source, options, reporter);
    CHECK(source.prepared == 1);
    CHECK(source.ran == std::vector<std::string>{"a", "b", "c"});
    CHECK(source.last_strict);
    CHECK(report.connector == "fake target");
    CHECK(report.connector_version == "1.2");
    REQUIRE(report.scenarios.size() == 3);
    CHECK(report.scenarios[1].rerun == "conform run -t x.json --only b");
    CHECK(report.scenarios[2].position == 2);
    CHECK(report.scenarios[0].checks[0].note == "saw ***");
    CHECK(!report.filtered);
    CHECK(reporter.events == std::vector<std::string>{"start a", "finish a saw ***", "start b",
                                                      "finish b saw ***", "start c",
                                                      "finish c saw ***"});
}

TEST_CASE("run: --fail-fast stops after the failed scenario, which the reporter is told of") {
    FakeSource source;
    Recorder reporter;
    engine::RunOptions options;
    options.fail_fast = true;
    auto report = engine::run(source, options, reporter);
    CHECK(source.ran == std::vector<std::string>{"a", "b"});
    REQUIRE(report.scenarios.size() == 2);
    CHECK(report.scenarios[1].status == Status::failed);
    CHECK(report.filtered);
    CHECK(reporter.events.back() == "finish b saw ***");
}

TEST_CASE("run: --only and --skip select scenarios, suites and checks; shards split the rest") {
    FakeSource source;
    Recorder reporter;
    engine::RunOptions only_ext;
    only_ext.only = {"ext"};
    CHECK(engine::run(source, only_ext, reporter).scenarios.size() == 1);
    engine::RunOptions skip_check;
    skip_check.skip = {"x.two"};
    auto skipped = engine::run(source, skip_check, reporter);
    CHECK(skipped.scenarios.size() == 2);  // a scenario with no selected check does not run
    CHECK(skipped.filtered);
    engine::RunOptions second_shard;
    second_shard.shard_index = 1;
    second_shard.shard_count = 2;
    auto shard = engine::run(source, second_shard, reporter);
    REQUIRE(shard.scenarios.size() == 1);
    CHECK(shard.scenarios[0].id == "b");
    CHECK(shard.scenarios[0].position == 1);
    CHECK(shard.shard == "2/2");
}

TEST_CASE("run: unknown --only names are a usage error with the nearest name") {
    FakeSource source;
    CHECK_THROWS_WITH_AS(
        engine::check_selection_names({"x.tow"}, source.scenarios(), {"x.one", "x.two"}),
        "unknown scenario, suite or check 'x.tow' (did you mean 'x.two'?); `conform list` shows "
        "them",
        Error);
    CHECK_NOTHROW(engine::check_selection_names({"x.*", "core"}, source.scenarios(), {"x.one"}));
}

TEST_CASE("print_dry_run: starts nothing and counts what would run, without unmet scenarios") {
    FakeSource source;
    CHECK(engine::print_dry_run(source, {}) == 2);
    CHECK(source.prepared == 0);
    CHECK(source.ran.empty());
}

TEST_CASE("run: --rerun-failed reruns only a scenario with an unexpected failure, up to N times") {
    FakeSource source;
    Recorder reporter;
    engine::RunOptions options;
    options.rerun_failed = 2;
    auto report = engine::run(source, options, reporter);
    CHECK(source.ran == std::vector<std::string>{"a", "b", "b", "b", "c"});
    CHECK(report.scenarios[1].checks[0].status == Status::failed);

    FakeSource listed_source;
    auto known = engine::parse_known_failures(R"([{"check": "x.two", "reason": "known"}])",
                                              "k.json", {{"x.one", "x.two", "x.three"}, {}});
    options.known_failures = &known;
    auto listed = engine::run(listed_source, options, reporter);
    CHECK(listed_source.ran == std::vector<std::string>{"a", "b", "c"});
    CHECK(listed.scenarios[1].checks[0].status == Status::expected_failure);
    CHECK(listed.check_totals().expected_failures == 1);
}

TEST_CASE("after_rerun: a failure that passes on the rerun is flaky, never passed") {
    auto result = [](Status one, Status two) {
        report::ScenarioResult scenario;
        scenario.id = "s";
        report::CheckResult first;
        first.id = "x.one";
        first.status = one;
        first.examples.push_back({"lost record 7"});
        report::CheckResult second;
        second.id = "x.two";
        second.status = two;
        scenario.checks = {first, second};
        scenario.duration_ms = 10;
        return scenario;
    };
    auto flaky = engine::after_rerun(result(Status::failed, Status::passed),
                                     result(Status::passed, Status::passed));
    CHECK(flaky.checks[0].status == Status::flaky);
    CHECK(flaky.checks[0].flaky_first_failure == "lost record 7");
    CHECK(flaky.checks[1].status == Status::passed);
    CHECK(flaky.status == Status::flaky);
    CHECK(flaky.duration_ms == 20);

    auto still = engine::after_rerun(result(Status::failed, Status::passed),
                                     result(Status::failed, Status::passed));
    CHECK(still.checks[0].status == Status::failed);
    CHECK(still.status == Status::failed);

    auto skipped = engine::after_rerun(result(Status::failed, Status::passed),
                                       result(Status::skipped, Status::passed));
    CHECK(skipped.checks[0].status == Status::failed);  // the rerun proved nothing

    auto newly = engine::after_rerun(result(Status::passed, Status::passed),
                                     result(Status::passed, Status::failed));
    CHECK(newly.checks[1].status == Status::failed);
}
