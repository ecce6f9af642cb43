// The mx.* checks through the engine's executor seam: the real MeltanoSource, engine and checks
// judge a fake extension (fake_extension.hpp), correct and with one fault at a time. Every check
// passes on the correct extension (its code judged something) and fails or warns on its fault.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "checks/checks.hpp"
#include "fake_extension.hpp"
// After the fake, whose status_of and message_of it uses.
#include "../fault_cases.hpp"

using namespace conform;
using namespace conform::testing;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// A fault, the check it must trip, the status it must get and a part of the message.
struct FaultCase {
    const char* name;
    ExtensionModel model;
    const char* check;
    const char* status;
    const char* message;
};

ExtensionModel with(bool ExtensionModel::*fault) {
    ExtensionModel model;
    model.*fault = true;
    return model;
}

}  // namespace

TEST_CASE("mx checks: a correct extension passes every check, and each one judged something") {
    auto report = run_extension(ExtensionModel{});
    for (const auto& check : checks::meltano_checks()) {
        std::string id(check.info.id);
        INFO(id, ": ", message_of(report, id));
        CHECK(status_of(report, id) == "passed");
    }
}

TEST_CASE("mx checks: each fault is caught by the check meant for it") {
    using M = ExtensionModel;
    const std::vector<FaultCase> cases = {
        {"help fails", with(&M::help_fails), "mx.help", "failed", "expected exit code 0"},
        {"help without usage", with(&M::help_without_usage), "mx.help", "failed",
         "printed no usage text"},
        {"describe not JSON", with(&M::describe_not_json), "mx.describe_json", "failed", ""},
        {"plain describe is text", with(&M::describe_plain_text), "mx.describe_shape", "warned",
         "plain `describe` printed no JSON"},
        {"describe entry lacks a description", with(&M::describe_lacks_description),
         "mx.describe_shape", "warned", "description"},
        {"described executable missing", with(&M::describe_ghost), "mx.described_executables",
         "failed", "'ghost' is named by describe but cannot run"},
        {"command help fails", with(&M::command_help_fails), "mx.described_executables", "failed",
         "`fake_extension hello --help` gave exit code 2"},
        {"configured command fails", with(&M::command_fails), "mx.invoke_commands", "failed",
         "command 'hello': exit code 1, expected exit code 0"},
        {"test command fails", with(&M::test_fails), "mx.test_commands", "failed",
         "command 'test': exit code 1"},
        {"unknown command exits 0", with(&M::unknown_exits_zero), "mx.unknown_command", "failed",
         "exited 0, expected a non-zero exit code"},
        {"unknown command silent", with(&M::unknown_silent), "mx.unknown_command", "failed",
         "wrote no message on stderr"},
        {"invoke splits arguments", with(&M::invoke_splits_args), "mx.passthrough", "failed",
         "the wrapped program received"},
        {"invoke swallows the exit code", with(&M::invoke_swallows_exit), "mx.passthrough",
         "failed", "`invoke` exited 0 though the wrapped program exited 3"},
        {"invoker loses the exit code", with(&M::invoker_loses_exit), "mx.passthrough", "failed",
         "the invoker: exit code 1 though the wrapped program exited 0"},
        {"invoke drops --", with(&M::invoke_drops_dashdash), "mx.invoke_keeps_dashdash", "warned",
         "did not receive the first `--`"},
        {"failure not logged at error", with(&M::failure_not_logged_as_error), "mx.log_errors",
         "warned", "logged no line at error level"},
        {"initialize not idempotent", with(&M::initialize_not_idempotent), "mx.initialize",
         "warned", "the second initialize changed the project: fake.yml (changed)"},
        {"initialize fails", with(&M::initialize_fails), "mx.initialize", "warned",
         "initialize: exit code 1"},
        {"stdout noise", with(&M::stdout_noise), "mx.stdout_quiet", "warned",
         "wrote 1 line(s) to stdout"},
        {"logs without level", with(&M::logs_without_level), "mx.log_structured", "warned",
         "a level (LOG_LEVELS=true)"},
        {"coloured logs", with(&M::logs_coloured), "mx.log_uncoloured", "warned",
         "ANSI colour codes"},
        {"JSON logs broken", with(&M::json_logs_broken), "mx.log_json", "warned",
         "a stderr line is"},
        {"waits on stdin", with(&M::waits_on_stdin), "mx.stdin_unused", "warned",
         "with stdin open and empty: it waits on stdin"},
        {"environment logged at debug", with(&M::logs_env_at_debug), "mx.secrets_not_leaked",
         "failed", "printed the value of a secret_env variable on stderr"},
        {"traceback on stdout", with(&M::traceback_on_stdout), "mx.stdout_quiet", "warned",
         "wrote a traceback to stdout"},
    };
    std::set<std::string> proven;
    for (const auto& fault : cases) {
        auto report = run_extension(fault.model);
        check_caught(report, fault);
        proven.insert(fault.check);
    }
    check_every_check_proven(checks::meltano_checks(), proven);
}

TEST_CASE("mx checks: SHOULD findings fail under --strict") {
    auto report = run_extension(with(&ExtensionModel::stdout_noise), {"mx-stdio"}, true);
    CHECK(status_of(report, "mx.stdout_quiet") == "failed");
}

TEST_CASE("mx checks: what the test config leaves out is skipped with its reason") {
    auto config = fake_extension_config();
    config.wrapped.clear();
    config.log_json = false;
    config.commands.clear();
    auto report = run_extension(ExtensionModel{}, {}, false, config);
    CHECK(status_of(report, "mx.passthrough") == "skipped");
    CHECK(contains(message_of(report, "mx.passthrough"), "extension.wrapped"));
    CHECK(status_of(report, "mx.log_json") == "skipped");
    CHECK(contains(message_of(report, "mx.log_json"), "MELTANO_LOG_JSON is not supported"));
    CHECK(status_of(report, "mx.invoke_commands") == "skipped");
    CHECK(message_of(report, "mx.invoke_commands") ==
          "the test config lists no command (\"commands\")");
    // `test` is listed by describe: it still runs as a listed test* command.
    CHECK(status_of(report, "mx.test_commands") == "passed");
}

TEST_CASE("mx checks: describe that prints no JSON leaves the executables unjudged, not passed") {
    auto report = run_extension(with(&ExtensionModel::describe_not_json), {"mx-describe"});
    CHECK(status_of(report, "mx.described_executables") == "skipped");
    CHECK(contains(message_of(report, "mx.described_executables"),
                   "describe printed no JSON to read"));
    CHECK(status_of(report, "mx.describe_shape") == "skipped");
}

TEST_CASE(
    "mx checks: a pass-through CLI's --help runs in a project; crashing before the program "
    "fails") {
    auto needs_project = with(&ExtensionModel::invoker_needs_project);
    CHECK(status_of(run_extension(needs_project, {"mx-describe"}), "mx.described_executables") ==
          "passed");
    // Before 2026-12-07 the invoker's exit code counted as the wrapped program's, and passed.
    needs_project.initialize_fails = true;
    auto report = run_extension(needs_project, {"mx-describe"});
    CHECK(status_of(report, "mx.described_executables") == "failed");
    CHECK(contains(message_of(report, "mx.described_executables"),
                   "fake_invoker --help: exit code 1 without running the wrapped program"));
}

TEST_CASE("mx checks: a command whose result is its stdout is not stdout noise when marked so") {
    auto model = with(&ExtensionModel::hello_prints_result);
    auto report = run_extension(model, {"mx-commands"});
    CHECK(status_of(report, "mx.stdout_quiet") == "warned");
    CHECK(contains(message_of(report, "mx.stdout_quiet"), "wrote 1 line(s) to stdout"));
    auto config = fake_extension_config();
    for (auto& command : config.commands) {
        command.result_on_stdout = command.name == "hello";
    }
    report = run_extension(model, {"mx-commands"}, false, config);
    CHECK(status_of(report, "mx.stdout_quiet") == "passed");
    CHECK(contains(message_of(report, "mx.stdout_quiet"), "commands[].result_on_stdout"));
}

TEST_CASE("mx checks: commands run with MELTANO_PROJECT_ROOT at their project, as Meltano runs") {
    // Before 2026-12-08 it was unset: superset-ext wrote under /None/.
    auto report = run_extension(with(&ExtensionModel::needs_project_root), {});
    CHECK(status_of(report, "mx.initialize") == "passed");
    CHECK(status_of(report, "mx.invoke_commands") == "passed");
}

TEST_CASE("mx checks: a failed setup initialize is named in the notes of the commands after it") {
    auto report = run_extension(with(&ExtensionModel::initialize_fails), {"mx-commands"});
    CHECK(contains(message_of(report, "mx.invoke_commands"),
                   "the project's setup `fake_extension initialize` gave exit code 1: the "
                   "commands ran in the folder it left"));
}

TEST_CASE("mx checks: an exit code swallowed after a pre-invoke step still fails (dbt-ext)") {
    // Before 2026-12-07 the probe failed every call: the pre-invoke step's failure was the exit
    // code judged, and the command's was never reached.
    auto model = with(&ExtensionModel::runs_pre_invoke);
    CHECK(status_of(run_extension(model, {"mx-passthrough"}), "mx.passthrough") == "passed");
    model.invoke_swallows_exit = true;
    auto report = run_extension(model, {"mx-passthrough"});
    CHECK(status_of(report, "mx.passthrough") == "failed");
    CHECK(contains(message_of(report, "mx.passthrough"), "exited 0 though the wrapped program"));
}

TEST_CASE(
    "mx checks: a wrapper that calls the program twice passes when one call got the arguments") {
    auto report = run_extension(with(&ExtensionModel::checks_version_first), {"mx-passthrough"});
    CHECK(status_of(report, "mx.passthrough") == "passed");
    CHECK(contains(message_of(report, "mx.passthrough"), "called the wrapped program 2 times"));
}
