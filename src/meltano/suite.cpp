#include "meltano/suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <set>

#include "checks/registry.hpp"
#include "checks/selection.hpp"
#include "meltano/checks.hpp"
#include "meltano/describe.hpp"
#include "meltano/logs.hpp"
#include "meltano/session.hpp"
#include "protocol/secrets.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::meltano {

namespace ids = checks::ids;

namespace {

constexpr std::size_t k_max_examples = 5;
constexpr std::string_view k_unknown_command = "conform-no-such-command";
constexpr int k_probe_failure = 3;

// Arguments that a shell or a naive re-split would change: spaces, quotes, `--`, empty strings,
// options the extension must not parse, glob and variable characters.
const std::vector<std::string> k_passthrough_args = {
    "conform-probe", "two words", "it's",  "\"quoted\"", "",         "--",
    "--flag=a b",    "-x",        "$HOME", "*",          "tab\there"};

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

// One scenario being run: its steps, and the findings and notes of each of its checks.
class Scenario {
public:
    Scenario(const ScenarioInfo& info, Session& steps, const ExtensionConfig& test_config)
        : session(steps), config(test_config), m_info(info) {}

    StepResult run(const Step& step) {
        auto result = session.run(step);
        report::RunSummary summary;
        summary.label = result.label;
        summary.command = result.command;
        summary.exit = result.outcome();
        summary.duration_ms = result.elapsed.count();
        summary.lines = result.stdout_lines;
        summary.stderr_tail = excerpt(result.stderr_text, 2000);
        m_runs.push_back(std::move(summary));
        return result;
    }

    void find(std::string_view check, std::string message, const StepResult& step,
              std::string_view seen = {}) {
        auto& entry = m_findings[std::string(check)];
        ++entry.occurrences;
        if (entry.examples.size() < k_max_examples) {
            entry.examples.push_back({std::move(message), step.label, 0, excerpt(seen, 300)});
        }
    }

    void note(std::string_view check, const std::string& text) {
        auto& current = m_findings[std::string(check)].note;
        current += (current.empty() ? "" : "; ") + text;
    }

    void skip(std::string_view check, const std::string& why) {
        m_findings[std::string(check)].skipped = true;
        note(check, why);
    }

    // Runs `initialize` in a new project folder and returns the folder, for steps that need a
    // project. Its result is not judged here (mx-initialize does that).
    std::filesystem::path project() {
        auto dir = session.new_project_dir();
        run({.label = "setup: initialize",
             .executable = config.extension_executable,
             .args = {"initialize"},
             .cwd = dir});
        return dir;
    }

    report::ScenarioResult finish(const std::set<std::string_view>& selected, bool strict,
                                  std::chrono::milliseconds elapsed) {
        report::ScenarioResult result;
        result.id = std::string(m_info.id);
        result.suite = std::string(k_suite);
        result.title = std::string(m_info.title);
        result.runs = std::move(m_runs);
        result.duration_ms = elapsed.count();
        for (auto id : m_info.checks) {
            if (!selected.contains(id)) {
                continue;
            }
            const auto* info = find_extension_check(id);
            report::CheckResult check;
            check.id = std::string(id);
            check.clauses.assign(info->clauses.begin(), info->clauses.end());
            check.level = info->level;
            check.title = std::string(info->title);
            auto& found = m_findings[check.id];
            check.examples = found.examples;
            check.occurrences = found.occurrences;
            check.note = found.note;
            if (found.skipped && found.occurrences == 0) {
                check.status = report::Status::skipped;
            } else if (found.occurrences == 0) {
                check.status = report::Status::passed;
            } else if (info->level == checks::Level::must || strict) {
                check.status = report::Status::failed;
            } else {
                check.status = report::Status::warned;
            }
            result.checks.push_back(std::move(check));
        }
        result.status = report::Status::skipped;
        for (const auto& check : result.checks) {
            if (check.status == report::Status::failed) {
                result.status = report::Status::failed;
            } else if (check.status == report::Status::warned &&
                       result.status != report::Status::failed) {
                result.status = report::Status::warned;
            } else if (check.status == report::Status::passed &&
                       result.status == report::Status::skipped) {
                result.status = report::Status::passed;
            }
        }
        return result;
    }

    Session& session;
    const ExtensionConfig& config;

private:
    struct Findings {
        std::vector<report::Example> examples;
        std::uint64_t occurrences = 0;
        std::string note;
        bool skipped = false;
    };
    const ScenarioInfo& m_info;
    std::vector<report::RunSummary> m_runs;
    std::map<std::string, Findings> m_findings;
};

std::string first_line(std::string_view text) {
    auto lines = non_empty_lines(text);
    return lines.empty() ? std::string() : std::string(lines.front());
}

// MX-HELP-1.
void scenario_help(Scenario& s) {
    auto help =
        s.run({.label = "--help", .executable = s.config.extension_executable, .args = {"--help"}});
    if (!help.exited_with(0)) {
        s.find(ids::mx_help, fmt::format("--help: {}, expected exit code 0", help.outcome()), help,
               help.stderr_text);
    }
    std::string printed = help.stdout_text + help.stderr_text;
    std::string lower = printed;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (help.started && lower.find("usage") == std::string::npos) {
        s.find(ids::mx_help, "--help printed no usage text (no \"usage\" on stdout or stderr)",
               help, printed);
    }
}

// MX-DESC-1, MX-DESC-2.
void scenario_describe(Scenario& s) {
    const auto& config = s.config;
    auto json = s.run({.label = "describe --format=json",
                       .executable = config.extension_executable,
                       .args = {"describe", "--format=json"}});
    if (!json.exited_with(0)) {
        s.find(ids::mx_describe_json,
               fmt::format("describe --format=json: {}, expected exit code 0", json.outcome()),
               json, json.stderr_text);
    }
    auto reading =
        read_describe(json.stdout_text, config.extension_executable, config.invoker.value_or(""));
    auto plain = s.run(
        {.label = "describe", .executable = config.extension_executable, .args = {"describe"}});
    if (!plain.exited_with(0)) {
        s.find(ids::mx_describe_json,
               fmt::format("describe (default format): {}, expected exit code 0", plain.outcome()),
               plain, plain.stderr_text);
    }
    if (!json.started) {
        s.skip(ids::mx_describe_shape, "describe did not run");
        s.skip(ids::mx_described_executables, "describe did not run");
        return;
    }
    if (!reading.not_json.empty()) {
        s.find(ids::mx_describe_json, reading.not_json, json, json.stdout_text);
        s.skip(ids::mx_describe_shape, "describe printed no JSON to read");
        s.skip(ids::mx_described_executables, "describe printed no JSON to read");
        return;
    }
    for (const auto& deviation : reading.deviations) {
        s.find(ids::mx_describe_shape, deviation, json, first_line(json.stdout_text));
    }
    if (plain.exited_with(0) &&
        !read_describe(plain.stdout_text, config.extension_executable, "").not_json.empty()) {
        s.find(ids::mx_describe_shape,
               "plain `describe` printed no JSON: the seed's default format is JSON, the EDK's is "
               "text (a warning, not a failure; --format=json is what conform judges)",
               plain, first_line(plain.stdout_text));
    }
    s.note(ids::mx_describe_shape,
           "members beyond the seed's (the EDK's richer shape) and extra commands such as "
           "pre_invoke/post_invoke are accepted");
    for (const auto& cli : reading.clis) {
        if (cli.pass_through && cli.name != config.invoker.value_or("")) {
            s.note(ids::mx_describe_shape,
                   fmt::format("describe lists the pass-through CLI '{}' the test config does not "
                               "declare: set extension.invoker (and extension.wrapped) to test it",
                               cli.name));
        }
    }
    if (reading.clis.empty()) {
        s.skip(ids::mx_described_executables, "describe names no executable");
        return;
    }
    for (const auto& cli : reading.clis) {
        auto help =
            s.run({.label = cli.name + " --help", .executable = cli.name, .args = {"--help"}});
        bool missing = !help.started || help.timed_out ||
                       (help.exit.code && (*help.exit.code == 126 || *help.exit.code == 127));
        if (missing) {
            s.find(ids::mx_described_executables,
                   fmt::format("'{}' is named by describe but cannot run: {}", cli.name,
                               help.outcome()),
                   help, help.stderr_text);
            continue;
        }
        if (cli.pass_through) {
            continue;  // its --help belongs to the wrapped program
        }
        if (!help.exited_with(0)) {
            s.find(ids::mx_described_executables,
                   fmt::format("{} --help: {}, expected exit code 0", cli.name, help.outcome()),
                   help, help.stderr_text);
        }
        for (const auto& command : cli.commands) {
            if (command.empty() || command.starts_with(':')) {
                continue;
            }
            auto sub = s.run({.label = fmt::format("{} {} --help", cli.name, command),
                              .executable = cli.name,
                              .args = {command, "--help"}});
            if (!sub.exited_with(0)) {
                s.find(ids::mx_described_executables,
                       fmt::format("'{}' is listed by describe but `{} {} --help` gave {}", command,
                                   cli.name, command, sub.outcome()),
                       sub, sub.stderr_text);
            }
        }
    }
}

bool is_test_command(std::string_view name) {
    return name.starts_with("test");
}

// MX-INV-1, MX-EXIT-1, MX-TEST-1.
void scenario_commands(Scenario& s) {
    const auto& config = s.config;
    auto dir = s.project();
    std::size_t invoked = 0;
    std::size_t tests = 0;
    for (const auto& command : config.commands) {
        bool test = is_test_command(command.name);
        auto check = test ? ids::mx_test_commands : ids::mx_invoke_commands;
        auto result = s.run({.label = "command " + command.name,
                             .executable = command.executable,
                             .args = command.args,
                             .cwd = dir});
        ++(test ? tests : invoked);
        if (!result.exited_with(command.exit_code)) {
            s.find(check,
                   fmt::format("command '{}': {}, expected exit code {}", command.name,
                               result.outcome(), command.exit_code),
                   result, result.stderr_text);
        }
    }
    // test* commands the extension CLI itself lists (meltano test runs them in that order).
    auto json = s.run({.label = "describe --format=json",
                       .executable = config.extension_executable,
                       .args = {"describe", "--format=json"}});
    auto reading = read_describe(json.stdout_text, config.extension_executable, "");
    for (const auto& cli : reading.clis) {
        if (cli.pass_through) {
            continue;
        }
        for (const auto& command : cli.commands) {
            if (!is_test_command(command)) {
                continue;
            }
            auto result = s.run({.label = fmt::format("{} {}", cli.name, command),
                                 .executable = cli.name,
                                 .args = {command},
                                 .cwd = dir});
            ++tests;
            if (!result.exited_with(0)) {
                s.find(ids::mx_test_commands,
                       fmt::format("'{}' (listed by describe) gave {}, expected exit code 0",
                                   command, result.outcome()),
                       result, result.stderr_text);
            }
        }
    }
    if (invoked == 0) {
        s.skip(ids::mx_invoke_commands, "the test config lists no command (\"commands\")");
    }
    if (tests == 0) {
        s.skip(ids::mx_test_commands,
               "no test* command in the test config or describe: `meltano test` would report "
               "0 tests");
    }
}

// A clear message about an unknown sub-command names it or says what kind of problem it is.
bool says_what_was_wrong(std::string_view stderr_text) {
    std::string lower(stderr_text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
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

// MX-INV-1, MX-EXIT-1: unknown sub-commands.
void scenario_unknown(Scenario& s) {
    const auto& config = s.config;
    auto result = s.run({.label = "unknown sub-command",
                         .executable = config.extension_executable,
                         .args = {std::string(k_unknown_command)}});
    if (result.exited_with(0)) {
        s.find(ids::mx_unknown_command,
               fmt::format("`{}` exited 0, expected a non-zero exit code", result.command), result,
               result.stderr_text);
    } else if (result.started && non_empty_lines(result.stderr_text).empty()) {
        s.find(ids::mx_unknown_command,
               fmt::format("`{}` gave {} but wrote no message on stderr", result.command,
                           result.outcome()),
               result);
    } else if (result.started && !says_what_was_wrong(result.stderr_text)) {
        s.find(ids::mx_unknown_command,
               fmt::format("`{}` gave {} but its message names neither the command nor the "
                           "problem (\"no such\", \"unknown\", \"invalid\", \"usage\", \"error\")",
                           result.command, result.outcome()),
               result, result.stderr_text);
    }
    if (config.wrapped.empty()) {
        auto invoke = s.run({.label = "invoke an unknown command",
                             .executable = config.extension_executable,
                             .args = {"invoke", std::string(k_unknown_command)}});
        if (invoke.exited_with(0)) {
            s.find(ids::mx_unknown_command,
                   fmt::format("`{}` exited 0, expected a non-zero exit code", invoke.command),
                   invoke, invoke.stderr_text);
        }
    } else {
        s.note(ids::mx_unknown_command,
               "`invoke NAME` hands unknown names to the wrapped program (the EDK's reading), so "
               "only the sub-command is tested here; mx.passthrough checks that invoke "
               "propagates the program's failure");
    }
}

bool has_error_level(std::string_view stderr_text) {
    for (auto line : non_empty_lines(stderr_text)) {
        auto read = read_console_line(strip_ansi(line));
        if (read.level && (*read.level == "error" || *read.level == "critical")) {
            return true;
        }
    }
    return false;
}

void compare_probe(Scenario& s, const StepResult& result, const std::vector<std::string>& sent,
                   bool dash_dash_may_drop) {
    if (!result.probe_args) {
        s.find(ids::mx_passthrough,
               fmt::format("`{}`: the wrapped program '{}' was not run ({})", result.command,
                           s.config.wrapped, result.outcome()),
               result, result.stderr_text);
        return;
    }
    const auto& got = *result.probe_args;
    if (got == sent) {
        return;
    }
    if (dash_dash_may_drop) {
        auto without = sent;
        if (auto it = std::find(without.begin(), without.end(), "--"); it != without.end()) {
            without.erase(it);
        }
        if (got == without) {
            s.find(ids::mx_invoke_dashdash,
                   fmt::format("`{}`: the wrapped program did not receive the first `--`; the seed "
                               "passes arguments unchanged, the EDK's parser (click) drops it: a "
                               "warning, not a failure",
                               result.command),
                   result);
            return;
        }
    }
    s.find(ids::mx_passthrough,
           fmt::format("`{}`: the wrapped program received {}, expected {}", result.command,
                       quoted_list(got), quoted_list(sent)),
           result);
}

// MX-INV-2, MX-EXIT-1, and MX-LOG-1's error level.
void scenario_passthrough(Scenario& s) {
    const auto& config = s.config;
    if (!s.session.probe_available()) {
        s.skip(ids::mx_passthrough, s.session.probe_error());
        s.skip(ids::mx_invoke_dashdash, s.session.probe_error());
        s.skip(ids::mx_log_errors, s.session.probe_error());
        return;
    }
    auto dir = s.project();
    const auto& ext = config.extension_executable;
    std::vector<std::string> invoke_args = {"invoke"};
    invoke_args.insert(invoke_args.end(), k_passthrough_args.begin(), k_passthrough_args.end());
    auto invoked = s.run({.label = "invoke (probe)",
                          .executable = ext,
                          .args = invoke_args,
                          .cwd = dir,
                          .probe_exit = 0});
    compare_probe(s, invoked, k_passthrough_args, true);
    if (invoked.probe_args && !invoked.exited_with(0)) {
        s.find(ids::mx_passthrough,
               fmt::format("`invoke`: {} though the wrapped program exited 0", invoked.outcome()),
               invoked, invoked.stderr_text);
    }
    auto failing = s.run({.label = "invoke (probe exits 3)",
                          .executable = ext,
                          .args = {"invoke", "conform-probe-fail"},
                          .cwd = dir,
                          .probe_exit = k_probe_failure});
    if (failing.probe_args && failing.exited_with(0)) {
        s.find(
            ids::mx_passthrough,
            fmt::format("`invoke` exited 0 though the wrapped program exited {}", k_probe_failure),
            failing, failing.stderr_text);
    } else if (failing.probe_args && !failing.exited_with(k_probe_failure)) {
        s.note(ids::mx_passthrough,
               fmt::format("`invoke` turned the program's exit code {} into {} (non-zero: "
                           "accepted)",
                           k_probe_failure, failing.outcome()));
    }
    if (!config.log_levels) {
        s.skip(ids::mx_log_errors, "the test config says logs carry no level (logging.levels)");
    } else if (failing.started && !has_error_level(failing.stderr_text)) {
        s.find(ids::mx_log_errors,
               fmt::format("`invoke` failed ({}) but logged no line at error level",
                           failing.outcome()),
               failing, failing.stderr_text);
    }
    if (!config.invoker) {
        s.note(ids::mx_passthrough, "the test config declares no invoker");
        return;
    }
    const auto& invoker = *config.invoker;
    auto through = s.run({.label = "invoker (probe)",
                          .executable = invoker,
                          .args = k_passthrough_args,
                          .cwd = dir,
                          .probe_exit = 0});
    compare_probe(s, through, k_passthrough_args, false);
    if (through.probe_args && !through.exited_with(0)) {
        s.find(
            ids::mx_passthrough,
            fmt::format("the invoker: {} though the wrapped program exited 0", through.outcome()),
            through, through.stderr_text);
    }
    auto bare = s.run({.label = "invoker without arguments (probe)",
                       .executable = invoker,
                       .cwd = dir,
                       .probe_exit = 0});
    compare_probe(s, bare, {}, false);
    auto code = s.run({.label = "invoker (probe exits 3)",
                       .executable = invoker,
                       .args = {"conform-probe-fail"},
                       .cwd = dir,
                       .probe_exit = k_probe_failure});
    if (code.probe_args && !code.exited_with(k_probe_failure)) {
        s.find(ids::mx_passthrough,
               fmt::format("the invoker gave {}, expected the wrapped program's exit code {}",
                           code.outcome(), k_probe_failure),
               code, code.stderr_text);
    }
}

// Every file under `dir` with its content.
std::map<std::string, std::string> snapshot(const std::filesystem::path& dir) {
    std::map<std::string, std::string> files;
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(dir, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
        auto relative = std::filesystem::relative(it->path(), dir).string();
        if (it->is_regular_file()) {
            std::ifstream in(it->path(), std::ios::binary);
            files[relative] =
                std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        } else {
            files[relative + "/"] = "";
        }
    }
    return files;
}

// MX-INIT-1.
void scenario_initialize(Scenario& s) {
    auto dir = s.session.new_project_dir();
    Step step{.label = "initialize",
              .executable = s.config.extension_executable,
              .args = {"initialize"},
              .cwd = dir};
    auto first = s.run(step);
    auto after_first = snapshot(dir);
    step.label = "initialize again";
    auto second = s.run(step);
    auto after_second = snapshot(dir);
    if (!first.exited_with(0)) {
        s.find(ids::mx_initialize,
               fmt::format("initialize: {}, expected exit code 0", first.outcome()), first,
               first.stderr_text);
        return;
    }
    if (!second.exited_with(0)) {
        s.find(
            ids::mx_initialize,
            fmt::format("initialize run a second time: {}, expected exit code 0", second.outcome()),
            second, second.stderr_text);
    }
    std::vector<std::string> changed;
    for (const auto& [path, content] : after_second) {
        auto it = after_first.find(path);
        if (it == after_first.end()) {
            changed.push_back(path + " (new)");
        } else if (it->second != content) {
            changed.push_back(path + " (changed)");
        }
    }
    for (const auto& [path, content] : after_first) {
        if (!after_second.contains(path)) {
            changed.push_back(path + " (removed)");
        }
    }
    if (!changed.empty()) {
        s.find(ids::mx_initialize,
               fmt::format(
                   "the second initialize changed the project: {}",
                   fmt::join(changed.begin(),
                             changed.begin() + std::min<std::ptrdiff_t>(5, changed.size()), ", ")),
               second);
    }
}

void judge_console_logs(Scenario& s, const StepResult& result) {
    if (has_ansi_escape(result.stderr_text)) {
        auto lines = non_empty_lines(result.stderr_text);
        auto line = std::find_if(lines.begin(), lines.end(), has_ansi_escape);
        s.find(ids::mx_log_uncoloured, "stderr carries ANSI colour codes though it is not a TTY",
               result, line == lines.end() ? std::string_view() : *line);
    }
    for (auto raw : non_empty_lines(result.stderr_text)) {
        auto line = read_console_line(strip_ansi(raw));
        std::vector<std::string> missing;
        if (s.config.log_timestamps && !line.has_timestamp) {
            missing.emplace_back("an ISO 8601 timestamp (LOG_TIMESTAMPS=true)");
        }
        if (s.config.log_levels && !line.level) {
            missing.emplace_back("a level (LOG_LEVELS=true)");
        }
        if (line.event.empty()) {
            missing.emplace_back("an event");
        }
        if (!missing.empty()) {
            s.find(ids::mx_log_structured,
                   fmt::format("a stderr line lacks {}", fmt::join(missing, " and ")), result, raw);
        }
    }
}

// The extension's own commands whose output conform judges: initialize, the configured commands
// of the extension CLI, and invoke with the probe (silent, so every line is the extension's).
std::vector<StepResult> own_steps(Scenario& s, const std::map<std::string, std::string>& env,
                                  const std::string& suffix) {
    const auto& config = s.config;
    std::vector<StepResult> steps;
    auto dir = s.session.new_project_dir();
    steps.push_back(s.run({.label = "initialize" + suffix,
                           .executable = config.extension_executable,
                           .args = {"initialize"},
                           .env = env,
                           .cwd = dir}));
    for (const auto& command : config.commands) {
        if (command.executable != config.extension_executable || command.args.empty() ||
            command.args.front() == "describe" || command.args.front() == "--help") {
            continue;
        }
        steps.push_back(s.run({.label = "command " + command.name + suffix,
                               .executable = command.executable,
                               .args = command.args,
                               .env = env,
                               .cwd = dir}));
    }
    if (s.session.probe_available()) {
        steps.push_back(s.run({.label = "invoke (probe)" + suffix,
                               .executable = config.extension_executable,
                               .args = {"invoke", "conform-probe"},
                               .env = env,
                               .cwd = dir,
                               .probe_exit = 0}));
        steps.push_back(s.run({.label = "invoke (probe exits 3)" + suffix,
                               .executable = config.extension_executable,
                               .args = {"invoke", "conform-probe-fail"},
                               .env = env,
                               .cwd = dir,
                               .probe_exit = k_probe_failure}));
    }
    return steps;
}

// MX-IO-1, MX-LOG-1 (console format).
void scenario_stdio(Scenario& s) {
    auto steps = own_steps(s, {}, "");
    for (const auto& step : steps) {
        if (!step.stdout_text.empty()) {
            s.find(ids::mx_stdout_quiet,
                   fmt::format("`{}` wrote {} line(s) to stdout", step.command, step.stdout_lines),
                   step, first_line(step.stdout_text));
        }
        judge_console_logs(s, step);
    }
    auto describe = s.run({.label = "describe --format=json",
                           .executable = s.config.extension_executable,
                           .args = {"describe", "--format=json"}});
    judge_console_logs(s, describe);
    s.note(ids::mx_stdout_quiet,
           "describe and --help may print to stdout; the invoker's stdout belongs to the wrapped "
           "program");
}

// MX-LOG-1 (JSON format).
void scenario_log_json(Scenario& s) {
    if (!s.config.log_json) {
        s.skip(ids::mx_log_json, "the test config says MELTANO_LOG_JSON is not supported");
        return;
    }
    auto steps = own_steps(s, {{"MELTANO_LOG_JSON", "true"}}, " (MELTANO_LOG_JSON=true)");
    std::size_t lines = 0;
    for (const auto& step : steps) {
        for (auto line : non_empty_lines(step.stderr_text)) {
            ++lines;
            if (auto problem =
                    json_log_problem(line, s.config.log_levels, s.config.log_timestamps)) {
                s.find(ids::mx_log_json, fmt::format("a stderr line is {}", *problem), step, line);
            }
        }
    }
    if (lines == 0) {
        s.note(ids::mx_log_json, "the extension logged nothing to check");
    }
}

// MX-IO-2.
void scenario_stdin(Scenario& s) {
    const auto& config = s.config;
    auto dir = s.session.new_project_dir();
    auto timeout = config.stdin_timeout;
    std::vector<Step> steps = {
        {.label = "describe --format=json (stdin open)",
         .executable = config.extension_executable,
         .args = {"describe", "--format=json"}},
        {.label = "initialize (stdin open)",
         .executable = config.extension_executable,
         .args = {"initialize"},
         .cwd = dir},
    };
    if (s.session.probe_available()) {
        steps.push_back({.label = "invoke (probe, stdin open)",
                         .executable = config.extension_executable,
                         .args = {"invoke", "conform-probe"},
                         .cwd = dir,
                         .probe_exit = 0});
        if (config.invoker) {
            steps.push_back({.label = "invoker (probe, stdin open)",
                             .executable = *config.invoker,
                             .args = {"conform-probe"},
                             .cwd = dir,
                             .probe_exit = 0});
        }
    }
    for (auto& step : steps) {
        step.stdin_mode = StdinMode::open_empty;
        step.timeout = timeout;
        auto result = s.run(step);
        if (result.timed_out) {
            s.find(ids::mx_stdin_unused,
                   fmt::format("`{}` was still running after {} s with stdin open and empty: it "
                               "waits on stdin",
                               result.command, timeout.count() / 1000.0),
                   result, result.stderr_text);
        }
    }
}

using ScenarioFunction = void (*)(Scenario&);

struct ScenarioEntry {
    ScenarioInfo info;
    ScenarioFunction run;
};

const std::vector<ScenarioEntry>& entries() {
    static const std::vector<ScenarioEntry> k_entries = {
        {{"mx-help", "--help prints usage and exits 0", {ids::mx_help}}, scenario_help},
        {{"mx-describe",
          "describe prints one JSON document; what it names runs",
          {ids::mx_describe_json, ids::mx_describe_shape, ids::mx_described_executables}},
         scenario_describe},
        {{"mx-commands",
          "the test config's commands and test* commands exit as expected",
          {ids::mx_invoke_commands, ids::mx_test_commands}},
         scenario_commands},
        {{"mx-unknown-command",
          "an unknown sub-command fails with a message",
          {ids::mx_unknown_command}},
         scenario_unknown},
        {{"mx-passthrough",
          "invoke and the invoker pass arguments and exit codes through (probe)",
          {ids::mx_passthrough, ids::mx_invoke_dashdash, ids::mx_log_errors}},
         scenario_passthrough},
        {{"mx-initialize", "initialize twice in a new folder is idempotent", {ids::mx_initialize}},
         scenario_initialize},
        {{"mx-stdio",
          "stdout stays quiet; stderr logs are plain and structured",
          {ids::mx_stdout_quiet, ids::mx_log_structured, ids::mx_log_uncoloured}},
         scenario_stdio},
        {{"mx-log-json",
          "MELTANO_LOG_JSON=true gives one JSON object per line",
          {ids::mx_log_json}},
         scenario_log_json},
        {{"mx-stdin", "no command waits on stdin", {ids::mx_stdin_unused}}, scenario_stdin},
    };
    return k_entries;
}

void check_names(const std::vector<std::string>& names) {
    std::vector<std::string> known = {std::string(k_suite)};
    for (const auto& entry : entries()) {
        known.emplace_back(entry.info.id);
        for (auto check : entry.info.checks) {
            known.emplace_back(check);
        }
    }
    for (const auto& name : names) {
        if (std::none_of(known.begin(), known.end(), [&name](const std::string& id) {
                return checks::glob_matches(name, id);
            })) {
            throw Error(
                ErrorKind::usage,
                fmt::format("unknown extension scenario, suite or check '{}'{}; `conform "
                            "list` shows the mx.* checks",
                            name,
                            nearest_name(name, known).empty()
                                ? ""
                                : fmt::format(" (did you mean '{}'?)", nearest_name(name, known))));
        }
    }
}

protocol::Secrets secrets_of(const ExtensionConfig& config) {
    std::vector<std::string> values;
    for (const auto& name : config.secret_env) {
        if (auto it = config.env.find(name); it != config.env.end()) {
            values.push_back(it->second);
        } else if (const char* value = std::getenv(name.c_str()); value != nullptr) {
            values.emplace_back(value);
        }
    }
    return protocol::Secrets(std::move(values));
}

}  // namespace

const std::vector<ScenarioInfo>& extension_scenarios() {
    static const std::vector<ScenarioInfo> k_infos = [] {
        std::vector<ScenarioInfo> infos;
        for (const auto& entry : entries()) {
            infos.push_back(entry.info);
        }
        return infos;
    }();
    return k_infos;
}

report::RunReport run_extension_suite(const ExtensionConfig& config, const SuiteOptions& options,
                                      report::Reporter& reporter) {
    check_names(options.only);
    check_names(options.skip);
    Session session(config);
    auto secrets = secrets_of(config);
    report::RunReport report;
    report.connector = session.describe_target();
    report.test_config = config.origin.string();
    report.strict = options.strict;
    if (options.shard_count > 1) {
        report.shard = fmt::format("{}/{}", options.shard_index + 1, options.shard_count);
    }
    auto started = std::chrono::steady_clock::now();
    std::size_t position = 0;
    for (const auto& entry : entries()) {
        const auto& info = entry.info;
        if (!checks::scenario_selected(options.only, options.skip, info.id, k_suite, info.checks)) {
            continue;
        }
        std::set<std::string_view> selected;
        for (auto check : info.checks) {
            if (checks::check_selected(options.only, options.skip, check)) {
                selected.insert(check);
            }
        }
        if (selected.empty()) {
            continue;  // nothing of it would be judged
        }
        auto selected_position = position++;
        if (!checks::in_shard(selected_position, options.shard_index, options.shard_count)) {
            continue;
        }
        reporter.scenario_started(std::string(info.id), std::string(info.title));
        auto scenario_started = std::chrono::steady_clock::now();
        Scenario scenario(info, session, config);
        entry.run(scenario);
        auto result = scenario.finish(selected, options.strict,
                                      std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::steady_clock::now() - scenario_started));
        result.rerun = fmt::format("{} --only {}", options.rerun_prefix, info.id);
        result.position = selected_position;
        report::redact(result, [&secrets](std::string_view text) { return secrets.redact(text); });
        reporter.scenario_finished(result);
        report.scenarios.push_back(std::move(result));
    }
    report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - started)
                             .count();
    return report;
}

}  // namespace conform::meltano
