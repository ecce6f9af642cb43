// The checks of inputs made wrong on purpose and of answers asked for twice (AP-CLI-5, AP-CLI-6,
// AP-READ-10, AP-STATE-4), through the runner's seam against SourceModel (fake_connector.hpp).
#include <doctest/doctest.h>

#include <string>

#include "fake_connector.hpp"

using namespace conform;
using namespace conform::testing;

namespace {

const bool k_noted =
    note_covered({"cli.check_missing_required", "read.invalid_catalog_rejected",
                  "state.future_state_no_records", "spec.same_twice", "discover.same_twice"});

report::RunReport run_source(const SourceModel& model, std::vector<std::string> only,
                             const config::TestConfig& config = source_test_config()) {
    return run_builtin(model.behaviour(), config, std::move(only));
}

const std::vector<std::string> k_check_probes = {"check-required-only",
                                                 "check-without-each-required"};

}  // namespace

TEST_CASE("cross-run cli.check_missing_required: FAILED without a required property passes") {
    REQUIRE(k_noted);
    auto report = run_source(SourceModel{}, k_check_probes);
    CHECK(status_of(report, "check-required-only", "cli.check_missing_required") == "passed");
    CHECK(status_of(report, "check-without-each-required", "cli.check_missing_required") ==
          "passed");
}

TEST_CASE("cross-run cli.check_missing_required: a crash without a required property warns") {
    SourceModel crashes;
    crashes.check_crashes_without_key = true;
    auto report = run_source(crashes, k_check_probes);
    expect_verdict(report, "check-without-each-required", "cli.check_missing_required", "warned",
                   "check ended with exit code 1: it must answer, not crash");
    CHECK(all_messages(report, "check-without-each-required", "cli.check_missing_required")
              .find("neither a CONNECTION_STATUS nor a TRACE error") != std::string::npos);
    CHECK(status_of(report, "check-required-only", "cli.check_missing_required") == "passed");
}

TEST_CASE("cross-run cli.check_missing_required: a TRACE error then exit 1 warns at the TRACE") {
    // source-dixa's manifest reads a spec default the CDK does not fill in: the CDK's excepthook
    // emits a TRACE error and exits 1.
    SourceModel traces;
    traces.check_traces_without_key = true;
    auto report = run_source(traces, k_check_probes);
    expect_verdict(report, "check-without-each-required", "cli.check_missing_required", "warned",
                   "check answered with a TRACE error, then ended with exit code 1: an answer "
                   "exits 0");
    CHECK(all_messages(report, "check-without-each-required", "cli.check_missing_required")
              .find("neither a CONNECTION_STATUS nor a TRACE error") == std::string::npos);
}

TEST_CASE("cross-run cli.check_missing_required: defaults left out, SUCCEEDED and secrets") {
    SourceModel needs_region;  // the spec's defaults are filled in by check-minimal-config only
    needs_region.check_crashes_without_region = true;
    expect_verdict(run_source(needs_region, {"check-required-only"}), "check-required-only",
                   "cli.check_missing_required", "warned", "check ended with exit code 1");

    SourceModel accepts;
    accepts.check_accepts_invalid = true;
    expect_verdict(run_source(accepts, {"check-without-each-required"}),
                   "check-without-each-required", "cli.check_missing_required", "warned",
                   "check reported SUCCEEDED though a required property is missing");

    SourceModel echoes;
    echoes.check_echoes_key = true;
    expect_verdict(run_source(echoes, {"check-required-only"}), "check-required-only",
                   "cli.check_missing_required", "warned", "repeated a secret of the config");
}

TEST_CASE("cross-run cli.check_missing_required: a spec that requires nothing skips the removals") {
    auto config = source_test_config();
    SourceModel nothing_required;
    nothing_required.connection_specification =
        R"({"type":"object","properties":{"api_key":{"type":"string"}}})";
    auto report = run_source(nothing_required, k_check_probes, config);
    expect_verdict(report, "check-without-each-required", "cli.check_missing_required", "skipped",
                   "the spec requires no property that the main config sets");
    CHECK(status_of(report, "check-required-only", "cli.check_missing_required") == "passed");
}

TEST_CASE("cross-run read.invalid_catalog_rejected: a TRACE error passes, reading anyway warns") {
    auto report = run_source(SourceModel{}, {"read-invalid-catalog"});
    CHECK(status_of(report, "read-invalid-catalog", "read.invalid_catalog_rejected") == "passed");

    SourceModel reads_anyway;
    reads_anyway.accepts_invalid_catalog = true;
    expect_verdict(run_source(reads_anyway, {"read-invalid-catalog"}), "read-invalid-catalog",
                   "read.invalid_catalog_rejected", "warned",
                   "with an invalid catalog the read gave no TRACE error");

    // Faros's clickup source with one list failing upstream: an ERROR log of its own, every other
    // record read, exit 0. Before 2026-12-07 any ERROR log passed.
    reads_anyway.logs_upstream_error = true;
    expect_verdict(run_source(reads_anyway, {"read-invalid-catalog"}), "read-invalid-catalog",
                   "read.invalid_catalog_rejected", "warned",
                   "with an invalid catalog the read gave no TRACE error");

    SourceModel hangs;
    hangs.accepts_invalid_catalog = true;
    hangs.hangs_without_tail = true;
    expect_verdict(run_source(hangs, {"read-invalid-catalog"}), "read-invalid-catalog",
                   "read.invalid_catalog_rejected", "warned", "did not finish within its timeout");
}

TEST_CASE("cross-run state.future_state_no_records: reading from the start fails; no state skips") {
    auto report = run_source(SourceModel{}, {"read-from-future-state"});
    CHECK(status_of(report, "read-from-future-state", "state.future_state_no_records") == "passed");

    SourceModel rereads;
    rereads.future_state_rereads = true;
    expect_verdict(run_source(rereads, {"read-from-future-state"}), "read-from-future-state",
                   "state.future_state_no_records", "failed",
                   "6 record(s) of incremental streams (events) though every cursor of the state "
                   "lies far in the future");

    SourceModel crashes;
    crashes.read_crashes = true;
    expect_verdict(run_source(crashes, {"read-from-future-state"}), "read-from-future-state",
                   "state.future_state_no_records", "skipped", "no checkpoint 'last'");
}

TEST_CASE("cross-run spec.same_twice and discover.same_twice: key order aside, the same answer") {
    SourceModel reorders;
    reorders.spec_reorders_keys = true;
    auto report = run_source(reorders, {"spec-discover-twice"});
    CHECK(status_of(report, "spec-discover-twice", "spec.same_twice") == "passed");
    CHECK(status_of(report, "spec-discover-twice", "discover.same_twice") == "passed");

    SourceModel unstable;
    unstable.spec_unstable = true;
    unstable.discover_unstable = true;
    auto changed = run_source(unstable, {"spec-discover-twice"});
    expect_verdict(changed, "spec-discover-twice", "spec.same_twice", "warned",
                   "the second SPEC differs from the first");
    expect_verdict(changed, "spec-discover-twice", "discover.same_twice", "warned",
                   "the second CATALOG differs from the first");

    SourceModel silent;
    silent.spec_silent = true;
    silent.discover_silent = true;
    auto nothing = run_source(silent, {"spec-discover-twice"});
    expect_verdict(nothing, "spec-discover-twice", "spec.same_twice", "skipped",
                   "emitted no SPEC message");
    expect_verdict(nothing, "spec-discover-twice", "discover.same_twice", "skipped",
                   "emitted no CATALOG message");
}
