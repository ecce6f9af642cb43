#pragma once

// A Meltano extension written in C++ for the engine's executor seam: `fake_extension`,
// `fake_invoker` and the wrapped program `faketool` answer the commands conform runs without
// spawning anything, and the real MeltanoSource, engine and mx checks judge them. Correct unless
// one of the model's faults is set.

#include <string>
#include <vector>

#include "meltano/session.hpp"
#include "meltano/test_config.hpp"
#include "report/model.hpp"

namespace conform::testing {

struct ExtensionModel {
    bool help_fails = false;                   // --help exits 2
    bool help_without_usage = false;           // --help prints no usage
    bool describe_not_json = false;            // describe --format=json prints text
    bool describe_plain_text = false;          // plain describe prints text (the EDK's default)
    bool describe_lacks_description = false;   // an entry has no "description"
    bool describe_ghost = false;               // describe names an executable that is missing
    bool command_help_fails = false;           // `fake_extension hello --help` exits 2
    bool command_fails = false;                // the configured command `hello` exits 1
    bool test_fails = false;                   // `test` exits 1
    bool unknown_exits_zero = false;           // an unknown sub-command exits 0
    bool unknown_silent = false;               // ... or fails without a message
    bool invoke_splits_args = false;           // invoke re-splits its arguments on spaces
    bool invoke_drops_dashdash = false;        // invoke drops the first `--` (as click does)
    bool invoke_swallows_exit = false;         // invoke exits 0 whatever the program did
    bool invoker_loses_exit = false;           // the invoker exits 1 whatever the program did
    bool initialize_not_idempotent = false;    // initialize appends to its file every time
    bool initialize_fails = false;             // initialize exits 1
    bool stdout_noise = false;                 // initialize prints to stdout
    bool logs_without_level = false;           // console logs carry no level
    bool logs_coloured = false;                // console logs carry ANSI colour codes
    bool json_logs_broken = false;             // MELTANO_LOG_JSON=true logs are not JSON
    bool failure_not_logged_as_error = false;  // a failing program is logged at info
    bool waits_on_stdin = false;               // every command waits for stdin to close
    bool logs_env_at_debug = false;            // LOG_LEVEL=debug logs the environment, secrets too
    bool checks_version_first = false;         // invoke runs `faketool --version` before the call
    // invoke runs `faketool clean` first and stops with its exit code when it fails (dbt-ext's
    // pre-invoke step)
    bool runs_pre_invoke = false;
    // the invoker needs the project initialize makes: elsewhere it crashes before the program
    // runs (dbt-ext's transform/)
    bool invoker_needs_project = false;
    bool traceback_on_stdout = false;  // an unknown command crashes, traceback on stdout
    bool hello_prints_result = false;  // `hello` prints its result on stdout (cron-ext's list)
    // initialize fails unless MELTANO_PROJECT_ROOT is the folder it runs in, as Meltano sets it
    // (superset-ext writes its config under it)
    bool needs_project_root = false;
};

// The test config of the fake extension, with `commands` hello (and test) and every log feature.
meltano::TestConfig fake_extension_config();

// The seam: answers each command conform starts as the model says.
meltano::Executor executor_for(const ExtensionModel& model);

// Runs the built-in extension suite against the model.
report::RunReport run_extension(const ExtensionModel& model, std::vector<std::string> only = {},
                                bool strict = false,
                                const meltano::TestConfig& config = fake_extension_config());

// "passed", "failed", "warned", "skipped" or "absent" for `check` in any scenario of `report`.
std::string status_of(const report::RunReport& report, const std::string& check);
// The first example's message (or the note) of `check`.
std::string message_of(const report::RunReport& report, const std::string& check);

}  // namespace conform::testing
