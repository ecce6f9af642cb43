#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

#include "checks/checks.hpp"
#include "suite/check.hpp"
#include "suite/scenario.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::suite;

namespace {

const Checks& airbyte() {
    return checks::airbyte_checks();
}

std::string load_error(std::string_view text) {
    try {
        load_suite_text(text, "suites/test.json", airbyte());
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    FAIL("load_suite_text accepted an invalid suite");
    return "";
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("suite: a valid suite is read with every step option") {
    auto scenarios = load_suite_text(R"({
  "suite": "mine",
  "scenarios": [
    {"id": "a", "title": "first", "steps": [{"id": "spec", "run": "spec"}], "checks": ["cli.spec"]},
    {
      "id": "b.two",
      "title": "second",
      "requires": ["claims:range", "incremental_stream"],
      "steps": [
        {"id": "full", "run": "read", "tail": false, "range": "full", "config": "merge"},
        {"id": "half", "run": "read", "range": {"begin": "00000000", "end": "7fffffff"},
         "state": {"from": "full", "checkpoint": 3}, "cursor_floor_from": "full",
         "tail": true, "timeout_seconds": 2.5, "inject_after": true},
        {"id": "eq", "run": "read", "split": {"equal": 4}, "projections": "configured",
         "apply_projections": true, "neutral_extension_keys": true,
         "state": {"from": "full", "checkpoint": "sample"}},
        {"id": "cuts", "run": "read", "split": {"cuts": ["10000000", "A0000000"]}},
        {"id": "halves", "run": "read", "split": "halves", "inject_while_running": true}
      ],
      "checks": ["range.split_union", "state.resume_no_loss"]
    }
  ]
})",
                                     "suites/mine.json", airbyte());
    REQUIRE(scenarios.size() == 2);
    CHECK(scenarios[0].id == "a");
    CHECK(scenarios[0].suite == "mine");
    CHECK(scenarios[0].origin == "suites/mine.json:4");
    CHECK(scenarios[0].steps[0].config == ConfigChoice::main);
    CHECK(scenarios[0].steps[0].tail == TailFlag::absent);
    CHECK(scenarios[0].steps[0].range.kind == RangeChoice::Kind::absent);
    CHECK(scenarios[0].steps[0].projections == ProjectionChoice::none);
    const auto& b = scenarios[1];
    CHECK(b.origin == "suites/mine.json:5");
    CHECK(b.requires_ == std::vector<std::string>{"claims:range", "incremental_stream"});
    CHECK(b.checks == std::vector<std::string>{"range.split_union", "state.resume_no_loss"});
    REQUIRE(b.steps.size() == 5);
    CHECK(b.steps[0].tail == TailFlag::off);
    CHECK(b.steps[0].range.kind == RangeChoice::Kind::full);
    CHECK(b.steps[0].config == ConfigChoice::merge);
    CHECK(b.steps[1].range == RangeChoice{RangeChoice::Kind::given, "00000000", "7fffffff"});
    CHECK(b.steps[1].state_from == "full");
    CHECK(to_string(b.steps[1].state_checkpoint) == "3");
    CHECK(b.steps[1].cursor_floor_from == "full");
    CHECK(b.steps[1].tail == TailFlag::on);
    CHECK(b.steps[1].timeout_seconds == doctest::Approx(2.5));
    CHECK(b.steps[1].inject_after);
    CHECK(!b.steps[1].inject_while_running);
    CHECK(b.steps[2].split == SplitChoice{SplitChoice::Kind::equal, 4, {}});
    CHECK(b.steps[2].projections == ProjectionChoice::configured);
    CHECK(b.steps[2].apply_projections);
    CHECK(b.steps[2].neutral_extension_keys);
    CHECK(to_string(b.steps[2].state_checkpoint) == "sample");
    CHECK(b.steps[3].split == SplitChoice{SplitChoice::Kind::cuts, 0, {0x10000000, 0xa0000000}});
    CHECK(b.steps[4].split.kind == SplitChoice::Kind::halves);
    CHECK(b.steps[4].inject_while_running);
}

TEST_CASE("suite: a check whose needs no step meets is rejected with its line") {
    auto message = load_error(R"({
  "suite": "mine",
  "scenarios": [
    {"id": "ok", "title": "t", "steps": [{"id": "read", "run": "read"}], "checks": ["cli.read"]},
    {"id": "resume", "title": "t",
     "steps": [{"id": "read", "run": "read"}],
     "checks": ["cli.read",
                "state.resume_no_loss"]}
  ]
})");
    CHECK(message.find("suites/test.json:8: /scenarios/1/checks/1: check 'state.resume_no_loss' "
                       "needs a step that is a read resumed from an earlier step (\"state\"), "
                       "resumed from a read not split into shards, and the scenario has none") !=
          std::string::npos);
    CHECK(message.find("/scenarios/0") == std::string::npos);
}

// What loaded before and then skipped at run time (issue 17): a scenario that cannot feed a check
// is refused when the suite is loaded.
TEST_CASE("suite: a scenario that cannot feed a check is refused at load, not skipped at run") {
    auto malformed_only = load_error(R"({"suite": "mine", "scenarios": [
    {"id": "s", "title": "t", "steps": [{"id": "bad", "run": "read", "range": "malformed"}],
     "checks": ["tail.off_exits"]}]})");
    CHECK(contains(malformed_only,
                   "check 'tail.off_exits' needs a step that is a read expected to "
                   "end on its own"));
    auto apart = load_error(R"({"suite": "mine", "scenarios": [
    {"id": "s", "title": "t", "steps": [
      {"id": "full", "run": "read", "range": "full"},
      {"id": "halves", "run": "read", "split": "halves"},
      {"id": "resume", "run": "read", "state": {"from": "full", "checkpoint": "middle"}}],
     "checks": ["range.state_subdivision"]}]})");
    CHECK(contains(apart,
                   "check 'range.state_subdivision' needs a step that is range shards "
                   "resumed from an earlier step"));
    auto one_read = load_error(R"({"suite": "mine", "scenarios": [
    {"id": "s", "title": "t", "steps": [{"id": "read", "run": "read"}],
     "checks": ["read.full_refresh_deterministic"]}]})");
    CHECK(contains(one_read,
                   "check 'read.full_refresh_deterministic' needs exactly two steps that "
                   "is a plain read (no state, range, split or projections), and the "
                   "scenario has 1 ('read')"));
    auto unrequired = load_error(R"({"suite": "mine", "scenarios": [
    {"id": "s", "title": "t", "steps": [{"id": "read", "run": "read"}],
     "checks": ["read.expected_records"]}]})");
    CHECK(contains(unrequired,
                   "check 'read.expected_records' reads the test config's "
                   "expected_records: the scenario must require \"expected_records\""));
}

TEST_CASE("suite: a scenario's purpose names its own checks, with the line it is on") {
    auto scenarios = load_suite_text(R"({"suite": "mine", "scenarios": [
    {"id": "s", "title": "t", "steps": [{"id": "read", "run": "read"}],
     "checks": ["cli.read", "io.json_lines"], "purpose": ["cli.read"]}]})",
                                     "suites/test.json", airbyte());
    REQUIRE(scenarios.size() == 1);
    CHECK(scenarios[0].purpose == std::vector<std::string>{"cli.read"});
    auto stranger = load_error(R"({"suite": "mine", "scenarios": [
    {"id": "s", "title": "t", "steps": [{"id": "read", "run": "read"}],
     "checks": ["io.json_lines"],
     "purpose": ["cli.read"]}]})");
    CHECK(contains(stranger, "suites/test.json:4"));
    CHECK(contains(stranger, "'cli.read' is not one of the scenario's checks"));
}

TEST_CASE("suite: step roles follow the step's options") {
    Step step;
    step.run = Command::read;
    auto has = [&step](Role role) {
        auto roles = step.roles();
        return std::find(roles.begin(), roles.end(), role) != roles.end();
    };
    CHECK(has(Role::read));
    CHECK(has(Role::plain_read));
    CHECK(!has(Role::resumed_read));
    step.state_from = "full";
    CHECK(has(Role::resumed_read));
    CHECK(!has(Role::plain_read));
    step.split.kind = SplitChoice::Kind::halves;
    CHECK(has(Role::shard_reads));
    step = Step{};
    step.run = Command::check;
    step.config = ConfigChoice::invalid;
    CHECK(has(Role::check));
    CHECK(has(Role::check_invalid));
    CHECK(!has(Role::check_valid));
    CHECK(!has(Role::read));
}

TEST_CASE("suite: an unknown check id is reported with the nearest known id and its line") {
    auto message = load_error(R"({
  "suite": "mine",
  "scenarios": [
    {"id": "a", "title": "t", "steps": [{"id": "read", "run": "read"}],
     "checks": ["read.emitted_at_ms",
                "read.emited_at_ms"]}
  ]
})");
    INFO(message);
    CHECK(message.starts_with("suites/test.json: invalid suite:"));
    CHECK(contains(message,
                   "\n  suites/test.json:6: /scenarios/0/checks/1: unknown check "
                   "'read.emited_at_ms', did you mean 'read.emitted_at_ms'?"));
}

TEST_CASE("suite: an unknown check id far from any known one has no suggestion") {
    auto message = load_error(R"({"suite": "mine", "scenarios": [
    {"id": "a", "title": "t", "steps": [{"id": "read", "run": "read"}],
     "checks": ["zzzzzzzzzzzz"]}]})");
    INFO(message);
    CHECK(contains(message, "unknown check 'zzzzzzzzzzzz'\n"));
    CHECK(!contains(message, "did you mean"));
}

TEST_CASE("suite: a step referring to a later or unknown step is an error") {
    auto message = load_error(R"({
  "suite": "mine",
  "scenarios": [
    {"id": "a", "title": "t",
     "steps": [
       {"id": "resume", "run": "read", "state": {"from": "first", "checkpoint": "last"}},
       {"id": "first", "run": "read"},
       {"id": "again", "run": "read", "cursor_floor_from": "nowhere"}
     ],
     "checks": ["state.resume_no_loss"]}
  ]
})");
    INFO(message);
    CHECK(contains(message,
                   "suites/test.json:6: /scenarios/0/steps/0: step 'resume' refers to "
                   "'first', which is not an earlier step of this scenario"));
    CHECK(contains(message,
                   "suites/test.json:8: /scenarios/0/steps/2: step 'again' refers to "
                   "'nowhere', which is not an earlier step of this scenario"));
}

TEST_CASE("suite: a step may not refer to itself") {
    auto message = load_error(R"({"suite": "mine", "scenarios": [
    {"id": "a", "title": "t", "steps": [
      {"id": "loop", "run": "read", "state": {"from": "loop", "checkpoint": "first"}}],
     "checks": ["cli.read"]}]})");
    CHECK(contains(message, "step 'loop' refers to 'loop'"));
}

TEST_CASE("suite: duplicate scenario and step ids are errors") {
    auto message = load_error(R"({
  "suite": "mine",
  "scenarios": [
    {"id": "a", "title": "t", "steps": [{"id": "s", "run": "spec"}], "checks": ["cli.spec"]},
    {"id": "a", "title": "t", "steps": [{"id": "s", "run": "spec"},
                                        {"id": "s", "run": "spec"}], "checks": ["cli.spec"]}
  ]
})");
    INFO(message);
    CHECK(contains(message, "suites/test.json:5: /scenarios/1/id: duplicate scenario id 'a'"));
    CHECK(contains(message, "suites/test.json:6: /scenarios/1/steps/1/id: duplicate step id 's'"));
}

TEST_CASE("suite: schema violations are listed with their lines") {
    auto message = load_error(R"({
  "suite": "mine",
  "scenarios": [
    {"id": "a", "title": "t",
     "steps": [{"id": "s", "run": "sepc"}],
     "checks": ["cli.spec"],
     "colour": "blue"}
  ]
})");
    INFO(message);
    CHECK(contains(message, "suites/test.json:5: /scenarios/0/steps/0/run: "));
    CHECK(contains(message, "suites/test.json:7: /scenarios/0/colour: "));
    CHECK(contains(message, "(what each key means: CONTRIBUTING.md (\"Add a scenario\")"));
}

TEST_CASE("suite: a suite without scenarios or with malformed JSON is an error") {
    CHECK(contains(load_error(R"({"suite": "mine", "scenarios": []})"),
                   "suites/test.json:1: /scenarios: "));
    CHECK(contains(load_error("{\"suite\": \"mine\",\n}"), "suites/test.json:2:"));
}

TEST_CASE("suite: the built-in suites load and name only known checks") {
    auto scenarios = load_builtin_suites(airbyte());
    REQUIRE(scenarios.size() >= 8);
    std::set<std::string> suites;
    std::set<std::string> ids;
    for (const auto& scenario : scenarios) {
        CAPTURE(scenario.id);
        suites.insert(scenario.suite);
        CHECK(ids.insert(scenario.suite + "/" + scenario.id).second);
        CHECK(!scenario.steps.empty());
        CHECK(!scenario.checks.empty());
        CHECK(scenario.origin.starts_with("suites/"));
        for (const auto& check : scenario.checks) {
            CAPTURE(check);
            CHECK(find_check(airbyte(), check) != nullptr);
        }
    }
    CHECK(suites.count("core") == 1);
    CHECK(suites.count("extensions") == 1);
}

TEST_CASE("suite: every check is used by some built-in scenario") {
    std::set<std::string> used;
    for (const auto& scenario : load_builtin_suites(airbyte())) {
        used.insert(scenario.checks.begin(), scenario.checks.end());
    }
    for (const auto& check : airbyte()) {
        CAPTURE(check.info.id);
        CHECK(used.count(std::string(check.info.id)) == 1);
    }
}

TEST_CASE("suite: load_suite_file names a missing file") {
    CHECK_THROWS_WITH_AS(load_suite_file("/nonexistent/suite.json", airbyte()),
                         "cannot read '/nonexistent/suite.json': no such file or not readable",
                         Error);
}
