// The extension checks across runs (X-TAIL, X-RANGE, X-MERGE, X-PROJ, X-COMPAT) through the
// runner's seam: the built-in scenarios of suites/extensions.json against SourceModel, correct and
// with one fault at a time. Tailing runs are driven by the real TailDriver on simulated ticks (the
// fake answers the inject command by adding 2 events), so no test waits for a clock.
#include <doctest/doctest.h>

#include <string>

#include "fake_connector.hpp"

using namespace conform;
using namespace conform::testing;

namespace {

const bool k_noted =
    note_covered({"tail.off_exits", "tail.on_streams", "tail.delivers_new_data",
                  "tail.resume_no_loss", "range.split_union", "range.state_subdivision",
                  "range.absent_is_full", "range.malformed_rejected", "merge.resume_no_loss",
                  "merge.patches_equal_full", "projections.differential", "compat.neutral_keys"});

report::RunReport run_source(const SourceModel& model, std::vector<std::string> only,
                             const config::TestConfig& config = source_test_config(),
                             bool strict = false) {
    return run_builtin(model.behaviour(), config, std::move(only), strict);
}

config::TestConfig claiming(std::vector<std::string> extensions) {
    return source_test_config(std::move(extensions));
}

}  // namespace

TEST_CASE("cross-run tail.off_exits: with tail false a hung or failing read fails X-TAIL-1") {
    REQUIRE(k_noted);
    SourceModel hangs;
    hangs.hangs_without_tail = true;
    expect_verdict(run_source(hangs, {"tail-off"}), "tail-off", "tail.off_exits", "failed",
                   "with tail false the connector was still running after its timeout (30000 ms)");

    SourceModel crashes;
    crashes.read_crashes = true;
    expect_verdict(run_source(crashes, {"tail-off"}), "tail-off", "tail.off_exits", "failed",
                   "with tail false expected exit code 0, got exit code 1");
}

TEST_CASE("cross-run tail.on_streams: exiting on its own or ignoring SIGTERM fails X-TAIL-2") {
    SourceModel exits;
    exits.tail_exits = true;
    expect_verdict(run_source(exits, {"tail-on"}), "tail-on", "tail.on_streams", "failed",
                   "with tail true the connector ended on its own (exit code 0)");

    SourceModel no_backlog;
    no_backlog.tail_skips_backlog = true;
    expect_verdict(run_source(no_backlog, {"tail-on"}), "tail-on", "tail.on_streams", "failed",
                   "did not emit the data available at start (every record of step 'before') "
                   "within 2000 ms");

    SourceModel stubborn;
    stubborn.tail_ignores_sigterm = true;
    expect_verdict(run_source(stubborn, {"tail-on"}), "tail-on", "tail.on_streams", "failed",
                   "did not exit within the 5000 ms grace period after SIGTERM and was killed");

    expect_verdict(run_source(SourceModel{}, {"tail-on"}, claiming({"range"})), "tail-on",
                   "tail.on_streams", "skipped", "does not claim the 'tail' extension");
}

TEST_CASE("cross-run tail.delivers_new_data: data injected while tailing, then a STATE") {
    SourceModel misses;
    misses.tail_misses_new_data = true;
    auto missed = run_source(misses, {"tail-on"});
    expect_verdict(missed, "tail-on", "tail.delivers_new_data", "failed",
                   "added while the connector ran (a later plain read emits it), never delivered "
                   "by the tailing run");
    CHECK(all_messages(missed, "tail-on", "tail.delivers_new_data")
              .find("gave up waiting for new data and a STATE after it") != std::string::npos);

    SourceModel uncommitted;
    uncommitted.tail_state_before_new_data = true;
    expect_verdict(run_source(uncommitted, {"tail-on"}), "tail-on", "tail.delivers_new_data",
                   "failed", "was never followed by a STATE before SIGTERM: nothing committed it");

    SourceModel adds_nothing;
    adds_nothing.inject_adds_nothing = true;
    expect_verdict(run_source(adds_nothing, {"tail-on"}), "tail-on", "tail.delivers_new_data",
                   "failed", "the tailing run emitted no record beyond its backlog afterwards");

    SourceModel unseen_later;
    unseen_later.plain_read_misses_injected = true;
    auto judged_alone = run_source(unseen_later, {"tail-on"});
    expect_verdict(judged_alone, "tail-on", "tail.delivers_new_data", "passed",
                   "judged by the 2 record(s) the tailing run emitted beyond its backlog");
    unseen_later.tail_state_before_new_data = true;
    expect_verdict(run_source(unseen_later, {"tail-on"}), "tail-on", "tail.delivers_new_data",
                   "failed", "was never followed by a STATE before SIGTERM: nothing committed it");
    unseen_later.tail_state_before_new_data = false;
    unseen_later.tail_misses_new_data = true;
    expect_verdict(run_source(unseen_later, {"tail-on"}), "tail-on", "tail.delivers_new_data",
                   "failed", "the tailing run emitted no record beyond its backlog afterwards");

    auto no_inject = source_test_config();
    no_inject.inject_command.clear();
    auto report = run_source(SourceModel{}, {"tail-on"}, no_inject);
    expect_verdict(report, "tail-on", "tail.delivers_new_data", "skipped",
                   "the test config has no \"tail\": {\"inject_command\"} to add data with");
    CHECK(status_of(report, "tail-on", "tail.on_streams") == "passed");
}

TEST_CASE("cross-run tail.resume_no_loss: records the tail run never committed are lost") {
    SourceModel uncommitted;
    uncommitted.tail_state_before_new_data = true;
    expect_verdict(run_source(uncommitted, {"tail-on"}), "tail-on", "tail.resume_no_loss", "failed",
                   "lost: committed by neither the stopped tail run nor the run resumed from its "
                   "last STATE");

    expect_verdict(run_source(SourceModel{}, {"tail-on"}, claiming({})), "tail-on",
                   "tail.resume_no_loss", "skipped", "does not claim the 'tail' extension");
}

TEST_CASE("cross-run range.split_union: a connector ignoring its range duplicates (X-RANGE-1)") {
    SourceModel ignores;
    ignores.ignores_range = true;
    expect_verdict(run_source(ignores, {"range-splits"}), "range-splits", "range.split_union",
                   "failed",
                   "split 'halves': duplicated (emitted by more shards than the full range "
                   "emitted it)");

    expect_verdict(run_source(SourceModel{}, {"range-splits"}, claiming({"tail"})), "range-splits",
                   "range.split_union", "skipped", "does not claim the 'range' extension");
}

TEST_CASE("cross-run range.state_subdivision: loss and duplicates among child ranges") {
    SourceModel ahead;
    ahead.state_ahead = true;
    expect_verdict(run_source(ahead, {"range-subdivide"}), "range-subdivide",
                   "range.state_subdivision", "failed", "by neither child range resumed from it");

    SourceModel ignores;
    ignores.ignores_range = true;
    expect_verdict(run_source(ignores, {"range-subdivide"}), "range-subdivide",
                   "range.state_subdivision", "failed",
                   "emitted by the child ranges beyond what the full range owed after checkpoint");

    expect_verdict(run_source(SourceModel{}, {"range-subdivide"}, claiming({})), "range-subdivide",
                   "range.state_subdivision", "skipped", "does not claim the 'range' extension");
}

TEST_CASE("cross-run range.absent_is_full: reading less without a range fails X-RANGE-3") {
    SourceModel half;
    half.absent_range_reads_half = true;
    expect_verdict(run_source(half, {"range-absent"}), "range-absent", "range.absent_is_full",
                   "failed", "emitted with the full range, not without a range");

    expect_verdict(run_source(SourceModel{}, {"range-absent"}, claiming({})), "range-absent",
                   "range.absent_is_full", "skipped", "does not claim the 'range' extension");
}

TEST_CASE("cross-run range.malformed_rejected: accepting a malformed range warns (SHOULD)") {
    SourceModel accepts;
    accepts.accepts_malformed_range = true;
    expect_verdict(run_source(accepts, {"range-malformed"}), "range-malformed",
                   "range.malformed_rejected", "warned",
                   "a malformed range was accepted: exit code 0, 9 record(s) emitted");
    expect_verdict(run_source(accepts, {"range-malformed"}, source_test_config(), true),
                   "range-malformed", "range.malformed_rejected", "failed",
                   "a malformed range was accepted");

    expect_verdict(run_source(SourceModel{}, {"range-malformed"}, claiming({})), "range-malformed",
                   "range.malformed_rejected", "skipped", "does not claim the 'range' extension");
}

TEST_CASE("cross-run merge.resume_no_loss: resuming from the reduced patches loses a record") {
    SourceModel skips;
    skips.merge_resume_skips_one = true;
    auto report = run_source(skips, {"merge-states"});
    expect_verdict(report, "merge-states", "merge.resume_no_loss", "failed",
                   "lost after resuming from checkpoint");
    CHECK(status_of(report, "merge-states", "merge.patches_equal_full") == "passed");

    auto no_merge = source_test_config();
    no_merge.merge_config_text.reset();
    expect_verdict(run_source(SourceModel{}, {"merge-states"}, no_merge), "merge-states",
                   "merge.resume_no_loss", "skipped",
                   "the test config has no \"merge\": {\"config\"}");
}

TEST_CASE("cross-run merge.patches_equal_full: reduced patches unlike the full states warn") {
    SourceModel pending;
    pending.merge_patch_keeps_pending = true;
    expect_verdict(run_source(pending, {"merge-states"}), "merge-states",
                   "merge.patches_equal_full", "warned",
                   R"(checkpoint 2: the reduced patches give {"events":{"pending":true,"seq":2})");

    auto no_full = source_test_config();
    no_full.full_state_config_text.reset();
    expect_verdict(run_source(SourceModel{}, {"merge-states"}, no_full), "merge-states",
                   "merge.patches_equal_full", "skipped",
                   "the test config has no \"merge\": {\"full_state_config\"}");
}

TEST_CASE("cross-run projections.differential: a connector ignoring projections fails X-PROJ-1") {
    SourceModel ignores;
    ignores.ignores_projections = true;
    expect_verdict(run_source(ignores, {"projections"}), "projections", "projections.differential",
                   "failed",
                   "\"note\" is still a top-level field and nothing is at /payload/note: the "
                   "projection was not applied");

    SourceModel drifts;
    drifts.items_change_between_reads = true;
    expect_verdict(run_source(drifts, {"projections"}), "projections", "projections.differential",
                   "warned", "the same key with other content than the projected plain record");

    auto none = source_test_config();
    none.projections.clear();
    expect_verdict(run_source(SourceModel{}, {"projections"}, none), "projections",
                   "projections.differential", "skipped", "the test config has no \"projections\"");
}

TEST_CASE("cross-run compat.neutral_keys: failing on neutral extension keys fails X-COMPAT-1") {
    SourceModel fails;
    fails.fails_on_extension_keys = true;
    auto report = run_source(fails, {"compat"});
    expect_verdict(report, "compat", "compat.neutral_keys", "failed",
                   "with neutral extension keys the read ended with exit code 1, without them with "
                   "exit code 0");
    expect_verdict(report, "compat", "compat.neutral_keys", "failed",
                   "emitted without extension keys, not with them");
}

// A tailing run that ends on its own before conform injects anything: the skip names that, not
// the inject command (which never ran while the connector ran).
TEST_CASE("cross-run tail.delivers_new_data: a tail run that exits before the injection says so") {
    SourceModel exits;
    exits.tail_exits = true;
    auto report = run_source(exits, {"tail-on"});
    CHECK(status_of(report, "tail-on", "tail.on_streams") == "failed");
    CHECK(status_of(report, "tail-on", "tail.delivers_new_data") != "passed");
    CHECK(all_messages(report, "tail-on", "tail.delivers_new_data").find("inject command added") ==
          std::string::npos);
    CHECK(all_messages(report, "tail-on", "tail.delivers_new_data")
              .find("ended before conform injected new data") != std::string::npos);
}

TEST_CASE("cross-run tail.on_streams: the timeline notes catching up once") {
    auto report = run_source(SourceModel{}, {"tail-on"});
    auto note = all_messages(report, "tail-on", "tail.on_streams");
    auto first = note.find("caught up with the backlog");
    REQUIRE(first != std::string::npos);
    CHECK(note.find("caught up with the backlog", first + 1) == std::string::npos);
}
