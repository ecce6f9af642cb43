// The dst.* checks through the engine's executor seam: the real destination source, engine and
// checks judge a fake destination (fake_destination.hpp), correct and with one fault at a time.
// Every check passes on the correct destination (its code judged something) and fails or warns
// on its fault, and on that fault only.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "checks/checks.hpp"
#include "fake_destination.hpp"
// After the fake, whose status_of and message_of it uses.
#include "../fault_cases.hpp"

using namespace conform;
using namespace conform::testing;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

struct FaultCase {
    const char* name;
    bool DestinationModel::*fault;
    const char* check;
    const char* status;
    const char* message;
    // Another check the fault trips by what it is (a changed spec differs from the expected one).
    const char* also = nullptr;
};

DestinationModel with(bool DestinationModel::*fault) {
    DestinationModel model;
    model.*fault = true;
    return model;
}

// The checks that failed or warned in any scenario (a check skipped because the fault left it
// nothing to judge, e.g. what landed after a failed write, is not a finding).
std::set<std::string> not_passing(const report::RunReport& report) {
    std::set<std::string> ids;
    for (const auto& scenario : report.scenarios) {
        for (const auto& check : scenario.checks) {
            if (check.status == report::Status::failed || check.status == report::Status::warned) {
                ids.insert(check.id);
            }
        }
    }
    return ids;
}

std::string names(const std::set<std::string>& ids) {
    std::string text;
    for (const auto& id : ids) {
        text += (text.empty() ? "" : ", ") + id;
    }
    return text;
}

}  // namespace

TEST_CASE("dst checks: a correct destination passes every check, and each one judged something") {
    auto report = run_destination(DestinationModel{});
    for (const auto& check : checks::destination_checks()) {
        std::string id(check.info.id);
        INFO(id, ": ", message_of(report, id));
        CHECK(status_of(report, id) == "passed");
    }
    CHECK(report.protocol == "airbyte-destination");
}

TEST_CASE("dst checks: each fault is caught by the check meant for it, and by no other") {
    using M = DestinationModel;
    const std::vector<FaultCase> cases = {
        {"invalid LOG level", &M::log_invalid_level, "dst.messages_valid", "failed",
         "not a valid AirbyteMessage"},
        {"two SPECs", &M::spec_twice, "dst.spec", "failed", "expected exactly one SPEC message"},
        {"no append_dedup in the spec", &M::spec_without_dedup, "dst.spec_sync_modes", "warned",
         "configured as append_dedup", "dst.spec_matches_expected"},
        {"the spec's documentation moved", &M::spec_documentation_moved,
         "dst.spec_matches_expected", "failed",
         "at '/documentationUrl' the expected spec has nothing, the connector's"},
        {"a token not marked secret", &M::spec_token_unmarked, "dst.spec_secrets_marked", "warned",
         "property 'token' is named as a secret but not marked airbyte_secret",
         "dst.spec_matches_expected"},
        {"check always succeeds", &M::check_always_succeeds, "dst.check", "failed",
         "expected status FAILED, got SUCCEEDED"},
        {"secret on stderr", &M::leak_secret, "dst.secrets_not_leaked", "failed",
         "appears on stderr"},
        {"write exits 1", &M::write_exit_nonzero, "dst.write_exit", "failed",
         "write ended with exit code 1"},
        {"stops reading early", &M::stops_reading_early, "dst.reads_all_input", "failed",
         "input bytes unread"},
        {"crash on an unknown stream", &M::crash_on_unknown_stream, "dst.bad_records_handled",
         "failed", "crashed (killed by SIGSEGV)"},
        {"echoes out of order", &M::echo_out_of_order, "dst.states_echoed", "failed",
         "STATEs are echoed in the order received"},
        {"echoes before commit", &M::echo_before_commit, "dst.state_after_commit", "failed",
         "is not in it after the kill"},
        {"stats off by one", &M::stats_off_by_one, "dst.destination_stats", "failed",
         "destinationStats.recordCount"},
        {"retry discards the attempt", &M::retry_discards_attempt, "dst.resume_no_loss", "failed",
         "lost after the resume"},
        // The resumed write succeeds too, and the first sync's rows are gone after it.
        {"append replaced on success", &M::append_replaces_on_success, "dst.append_lands_all",
         "failed", "an append stream keeps every sync's records", "dst.resume_no_loss"},
        {"overwrite keeps old", &M::overwrite_keeps_old, "dst.overwrite_keeps_last", "failed",
         "is still there after a later sync overwrote the stream"},
        {"overwrite truncates first", &M::overwrite_truncates_first,
         "dst.overwrite_interrupted_keeps_prior", "failed",
         "an interrupted sync must not remove the previous sync's records"},
        {"dedup keeps the first", &M::dedup_keeps_first, "dst.dedup_latest", "failed",
         "is not the latest version of its key"},
    };
    std::set<std::string> proven;
    for (const auto& fault : cases) {
        auto report = run_destination(with(fault.fault));
        INFO("not passing: ", names(not_passing(report)));
        check_caught(report, fault);
        std::set<std::string> expected{fault.check};
        if (fault.also != nullptr) {
            expected.insert(fault.also);
        }
        CHECK(not_passing(report) == expected);
        proven.insert(fault.check);
    }
    check_every_check_proven(checks::destination_checks(), proven);
}

TEST_CASE("dst checks: SHOULD findings fail under --strict") {
    auto report = run_destination(with(&DestinationModel::spec_without_dedup), {"dst-spec"}, true);
    CHECK(status_of(report, "dst.spec_sync_modes") == "failed");
}

TEST_CASE("dst checks: without a verify command the data checks are skipped with that reason") {
    auto config = fake_destination_config();
    config.verify_command.clear();
    auto report = run_destination(DestinationModel{}, {}, false, config);
    for (const auto* id : {"dst.append_lands_all", "dst.overwrite_keeps_last", "dst.dedup_latest",
                           "dst.state_after_commit", "dst.resume_no_loss",
                           "dst.overwrite_interrupted_keeps_prior"}) {
        INFO(id);
        CHECK(status_of(report, id) == "skipped");
        CHECK(contains(message_of(report, id), "the test config has no verify command"));
    }
    CHECK(status_of(report, "dst.states_echoed") == "passed");
    INFO(message_of(report, "dst.bad_records_handled"));
    CHECK(status_of(report, "dst.bad_records_handled") == "passed");
}

TEST_CASE("dst checks: what the test config says a mode cannot serve is skipped with its reason") {
    auto config = fake_destination_config();
    config.not_served["dst.resume_no_loss"] = "a dry run writes nothing";
    auto report = run_destination(DestinationModel{}, {}, false, config);
    CHECK(status_of(report, "dst.resume_no_loss") == "skipped");
    CHECK(contains(message_of(report, "dst.resume_no_loss"), "a dry run writes nothing"));
    CHECK(status_of(report, "dst.state_after_commit") == "passed");
}

TEST_CASE("dst checks: a documented error is a TRACE error and a failed write, not a crash") {
    auto config = fake_destination_config();
    config.unknown_stream = destination::Handling::error;
    auto report = run_destination(DestinationModel{}, {"dst-unknown-stream"}, false, config);
    CHECK(status_of(report, "dst.bad_records_handled") == "failed");
    CHECK(contains(message_of(report, "dst.bad_records_handled"),
                   "exited 0, though the test config documents 'error'"));
}

TEST_CASE(
    "dst checks: echoes without destinationStats leave that check without anything to judge") {
    auto report = run_destination(with(&DestinationModel::no_stats), {"dst-syncs"});
    CHECK(status_of(report, "dst.destination_stats") == "skipped");
    CHECK(contains(message_of(report, "dst.destination_stats"), "carried destinationStats"));
}

TEST_CASE("dst checks: a destination without refreshes is not held to an interrupted overwrite") {
    auto config = fake_destination_config();
    config.refreshes = false;
    auto report = run_destination(with(&DestinationModel::overwrite_truncates_first),
                                  {"dst-kill-resume"}, false, config);
    CHECK(status_of(report, "dst.overwrite_interrupted_keeps_prior") == "skipped");
    CHECK(contains(message_of(report, "dst.overwrite_interrupted_keeps_prior"), "refreshes"));
    CHECK(status_of(report, "dst.resume_no_loss") == "passed");
}

TEST_CASE("dst checks: a write that is never killed leaves the kill checks skipped, saying why") {
    auto config = fake_destination_config();
    config.kill_after_echo = 1000;
    auto report = run_destination(DestinationModel{}, {"dst-kill-resume"}, false, config);
    CHECK(status_of(report, "dst.state_after_commit") == "skipped");
    CHECK(contains(message_of(report, "dst.state_after_commit"), "the write was not killed"));
    CHECK(status_of(report, "dst.resume_no_loss") == "skipped");
}

TEST_CASE("dst checks: the report names the destination area") {
    auto report = run_destination(DestinationModel{});
    CHECK(report.scenarios.size() == 7);
    CHECK(report.check_totals().failed == 0);
}
