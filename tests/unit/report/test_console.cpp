#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "report/console.hpp"
#include "report/model.hpp"

using namespace conform::report;

namespace {

// Everything the console reporter prints for one failed scenario.
std::string printed(const ScenarioResult& scenario) {
    std::FILE* out = std::tmpfile();
    REQUIRE(out != nullptr);
    {
        auto console = make_console_reporter(out, true);
        console->scenario_finished(scenario);
    }
    std::fflush(out);
    std::rewind(out);
    std::string text;
    for (int c = std::fgetc(out); c != EOF; c = std::fgetc(out)) {
        text.push_back(static_cast<char>(c));
    }
    std::fclose(out);
    return text;
}

}  // namespace

TEST_CASE("console: terminal escape sequences from a connector never reach the terminal") {
    ScenarioResult scenario;
    scenario.id = "read";
    scenario.title = "read";
    scenario.status = Status::failed;
    scenario.rerun = "conform run";
    CheckResult check;
    check.id = "io.json_lines";
    check.title = "stdout carries only JSON lines";
    check.status = Status::failed;
    check.occurrences = 1;
    // OSC title change, CSI colour and cursor-up, a C1 CSI, BEL, CR, an invalid byte.
    check.examples.push_back({"bad \x1b]0;pwned\x07 line", "read \x1b[1A", 3,
                              "x\x1b[31mred\r\xc2\x9b"
                              "2J\xff"});
    scenario.checks.push_back(check);
    RunSummary run;
    run.label = "read\x1b[2K";
    run.exit = "exit code 0";
    scenario.runs.push_back(run);
    std::string text = printed(scenario);
    CHECK(text.find('\x1b') == std::string::npos);
    CHECK(text.find('\x07') == std::string::npos);
    CHECK(text.find('\r') == std::string::npos);
    CHECK(text.find("\xc2\x9b") == std::string::npos);
    CHECK(text.find("\\x1b]0;pwned\\x07") != std::string::npos);
    CHECK(text.find("\\u{9b}2J\\xff") != std::string::npos);
    // Ordinary UTF-8 stays as it is.
    scenario.checks[0].examples[0].excerpt = "café 🐲";
    CHECK(printed(scenario).find("café 🐲") != std::string::npos);
}

TEST_CASE("console: findings beyond the examples are counted per level") {
    ScenarioResult scenario;
    scenario.id = "resume";
    scenario.title = "resume";
    scenario.status = Status::failed;
    CheckResult check;
    check.id = "state.resume_no_loss";
    check.status = Status::failed;
    check.examples = {{"lost: events key [1]"},
                      {"lost: events key [2]"},
                      {"(SHOULD) re-emitted: events key [3]"}};
    check.occurrences = 2900;
    check.advisories = 2000;
    scenario.checks.push_back(check);
    auto text = printed(scenario);
    CHECK(text.find("… and 898 more, and 1999 more (SHOULD)") != std::string::npos);

    check.occurrences = 900;
    check.advisories = 0;
    check.examples.pop_back();
    CHECK(more_findings(check) == "898 more");
    check.occurrences = 2;
    CHECK(more_findings(check).empty());

    check.examples = {{"re-emitted after resuming from checkpoints 3, 4: events key [1]"}};
    check.examples.front().findings = 2;
    check.occurrences = 3;
    CHECK(more_findings(check) == "1 more");
    check.occurrences = 2;
    CHECK(more_findings(check).empty());
}

TEST_CASE("console -v: a passed check's note is shown; a note repeated by the next check is not") {
    ScenarioResult scenario;
    scenario.id = "resume";
    scenario.title = "resume";
    scenario.status = Status::passed;
    CheckResult passed;
    passed.id = "state.resume_no_loss";
    passed.status = Status::passed;
    passed.note = "136 records of status_histories left out of the comparison";
    scenario.checks.push_back(passed);
    CheckResult skipped;
    skipped.status = Status::skipped;
    skipped.note = "step 'interrupted' did not run: nothing to interrupt";
    skipped.id = "sg.sync_exit";
    scenario.checks.push_back(skipped);
    skipped.id = "sg.messages_valid";
    scenario.checks.push_back(skipped);
    auto text = printed(scenario);
    CHECK(text.find("PASS state.resume_no_loss: 136 records of status_histories left out") !=
          std::string::npos);
    CHECK(text.find("note: step 'interrupted' did not run: nothing to interrupt") !=
          std::string::npos);
    CHECK(text.find("note: as above") != std::string::npos);
}
