// The Meltano extension checks of what an extension prints and reads (MX-IO-*, MX-LOG-1's
// format): stdout, stdin and the log lines on stderr.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>

#include "checks/meltano/helpers.hpp"
#include "checks/meltano/meltano.hpp"

namespace conform::checks::mx {

namespace {

// The commands of every step the check reads that started: one that could not start printed and
// read nothing, which judges nothing (mx.help reports it).
template <typename Visit>
void for_each_run(const Inputs& inputs, Visit visit) {
    for (const auto* step : inputs.all_steps()) {
        for (const auto& run : step->runs) {
            if (run.started) {
                visit(run);
            }
        }
    }
}

// Why `run` may print on stdout, or nothing when it may not: describe and help print there, and a
// program the extension wraps (not conform's silent probe) owns what it prints.
std::optional<std::string_view> stdout_exemption(const CommandResult& run,
                                                 const meltano::TestConfig& config) {
    const auto& command = run.command;
    switch (command.purpose) {
        case Purpose::help:
        case Purpose::command_help:
            return "--help";
        case Purpose::describe:
            return "describe";
        case Purpose::cli_help:
            if (!command.pass_through) {
                return "--help";
            }
            return command.probe_exit ? std::nullopt
                                      : std::optional<std::string_view>("the wrapped program");
        case Purpose::configured:
        case Purpose::own: {
            if (command.result_on_stdout) {
                return "commands whose result is their stdout (commands[].result_on_stdout)";
            }
            if (command.probe_exit) {
                return std::nullopt;  // the probe prints nothing: all of stdout is the extension's
            }
            if (command.executable != config.extension_executable) {
                return command.executable == config.invoker.value_or("")
                           ? std::optional<std::string_view>("the wrapped program")
                           : std::optional<std::string_view>("other programs");
            }
            auto first = command.args.empty() ? std::string() : command.args.front();
            if (first == "describe" || first == "--help") {
                return first == "describe" ? "describe" : "--help";
            }
            return std::nullopt;
        }
        default:
            return std::nullopt;
    }
}

// Every command's stdout, in every scenario: empty but for what an exemption names; a traceback
// is never an exemption's output.
void check_stdout_quiet(const Inputs& inputs, Verdict& verdict) {
    std::set<std::string_view> exempt;
    for_each_run(inputs, [&](const CommandResult& run) {
        verdict.judged();
        auto exemption = stdout_exemption(run, inputs.test_config());
        if (exemption) {
            exempt.insert(*exemption);
        }
        if (meltano::has_traceback(run.stdout_text)) {
            fail_in(verdict, run,
                    fmt::format("`{}` wrote a traceback to stdout ({} line(s)): diagnostics "
                                "belong on stderr",
                                run.command_line, run.stdout_lines),
                    first_line(run.stdout_text));
        } else if (!exemption && !run.stdout_text.empty()) {
            fail_in(
                verdict, run,
                fmt::format("`{}` wrote {} line(s) to stdout", run.command_line, run.stdout_lines),
                first_line(run.stdout_text));
        }
    });
    if (!exempt.empty()) {
        verdict.note(
            fmt::format("stdout of {} is theirs to print (a traceback there is still "
                        "judged)",
                        fmt::join(exempt, ", ")));
    }
}

// MX-SEC-1: the secret values of the test config's secret_env, on any output of any command.
void check_secrets(const Inputs& inputs, Verdict& verdict) {
    if (inputs.test_config().secret_env.empty()) {
        verdict.skip("the test config names no secret (extension.secret_env)");
        return;
    }
    for_each_run(inputs, [&](const CommandResult& run) {
        verdict.judged();
        for (auto [leaked, where] : {std::pair{run.secret_on_stdout, "stdout"},
                                     std::pair{run.secret_on_stderr, "stderr"}}) {
            if (leaked) {
                verdict.fail(fmt::format("`{}` printed the value of a secret_env variable on {}",
                                         run.command_line, where),
                             {run.label});
            }
        }
    });
}

void check_log_structured(const Inputs& inputs, Verdict& verdict) {
    const auto& config = inputs.test_config();
    for_each_run(inputs, [&](const CommandResult& run) {
        for (auto raw : meltano::non_empty_lines(run.stderr_text)) {
            verdict.judged();
            auto line = meltano::read_console_line(meltano::strip_ansi(raw));
            std::vector<std::string> missing;
            if (config.log_timestamps && !line.has_timestamp) {
                missing.emplace_back("an ISO 8601 timestamp (LOG_TIMESTAMPS=true)");
            }
            if (config.log_levels && !line.level) {
                missing.emplace_back("a level (LOG_LEVELS=true)");
            }
            if (!meltano::carries_event(line)) {
                missing.emplace_back("an event");
            }
            if (!missing.empty()) {
                fail_in(verdict, run,
                        fmt::format("a stderr line lacks {}", fmt::join(missing, " and ")), raw);
            }
        }
    });
}

void check_log_uncoloured(const Inputs& inputs, Verdict& verdict) {
    for_each_run(inputs, [&](const CommandResult& run) {
        verdict.judged();
        if (!meltano::has_ansi_escape(run.stderr_text)) {
            return;
        }
        auto lines = meltano::non_empty_lines(run.stderr_text);
        auto line = std::find_if(lines.begin(), lines.end(), meltano::has_ansi_escape);
        fail_in(verdict, run, "stderr carries ANSI colour codes though it is not a TTY",
                line == lines.end() ? std::string_view() : *line);
    });
}

void check_log_json(const Inputs& inputs, Verdict& verdict) {
    const auto& config = inputs.test_config();
    for_each_run(inputs, [&](const CommandResult& run) {
        for (auto line : meltano::non_empty_lines(run.stderr_text)) {
            verdict.judged();
            if (auto problem =
                    meltano::json_log_problem(line, config.log_levels, config.log_timestamps)) {
                fail_in(verdict, run, fmt::format("a stderr line is {}", *problem), line);
            }
        }
    });
}

void check_stdin_unused(const Inputs& inputs, Verdict& verdict) {
    for_each_run(inputs, [&](const CommandResult& run) {
        verdict.judged();
        if (run.timed_out) {
            fail_in(verdict, run,
                    fmt::format("`{}` was still running after {} s with stdin open and empty: it "
                                "waits on stdin",
                                run.command_line,
                                static_cast<double>(run.command.timeout.count()) / 1000.0),
                    run.stderr_text);
        }
    });
}

}  // namespace

meltano::Checks output_checks() {
    using enum report::Level;
    using enum meltano::Role;
    using engine::Count;
    using Need = meltano::Need;
    // The format is judged at the normal log level; the debug run is for what it may leak.
    const auto own_console =
        Need{own_commands, {}, {log_json, debug_logs}, std::nullopt, Count::one};
    const auto describe = Need{describe_json, {}, {}, std::nullopt, Count::one};
    return {
        {{"mx.stdout_quiet",
          {"MX-IO-1"},
          should,
          "stdout stays empty outside describe and --help, in every command"},
         {{run}},
         "no command ran",
         check_stdout_quiet},
        {{"mx.secrets_not_leaked",
          {"MX-SEC-1"},
          must,
          "no secret_env value appears on stdout or stderr, at any log level"},
         {{run}},
         "no command ran",
         check_secrets},
        {{"mx.stdin_unused", {"MX-IO-2"}, should, "no command waits on stdin"},
         {Need{stdin_open, {}, {}, std::nullopt, Count::one}},
         "no command ran with stdin open",
         check_stdin_unused},
        {{"mx.log_structured",
          {"MX-LOG-1"},
          should,
          "stderr lines carry an event, and a level and ISO 8601 timestamp where enabled"},
         {own_console, describe},
         "the extension logged nothing to check",
         check_log_structured},
        {{"mx.log_uncoloured", {"MX-LOG-1"}, should, "no colour codes on stderr without a TTY"},
         {own_console, describe},
         "no extension command ran",
         check_log_uncoloured},
        {{"mx.log_json",
          {"MX-LOG-1"},
          should,
          "with MELTANO_LOG_JSON=true every stderr line is one JSON object with an event"},
         {Need{own_commands, {log_json}, {}, std::nullopt, Count::one}},
         "the extension logged nothing to check",
         check_log_json},
    };
}

}  // namespace conform::checks::mx
