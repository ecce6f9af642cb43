#include "destination/scenario.hpp"

#include <fmt/format.h>

#include "destination/check.hpp"
#include "engine/scenarios.hpp"
#include "util/error.hpp"

namespace conform::destination {

std::string_view to_string(Role role) {
    switch (role) {
        case Role::run:
            return "a run of the destination";
        case Role::spec:
            return "spec";
        case Role::check:
            return "check";
        case Role::invalid_config:
            return "check with the invalid config";
        case Role::write:
            return "a write";
        case Role::sync:
            return "a write of a whole sync";
        case Role::killed:
            return "a write killed after a STATE echo";
        case Role::resumed:
            return "a write resumed after a kill";
        case Role::bad_records:
            return "a write with a record the catalog does not allow";
        case Role::verify:
            return "verify";
        case Role::after_syncs:
            return "verify after the syncs";
        case Role::after_kill:
            return "verify after the kill";
        case Role::after_resume:
            return "verify after the resumed write";
        case Role::after_bad_record:
            return "verify after a write with a bad record";
    }
    return "?";
}

std::vector<Role> Step::roles() const {
    switch (kind) {
        case StepKind::spec:
            return {Role::run, Role::spec};
        case StepKind::check:
            return {Role::run, Role::check};
        case StepKind::check_invalid:
            return {Role::run, Role::check, Role::invalid_config};
        case StepKind::sync:
            return {Role::run, Role::write, Role::sync};
        case StepKind::killed:
            return {Role::run, Role::write, Role::killed};
        case StepKind::resumed:
            return {Role::run, Role::write, Role::sync, Role::resumed};
        case StepKind::unknown_stream:
        case StepKind::schema_violation:
            return {Role::run, Role::write, Role::bad_records};
        case StepKind::verify:
            break;
    }
    std::vector<Role> roles{Role::verify};
    if (after) {
        roles.push_back(*after);
    }
    return roles;
}

std::optional<std::size_t> base_of(const Scenario& scenario, std::size_t index) {
    const auto& step = scenario.steps.at(index);
    for (std::size_t i = index; i-- > 0;) {
        auto kind = scenario.steps[i].kind;
        bool write = kind != StepKind::spec && kind != StepKind::check &&
                     kind != StepKind::check_invalid && kind != StepKind::verify;
        if ((step.kind == StepKind::resumed && kind == StepKind::killed) ||
            (step.kind == StepKind::verify && write)) {
            return i;
        }
    }
    return std::nullopt;
}

namespace {

// Every scenario also judges what all its runs print: messages (DST-IO-1) and secrets (DST-SEC-1).
std::vector<std::string> with_output_checks(std::vector<std::string> checks) {
    checks.insert(checks.end(), {"dst.messages_valid", "dst.secrets_not_leaked"});
    return checks;
}

Step verify_step(std::string id, Role after) {
    return {std::move(id), StepKind::verify, 0, after};
}

std::vector<Scenario> scenario_table() {
    using enum StepKind;
    std::vector<Scenario> scenarios{
        {"dst-spec",
         "spec emits one SPEC with a usable connectionSpecification and the sync modes",
         {{"spec", spec}},
         {"dst.spec", "dst.spec_sync_modes", "dst.spec_matches_expected",
          "dst.spec_secrets_marked"},
         {}},
        {"dst-check",
         "check answers SUCCEEDED for the config",
         {{"check", check}},
         {"dst.check"},
         {}},
        {"dst-check-invalid",
         "check answers FAILED (or a TRACE error) for the invalid config",
         {{"check-invalid", check_invalid}},
         {"dst.check"},
         {}},
        {"dst-syncs",
         "two syncs: every STATE echoed in order, and what landed is what each sync mode says",
         {{"sync-1", sync, 1}, {"sync-2", sync, 2}, verify_step("verify", Role::after_syncs)},
         {"dst.write_exit", "dst.reads_all_input", "dst.states_echoed", "dst.destination_stats",
          "dst.append_lands_all", "dst.overwrite_keeps_last", "dst.dedup_latest"},
         {}},
        {"dst-kill-resume",
         "write killed after a STATE echo, then resumed from the echoed STATEs: nothing lost",
         {{"sync-1", sync, 1},
          {"killed", killed, 2},
          verify_step("verify-killed", Role::after_kill),
          {"resumed", resumed, 2},
          verify_step("verify-resumed", Role::after_resume)},
         {"dst.write_exit", "dst.state_after_commit", "dst.overwrite_interrupted_keeps_prior",
          "dst.resume_no_loss"},
         {}},
        {"dst-unknown-stream",
         "a record of a stream the catalog does not have gets the documented handling",
         {{"write", unknown_stream, 1}, verify_step("verify", Role::after_bad_record)},
         {"dst.bad_records_handled"},
         {}},
        {"dst-schema-violation",
         "a record that breaks its stream's schema gets the documented handling",
         {{"write", schema_violation, 1}, verify_step("verify", Role::after_bad_record)},
         {"dst.bad_records_handled"},
         {}},
    };
    for (auto& scenario : scenarios) {
        scenario.purpose = scenario.checks;
        scenario.checks = with_output_checks(std::move(scenario.checks));
    }
    return scenarios;
}

}  // namespace

std::vector<Scenario> builtin_scenarios(const std::vector<Check>& checks) {
    auto scenarios = scenario_table();
    engine::bind_checks(scenarios, checks);
    return scenarios;
}

}  // namespace conform::destination
