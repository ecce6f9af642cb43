// The Meltano extension checks of what its commands do (MX-HELP-*, MX-DESC-*, MX-INV-*,
// MX-EXIT-1, MX-TEST-1, MX-INIT-1, and MX-LOG-1's error level).
#include <fmt/format.h>

#include <algorithm>

#include "checks/meltano/helpers.hpp"
#include "checks/meltano/meltano.hpp"
#include "meltano/describe.hpp"
#include "meltano/session.hpp"

namespace conform::checks::mx {

using meltano::k_probe_fail_argument;
using meltano::k_probe_failure;

namespace {

constexpr std::string_view k_unknown_command = "conform-no-such-command";

std::string lowercase(std::string_view text) {
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower;
}

// The arguments as a JSON array, so that spaces, quotes and empty strings stay visible.
std::string quoted_list(const std::vector<std::string>& args) {
    std::string text = "[";
    for (std::size_t i = 0; i < args.size(); ++i) {
        text += i == 0 ? "\"" : ", \"";
        for (char c : args[i]) {
            if (c == '"' || c == '\\') {
                text += '\\';
                text += c;
            } else if (static_cast<unsigned char>(c) < 0x20) {
                text += fmt::format("\\u{:04x}", static_cast<int>(c));
            } else {
                text += c;
            }
        }
        text += '"';
    }
    return text + "]";
}

const CommandResult* only_run(const Inputs& inputs, std::size_t need, Purpose purpose) {
    auto runs = inputs.runs(need, purpose);
    return runs.empty() ? nullptr : runs.front();
}

bool is_test_command(std::string_view name) {
    return name.starts_with("test");
}

void check_help(const Inputs& inputs, Verdict& verdict) {
    const auto* help = only_run(inputs, 0, Purpose::help);
    if (help == nullptr) {
        return;
    }
    verdict.judged();
    if (!help->exited_with(0)) {
        fail_with_stderr(verdict, *help,
                         fmt::format("--help: {}, expected exit code 0", help->outcome()));
    }
    std::string printed = help->stdout_text + help->stderr_text;
    if (help->started && lowercase(printed).find("usage") == std::string::npos) {
        fail_in(verdict, *help, "--help printed no usage text (no \"usage\" on stdout or stderr)",
                printed);
    }
}

meltano::DescribeReading reading_of(const Inputs& inputs, const CommandResult& json) {
    const auto& config = inputs.test_config();
    return meltano::read_describe(json.stdout_text, config.extension_executable,
                                  config.invoker.value_or(""));
}

void check_describe_json(const Inputs& inputs, Verdict& verdict) {
    const auto* json = only_run(inputs, 0, Purpose::describe);
    const auto* plain = only_run(inputs, 1, Purpose::describe);
    for (const auto* run : {json, plain}) {
        if (run == nullptr) {
            continue;
        }
        verdict.judged();
        if (!run->exited_with(0)) {
            fail_with_stderr(
                verdict, *run,
                fmt::format("{}: {}, expected exit code 0",
                            run == json ? "describe --format=json" : "describe (default format)",
                            run->outcome()));
        }
    }
    if (json != nullptr && json->started) {
        auto reading = reading_of(inputs, *json);
        if (!reading.not_json.empty()) {
            fail_in(verdict, *json, reading.not_json, json->stdout_text);
        }
    }
}

void check_describe_shape(const Inputs& inputs, Verdict& verdict) {
    const auto* json = only_run(inputs, 0, Purpose::describe);
    const auto* plain = only_run(inputs, 1, Purpose::describe);
    if (json == nullptr || !json->started) {
        verdict.skip("describe did not run");
        return;
    }
    auto reading = reading_of(inputs, *json);
    if (!reading.not_json.empty()) {
        verdict.skip("describe printed no JSON to read");
        return;
    }
    verdict.judged();
    for (const auto& deviation : reading.deviations) {
        fail_in(verdict, *json, deviation, first_line(json->stdout_text));
    }
    const auto& config = inputs.test_config();
    if (plain != nullptr && plain->exited_with(0) &&
        !meltano::read_describe(plain->stdout_text, config.extension_executable, "")
             .not_json.empty()) {
        fail_in(verdict, *plain,
                "plain `describe` printed no JSON: the seed's default format is JSON, the EDK's "
                "is text (a warning, not a failure; --format=json is what conform judges)",
                first_line(plain->stdout_text));
    }
    verdict.note(
        "members beyond the seed's (the EDK's richer shape) and extra commands such as "
        "pre_invoke/post_invoke are accepted");
    for (const auto& cli : reading.clis) {
        if (cli.pass_through && cli.name != config.invoker.value_or("")) {
            verdict.note(
                fmt::format("describe lists the pass-through CLI '{}' the test config "
                            "does not declare: set extension.invoker (and "
                            "extension.wrapped) to test it",
                            cli.name));
        }
    }
}

void check_described_executables(const Inputs& inputs, Verdict& verdict) {
    note_failed_setup(inputs, verdict);
    for (const auto& note : inputs.first(0).notes) {
        verdict.note(note);
    }
    for (const auto* help : inputs.runs(0, Purpose::cli_help)) {
        verdict.judged();
        const auto& cli = help->command.name;
        if (help->cannot_run()) {
            fail_with_stderr(
                verdict, *help,
                fmt::format("'{}' is named by describe but cannot run: {}", cli, help->outcome()));
        } else if (!help->command.pass_through && !help->exited_with(0)) {
            fail_with_stderr(
                verdict, *help,
                fmt::format("{} --help: {}, expected exit code 0", cli, help->outcome()));
        } else if (help->command.probe_exit && !help->exited_with(0)) {
            // The probe stood in for the wrapped program and exits 0: another exit code is the
            // CLI's own (dbt-ext's invoker crashed on --help outside an initialized project).
            fail_with_stderr(verdict, *help,
                             help->probe_calls
                                 ? fmt::format("{} --help: {} though the wrapped program exited 0",
                                               cli, help->outcome())
                                 : fmt::format("{} --help: {} without running the wrapped program",
                                               cli, help->outcome()));
        }
    }
    for (const auto* sub : inputs.runs(0, Purpose::command_help)) {
        verdict.judged();
        if (!sub->exited_with(0)) {
            fail_with_stderr(verdict, *sub,
                             fmt::format("'{}' is listed by describe but `{} {} --help` gave {}",
                                         sub->command.subject, sub->command.name,
                                         sub->command.subject, sub->outcome()));
        }
    }
}

// The configured commands named test* (`tests`) or the others.
std::vector<const CommandResult*> configured(const Inputs& inputs, bool tests) {
    auto runs = inputs.runs(0, Purpose::configured);
    std::erase_if(runs, [tests](const CommandResult* run) {
        return is_test_command(run->command.name) != tests;
    });
    return runs;
}

void judge_configured(const std::vector<const CommandResult*>& runs, Verdict& verdict) {
    for (const auto* run : runs) {
        verdict.judged();
        if (!run->exited_with(run->command.expected_exit)) {
            fail_with_stderr(
                verdict, *run,
                fmt::format("command '{}': {}, expected exit code {}", run->command.name,
                            run->outcome(), run->command.expected_exit));
        }
    }
}

void check_invoke_commands(const Inputs& inputs, Verdict& verdict) {
    note_failed_setup(inputs, verdict);
    judge_configured(configured(inputs, false), verdict);
}

void check_test_commands(const Inputs& inputs, Verdict& verdict) {
    note_failed_setup(inputs, verdict);
    judge_configured(configured(inputs, true), verdict);
    for (const auto* run : inputs.runs(1, Purpose::listed_test)) {
        verdict.judged();
        if (!run->exited_with(0)) {
            fail_with_stderr(verdict, *run,
                             fmt::format("'{}' (listed by describe) gave {}, expected exit code 0",
                                         run->command.name, run->outcome()));
        }
    }
}

// A clear message about an unknown sub-command names it or says what kind of problem it is.
bool says_what_was_wrong(std::string_view stderr_text) {
    auto lower = lowercase(stderr_text);
    for (std::string_view word :
         {k_unknown_command, std::string_view("no such"), std::string_view("unknown"),
          std::string_view("invalid"), std::string_view("usage"), std::string_view("error"),
          std::string_view("not found")}) {
        if (lower.find(word) != std::string::npos) {
            return true;
        }
    }
    return false;
}

void check_unknown_command(const Inputs& inputs, Verdict& verdict) {
    if (const auto* run = only_run(inputs, 0, Purpose::unknown_command)) {
        verdict.judged();
        if (run->exited_with(0)) {
            fail_with_stderr(
                verdict, *run,
                fmt::format("`{}` exited 0, expected a non-zero exit code", run->command_line));
        } else if (run->started && meltano::non_empty_lines(run->stderr_text).empty()) {
            fail_in(verdict, *run,
                    fmt::format("`{}` gave {} but wrote no message on stderr", run->command_line,
                                run->outcome()));
        } else if (run->started && meltano::has_traceback(run->stderr_text)) {
            fail_with_stderr(verdict, *run,
                             fmt::format("`{}` gave {} with a traceback: the extension crashed "
                                         "instead of rejecting the command",
                                         run->command_line, run->outcome()));
        } else if (run->started && !says_what_was_wrong(run->stderr_text)) {
            fail_with_stderr(
                verdict, *run,
                fmt::format("`{}` gave {} but its message names neither the command nor the "
                            "problem (\"no such\", \"unknown\", \"invalid\", \"usage\", "
                            "\"error\")",
                            run->command_line, run->outcome()));
        }
    }
    if (const auto* invoke = only_run(inputs, 0, Purpose::invoke_unknown)) {
        verdict.judged();
        if (invoke->exited_with(0)) {
            fail_with_stderr(
                verdict, *invoke,
                fmt::format("`{}` exited 0, expected a non-zero exit code", invoke->command_line));
        }
    } else {
        verdict.note(
            "`invoke NAME` hands unknown names to the wrapped program (the EDK's reading), so "
            "only the sub-command is tested here; mx.passthrough checks that invoke "
            "propagates the program's failure");
    }
}

// The arguments a probe run handed to the wrapped program: after `invoke` for the extension.
std::vector<std::string> sent_to_probe(const CommandResult& run) {
    const auto& args = run.command.args;
    bool through_invoke = !args.empty() && args.front() == "invoke";
    return {args.begin() + (through_invoke ? 1 : 0), args.end()};
}

std::vector<std::string> without_first_dashdash(std::vector<std::string> args) {
    if (auto it = std::find(args.begin(), args.end(), "--"); it != args.end()) {
        args.erase(it);
    }
    return args;
}

// What the probe received against what was sent; `dash_dash_may_drop`: losing the first `--` is
// mx.invoke_keeps_dashdash's warning, not a pass-through failure.
// A wrapper may call the program several times (a version check first, say): one call must have
// received the arguments.
void compare_probe(const CommandResult& run, bool dash_dash_may_drop, Verdict& verdict) {
    verdict.judged();
    if (!run.probe_calls) {
        fail_with_stderr(verdict, run,
                         fmt::format("`{}`: the wrapped program was not run ({})", run.command_line,
                                     run.outcome()));
        return;
    }
    auto sent = sent_to_probe(run);
    const auto& calls = *run.probe_calls;
    auto received = [&](const std::vector<std::string>& got) {
        return got == sent || (dash_dash_may_drop && got == without_first_dashdash(sent));
    };
    if (std::any_of(calls.begin(), calls.end(), received)) {
        if (calls.size() > 1) {
            verdict.note(
                fmt::format("`{}` called the wrapped program {} times; one call received "
                            "the arguments",
                            run.command_line, calls.size()));
        }
        return;
    }
    std::vector<std::string> seen;
    for (const auto& got : calls) {
        seen.push_back(quoted_list(got));
    }
    fail_in(verdict, run,
            fmt::format("`{}`: the wrapped program received {}, expected {}", run.command_line,
                        fmt::join(seen, " then "), quoted_list(sent)));
}

// Whether the wrapped program got the call that fails (conform-probe-fail): calls before it (an
// EDK extension's pre-invoke steps) exit 0.
bool reached_failing_call(const CommandResult& run) {
    return run.probe_calls &&
           std::any_of(run.probe_calls->begin(), run.probe_calls->end(), [](const auto& call) {
               return std::find(call.begin(), call.end(), k_probe_fail_argument) != call.end();
           });
}

void check_invoke_passthrough(const Inputs& inputs, Verdict& verdict) {
    if (const auto* invoked = only_run(inputs, 0, Purpose::invoke_probe)) {
        compare_probe(*invoked, true, verdict);
        if (invoked->probe_calls && !invoked->exited_with(0)) {
            fail_with_stderr(verdict, *invoked,
                             fmt::format("`invoke`: {} though the wrapped program exited 0",
                                         invoked->outcome()));
        }
    }
    if (const auto* failing = only_run(inputs, 0, Purpose::invoke_probe_fails)) {
        if (failing->probe_calls && !reached_failing_call(*failing)) {
            verdict.note(
                fmt::format("`{}` never passed conform-probe-fail on to the wrapped "
                            "program: its exit code is not judged",
                            failing->command_line));
        } else if (failing->probe_calls && failing->exited_with(0)) {
            fail_with_stderr(verdict, *failing,
                             fmt::format("`invoke` exited 0 though the wrapped program exited {}",
                                         k_probe_failure));
        } else if (failing->probe_calls && !failing->exited_with(k_probe_failure)) {
            verdict.note(
                fmt::format("`invoke` turned the program's exit code {} into {} "
                            "(non-zero: accepted)",
                            k_probe_failure, failing->outcome()));
        }
    }
}

void check_invoker_passthrough(const Inputs& inputs, Verdict& verdict) {
    if (const auto* through = only_run(inputs, 0, Purpose::invoker_probe)) {
        compare_probe(*through, false, verdict);
        if (through->probe_calls && !through->exited_with(0)) {
            fail_with_stderr(verdict, *through,
                             fmt::format("the invoker: {} though the wrapped program exited 0",
                                         through->outcome()));
        }
    }
    if (const auto* bare = only_run(inputs, 0, Purpose::invoker_bare)) {
        compare_probe(*bare, false, verdict);
    }
    if (const auto* code = only_run(inputs, 0, Purpose::invoker_probe_fails)) {
        if (code->probe_calls && !reached_failing_call(*code)) {
            verdict.note(
                fmt::format("`{}` never passed conform-probe-fail on to the wrapped "
                            "program: its exit code is not judged",
                            code->command_line));
        } else if (code->probe_calls && !code->exited_with(k_probe_failure)) {
            fail_with_stderr(
                verdict, *code,
                fmt::format("the invoker gave {}, expected the wrapped program's exit code {}",
                            code->outcome(), k_probe_failure));
        }
    }
}

void check_passthrough(const Inputs& inputs, Verdict& verdict) {
    note_failed_setup(inputs, verdict);
    check_invoke_passthrough(inputs, verdict);
    if (!inputs.test_config().invoker) {
        verdict.note("the test config declares no invoker");
        return;
    }
    check_invoker_passthrough(inputs, verdict);
}

void check_invoke_dashdash(const Inputs& inputs, Verdict& verdict) {
    const auto* invoked = only_run(inputs, 0, Purpose::invoke_probe);
    if (invoked == nullptr || !invoked->probe_calls) {
        return;
    }
    verdict.judged();
    auto sent = sent_to_probe(*invoked);
    const auto& calls = *invoked->probe_calls;
    auto kept = std::find(calls.begin(), calls.end(), sent) != calls.end();
    auto dropped =
        std::find(calls.begin(), calls.end(), without_first_dashdash(sent)) != calls.end();
    if (!kept && dropped) {
        fail_in(verdict, *invoked,
                fmt::format("`{}`: the wrapped program did not receive the first `--`; the seed "
                            "passes arguments unchanged, the EDK's parser (click) drops it: a "
                            "warning, not a failure",
                            invoked->command_line));
    }
}

// The levels of the console or JSON log lines of `stderr_text`.
std::vector<std::string> levels_in(std::string_view stderr_text) {
    std::vector<std::string> levels;
    for (auto line : meltano::non_empty_lines(stderr_text)) {
        std::string json_level;
        if (!meltano::json_log_problem(line, false, false, &json_level) && !json_level.empty()) {
            levels.push_back(json_level);
            continue;
        }
        if (auto read = meltano::read_console_line(meltano::strip_ansi(line)); read.level) {
            levels.push_back(*read.level);
        }
    }
    return levels;
}

// conform sets LOG_LEVELS=true for every command, so a failure's level can be read even where
// the test config does not require a level on every line.
void check_log_errors(const Inputs& inputs, Verdict& verdict) {
    const auto* failing = only_run(inputs, 0, Purpose::invoke_probe_fails);
    if (failing == nullptr || !failing->started) {
        return;
    }
    auto levels = levels_in(failing->stderr_text);
    if (levels.empty()) {
        verdict.skip(
            "no stderr line of the failing invoke carries a level, even with LOG_LEVELS=true: "
            "its error level cannot be told");
        return;
    }
    verdict.judged();
    if (std::none_of(levels.begin(), levels.end(), [](const std::string& level) {
            return level == "error" || level == "critical";
        })) {
        fail_with_stderr(verdict, *failing,
                         fmt::format("`invoke` failed ({}) but logged no line at error level",
                                     failing->outcome()));
    }
}

void check_initialize(const Inputs& inputs, Verdict& verdict) {
    const auto* first = only_run(inputs, 0, Purpose::initialize);
    const auto* second = only_run(inputs, 0, Purpose::initialize_again);
    if (first == nullptr || second == nullptr) {
        return;
    }
    verdict.judged();
    if (!first->exited_with(0)) {
        fail_with_stderr(verdict, *first,
                         fmt::format("initialize: {}, expected exit code 0", first->outcome()));
        return;
    }
    if (!second->exited_with(0)) {
        fail_with_stderr(verdict, *second,
                         fmt::format("initialize run a second time: {}, expected exit code 0",
                                     second->outcome()));
    }
    const auto& changed = inputs.first(0).changed_files;
    if (!changed.empty()) {
        auto shown = std::min<std::ptrdiff_t>(5, static_cast<std::ptrdiff_t>(changed.size()));
        fail_in(verdict, *second,
                fmt::format("the second initialize changed the project: {}",
                            fmt::join(changed.begin(), changed.begin() + shown, ", ")));
    }
}

}  // namespace

meltano::Checks command_checks() {
    using enum report::Level;
    using enum meltano::Role;
    using engine::Count;
    using Need = meltano::Need;
    auto one = [](meltano::Role role) { return Need{role, {}, {}, std::nullopt, Count::one}; };
    return {
        {{"mx.help", {"MX-HELP-1"}, must, "--help exits 0 and prints usage"},
         {one(help)},
         "--help did not run",
         check_help},
        {{"mx.describe_json",
          {"MX-DESC-1"},
          must,
          "describe --format=json exits 0 and prints one JSON document with \"commands\""},
         {one(describe_json), one(describe_plain)},
         "describe did not run",
         check_describe_json},
        {{"mx.describe_shape",
          {"MX-DESC-1"},
          should,
          "describe's JSON has the seed's shape and names the extension (and invoker)"},
         {one(describe_json), one(describe_plain)},
         "describe did not run",
         check_describe_shape},
        {{"mx.described_executables",
          {"MX-DESC-2"},
          must,
          "every described executable exists and each listed command runs"},
         {one(described_helps)},
         "describe names no executable",
         check_described_executables},
        {{"mx.invoke_commands",
          {"MX-INV-1", "MX-EXIT-1"},
          must,
          "the test config's commands exit with the expected codes"},
         {one(configured_commands)},
         "the test config lists no command (\"commands\")",
         check_invoke_commands},
        {{"mx.test_commands", {"MX-TEST-1"}, must, "test* commands exit 0"},
         {one(configured_commands), one(described_tests)},
         "no test* command in the test config or describe: `meltano test` would report 0 tests",
         check_test_commands},
        {{"mx.unknown_command",
          {"MX-INV-1", "MX-EXIT-1"},
          must,
          "an unknown sub-command exits non-zero with a message on stderr"},
         {one(unknown_command)},
         "the unknown sub-command did not run",
         check_unknown_command},
        {{"mx.passthrough",
          {"MX-INV-2", "MX-EXIT-1"},
          must,
          "invoke and the invoker pass arguments through unchanged and propagate the exit code"},
         {one(passthrough)},
         "invoke did not run with the probe",
         check_passthrough},
        {{"mx.initialize", {"MX-INIT-1"}, should, "initialize exits 0 twice and is idempotent"},
         {one(initialize_twice)},
         "initialize did not run",
         check_initialize},
        {{"mx.log_errors", {"MX-LOG-1"}, should, "a failure is logged at error level"},
         {one(passthrough)},
         "invoke did not run with a failing program",
         check_log_errors},
        {{"mx.invoke_keeps_dashdash",
          {"MX-INV-2"},
          should,
          "invoke passes `--` through too (the EDK's parser drops the first)"},
         {one(passthrough)},
         "the wrapped program was not run (see mx.passthrough)",
         check_invoke_dashdash},
    };
}

}  // namespace conform::checks::mx
