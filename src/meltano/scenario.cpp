#include "meltano/scenario.hpp"

#include <fmt/format.h>

#include "engine/scenarios.hpp"
#include "meltano/check.hpp"
#include "util/error.hpp"

namespace conform::meltano {

std::string_view to_string(Role role) {
    switch (role) {
        case Role::run:
            return "a step";
        case Role::help:
            return "--help of the extension";
        case Role::describe_json:
            return "describe --format=json";
        case Role::describe_plain:
            return "describe in its default format";
        case Role::described_helps:
            return "--help of each described executable and command";
        case Role::configured_commands:
            return "the test config's commands";
        case Role::described_tests:
            return "the test* commands describe lists";
        case Role::unknown_command:
            return "an unknown sub-command";
        case Role::passthrough:
            return "invoke and the invoker with the probe";
        case Role::initialize_twice:
            return "initialize run twice";
        case Role::own_commands:
            return "the extension's own commands";
        case Role::log_json:
            return "commands with MELTANO_LOG_JSON=true";
        case Role::debug_logs:
            return "commands with LOG_LEVEL=debug";
        case Role::stdin_open:
            return "commands with stdin open and empty";
    }
    return "?";
}

std::vector<Role> Step::roles() const {
    std::vector<Role> roles{Role::run, kind};
    if (log_json) {
        roles.push_back(Role::log_json);
    }
    if (debug_logs) {
        roles.push_back(Role::debug_logs);
    }
    return roles;
}

std::vector<const CommandResult*> Inputs::runs(std::size_t need, Purpose purpose) const {
    std::vector<const CommandResult*> found;
    for (const auto* step : steps(need)) {
        for (const auto& run : step->runs) {
            if (run.command.purpose == purpose) {
                found.push_back(&run);
            }
        }
    }
    return found;
}

namespace {

// Every scenario also judges what all its commands print: stdout (MX-IO-1) and secrets (MX-SEC-1).
std::vector<std::string> with_output_checks(std::vector<std::string> checks) {
    for (const char* id : {"mx.stdout_quiet", "mx.secrets_not_leaked"}) {
        if (std::find(checks.begin(), checks.end(), id) == checks.end()) {
            checks.emplace_back(id);
        }
    }
    return checks;
}

std::vector<Scenario> scenario_table() {
    using enum Role;
    std::vector<Scenario> scenarios{
        {"mx-help", "--help prints usage and exits 0", {}, {{"help", help}}, {"mx.help"}, {}},
        {"mx-describe",
         "describe prints one JSON document; what it names runs",
         {},
         {{"describe-json", describe_json},
          {"describe", describe_plain},
          {"executables", described_helps}},
         {"mx.describe_json", "mx.describe_shape", "mx.described_executables"},
         {}},
        {"mx-commands",
         "the test config's commands and test* commands exit as expected",
         {},
         {{"commands", configured_commands}, {"listed-tests", described_tests}},
         {"mx.invoke_commands", "mx.test_commands"},
         {}},
        {"mx-unknown-command",
         "an unknown sub-command fails with a message",
         {},
         {{"unknown", unknown_command}},
         {"mx.unknown_command"},
         {}},
        {"mx-passthrough",
         "invoke and the invoker pass arguments and exit codes through (probe)",
         {"probe"},
         {{"probe", passthrough}},
         {"mx.passthrough", "mx.invoke_keeps_dashdash", "mx.log_errors"},
         {}},
        {"mx-initialize",
         "initialize twice in a new folder is idempotent",
         {},
         {{"initialize", initialize_twice}},
         {"mx.initialize"},
         {}},
        {"mx-stdio",
         "stdout stays quiet; stderr logs are plain and structured, at the debug level too",
         {},
         {{"own-commands", own_commands},
          {"own-commands-debug", own_commands, false, true},
          {"describe-json", describe_json}},
         {"mx.log_structured", "mx.log_uncoloured", "mx.stdout_quiet"},
         {}},
        {"mx-log-json",
         "MELTANO_LOG_JSON=true gives one JSON object per line",
         {"log_json"},
         {{"own-commands", own_commands, true}},
         {"mx.log_json"},
         {}},
        {"mx-stdin",
         "no command waits on stdin",
         {},
         {{"stdin", stdin_open}},
         {"mx.stdin_unused"},
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

}  // namespace conform::meltano
