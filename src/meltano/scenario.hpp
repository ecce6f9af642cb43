#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/needs.hpp"
#include "engine/scenarios.hpp"

// The Meltano extension suite's scenarios as data: steps of typed kinds, and the checks that read
// them through their needs (engine/needs.hpp), matched when the suite is first built.
namespace conform::meltano {

// What a step runs (its kind), and what its runs give the checks.
enum class Role {
    run,                  // any step
    help,                 // NAME_extension --help
    describe_json,        // describe --format=json
    describe_plain,       // describe in its default format
    described_helps,      // --help of each executable describe names, and of its commands
    configured_commands,  // the test config's commands, in a new project
    described_tests,      // the test* commands describe lists, in a new project
    unknown_command,      // an unknown sub-command (and invoke of an unknown command)
    passthrough,          // invoke and the invoker with the probe as the wrapped program
    initialize_twice,     // initialize twice in a new folder
    own_commands,         // the extension's own commands whose stderr and stdout are judged
    log_json,             // ... with MELTANO_LOG_JSON=true
    debug_logs,           // ... with LOG_LEVEL=debug
    stdin_open,           // commands run with stdin open and empty
};

std::string_view to_string(Role role);

struct Step {
    std::string id;
    Role kind = Role::run;
    bool log_json = false;    // MELTANO_LOG_JSON=true for every command of the step
    bool debug_logs = false;  // LOG_LEVEL=debug for every command of the step

    std::vector<Role> roles() const;
};

// A scenario of the table. Its `requires_` say what the test config or the machine must provide:
// "probe" (conform's probe stands in for the wrapped program), "log_json" (the extension supports
// MELTANO_LOG_JSON).
using Scenario = engine::Scenario<Step>;

// The suite name of the extension scenarios, accepted by --only/--skip.
inline constexpr std::string_view k_suite = "meltano";

struct Check;

// The built-in scenarios, their checks bound to the steps their needs read. Throws an internal
// error when a check's needs are not met: the table is conform's own.
std::vector<Scenario> builtin_scenarios(const std::vector<Check>& checks);

}  // namespace conform::meltano
