// The checkpoint timeline's data: STATE positions per run (capped) and, per resumed checkpoint,
// what the resume lost or repeated, from the real runner and checks on SourceModel.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "fake_connector.hpp"
#include "report/timeline.hpp"
#include "suite/timeline.hpp"

using namespace conform;
using namespace conform::testing;

namespace {

protocol::Checkpoint checkpoint_at(std::uint64_t line, std::size_t records_before,
                                   std::vector<std::uint32_t> streams) {
    protocol::Checkpoint checkpoint;
    checkpoint.line = line;
    checkpoint.records_before = records_before;
    checkpoint.all_streams = streams.empty();
    checkpoint.streams = std::move(streams);
    return checkpoint;
}

report::ResumedCheckpoint resumed(std::uint64_t checkpoint, std::string run,
                                  std::uint64_t lost = 0) {
    report::ResumedCheckpoint resume;
    resume.checkpoint = checkpoint;
    resume.run = std::move(run);
    resume.lost = lost;
    return resume;
}

const report::RunSummary& run_labelled(const report::RunReport& report, const std::string& label) {
    for (const auto& scenario : report.scenarios) {
        for (const auto& run : scenario.runs) {
            if (run.label == label) {
                return run;
            }
        }
    }
    FAIL("no run labelled " << label);
    throw;
}

}  // namespace

TEST_CASE("checkpoint_timeline: positions with stream names, resumes of this run once each") {
    protocol::Observation run;
    run.checkpoints.push_back(checkpoint_at(3, 2, {1}));
    run.checkpoints.push_back(checkpoint_at(7, 5, {}));
    protocol::Observation other;
    suite::ResumeNotes notes = {{&run, resumed(2, "resume b", 4)},
                                {&other, resumed(1, "elsewhere")},
                                {&run, resumed(1, "resume a")},
                                {&run, resumed(2, "resume b", 4)}};  // a second check's note
    auto timeline = suite::checkpoint_timeline(run, {"users", "events"}, notes);
    CHECK(timeline.total == 2);
    REQUIRE(timeline.checkpoints.size() == 2);
    CHECK(timeline.checkpoints[0].line == 3);
    CHECK(timeline.checkpoints[0].records_before == 2);
    CHECK_FALSE(timeline.checkpoints[0].all_streams);
    CHECK(timeline.checkpoints[0].streams == std::vector<std::string>{"events"});
    CHECK(timeline.checkpoints[1].all_streams);
    CHECK(timeline.checkpoints[1].streams.empty());
    REQUIRE(timeline.resumes.size() == 2);
    CHECK(timeline.resumes[0].run == "resume a");
    CHECK(timeline.resumes[1].run == "resume b");
    CHECK(timeline.resumes[1].lost == 4);
}

TEST_CASE(
    "checkpoint_timeline: a run with more STATEs than the cap keeps the first and counts all") {
    protocol::Observation run;
    for (std::size_t i = 0; i < report::k_timeline_checkpoints + 250; ++i) {
        run.checkpoints.push_back(checkpoint_at(i + 1, i, {0}));
    }
    auto timeline = suite::checkpoint_timeline(run, {"users"}, {});
    CHECK(timeline.total == report::k_timeline_checkpoints + 250);
    REQUIRE(timeline.checkpoints.size() == report::k_timeline_checkpoints);
    CHECK(timeline.checkpoints.back().line == report::k_timeline_checkpoints);
}

TEST_CASE(
    "timeline from the runner: a correct source resumes clean from every sampled checkpoint") {
    SourceModel correct;
    auto report = run_builtin(correct.behaviour(), source_test_config(), {"resume"});
    const auto& full = run_labelled(report, "full: read");
    CHECK(full.timeline.total == full.states);
    CHECK(full.timeline.checkpoints.size() == full.states);
    REQUIRE_FALSE(full.timeline.resumes.empty());
    for (const auto& resume : full.timeline.resumes) {
        CHECK(resume.clean());
        CHECK(resume.line == full.timeline.checkpoints[resume.checkpoint - 1].line);
        CHECK(resume.run.find("resume: read [from checkpoint " + std::to_string(resume.checkpoint) +
                              "/") == 0);
    }
    const auto& resumed_run = run_labelled(report, full.timeline.resumes.front().run);
    CHECK(resumed_run.timeline.resumes.empty());
}

TEST_CASE("timeline from the runner: a STATE ahead of its records loses them on resume") {
    SourceModel ahead;
    ahead.state_ahead = true;
    auto report = run_builtin(ahead.behaviour(), source_test_config(), {"resume"});
    const auto& resumes = run_labelled(report, "full: read").timeline.resumes;
    auto lossy = std::find_if(resumes.begin(), resumes.end(),
                              [](const auto& resume) { return resume.lost > 0; });
    REQUIRE(lossy != resumes.end());
    CHECK(lossy->repeated == 0);
    CHECK(lossy->lost_example.find("events") == 0);
    CHECK(report::resume_outcome(*lossy) == "lost " + std::to_string(lossy->lost));
}

TEST_CASE("timeline from the runner: an inclusive resume repeats committed records") {
    SourceModel inclusive;
    inclusive.resume_inclusive = true;
    auto report = run_builtin(inclusive.behaviour(), source_test_config(), {"resume"});
    const auto& resumes = run_labelled(report, "full: read").timeline.resumes;
    auto repeating = std::find_if(resumes.begin(), resumes.end(),
                                  [](const auto& resume) { return resume.repeated > 0; });
    REQUIRE(repeating != resumes.end());
    CHECK(repeating->lost == 0);
    CHECK_FALSE(repeating->repeated_example.empty());
}
