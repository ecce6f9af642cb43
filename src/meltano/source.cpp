#include "meltano/source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>

#include "engine/scenarios.hpp"
#include "meltano/describe.hpp"
#include "meltano/logs.hpp"
#include "protocol/secrets.hpp"
#include "util/text.hpp"

namespace conform::meltano {

namespace {

constexpr std::string_view k_unknown_command = "conform-no-such-command";

// Arguments that a shell or a naive re-split would change: spaces, quotes, `--`, empty strings,
// options the extension must not parse, glob and variable characters.
const std::vector<std::string> k_passthrough_args = {
    "conform-probe", "two words", "it's",  "\"quoted\"", "",         "--",
    "--flag=a b",    "-x",        "$HOME", "*",          "tab\there"};

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

std::vector<std::string> changes_between(const std::map<std::string, std::string>& before,
                                         const std::map<std::string, std::string>& after) {
    std::vector<std::string> changed;
    for (const auto& [path, content] : after) {
        auto it = before.find(path);
        if (it == before.end()) {
            changed.push_back(path + " (new)");
        } else if (it->second != content) {
            changed.push_back(path + " (changed)");
        }
    }
    for (const auto& [path, content] : before) {
        if (!after.contains(path)) {
            changed.push_back(path + " (removed)");
        }
    }
    return changed;
}

bool is_test_command(std::string_view name) {
    return name.starts_with("test");
}

// The EDK lists its hooks among the extension's commands; they run inside `invoke`.
bool is_edk_hook(std::string_view name) {
    return name == "pre_invoke" || name == "post_invoke";
}

std::vector<std::string> non_empty_lines_of(std::string_view text) {
    std::vector<std::string> lines;
    for (auto line : non_empty_lines(text)) {
        lines.emplace_back(excerpt(line, 200));
    }
    return lines;
}

protocol::Secrets secrets_of(const TestConfig& config) {
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

report::RunSummary summarize(const CommandResult& result) {
    report::RunSummary summary;
    summary.label = result.label;
    summary.command = result.command_line;
    summary.exit = result.outcome();
    summary.duration_ms = result.elapsed.count();
    summary.lines = result.stdout_lines;
    summary.counts_messages = false;
    summary.stderr_tail = excerpt(result.stderr_text, 2000);
    return summary;
}

// The extension scenarios against one extension: each scenario's steps run through a Session and
// the checks are judged with the steps their needs matched. Only this file sees it: the header
// gives out make_meltano_source.
struct MeltanoSource final : engine::ScenarioSource {
    const TestConfig& config;
    const Checks& checks;
    Executor executor;
    std::vector<Scenario> scenario_table;
    std::vector<engine::ScenarioHeader> headers;
    protocol::Secrets secrets;
    std::optional<Session> session;
    std::optional<std::string> health_problem;

    MeltanoSource(const TestConfig& test_config, const Checks& table, Executor start)
        : config(test_config),
          checks(table),
          executor(std::move(start)),
          scenario_table(builtin_scenarios(table)),
          headers(engine::headers_of(scenario_table, k_suite)),
          secrets(secrets_of(test_config)) {}

    const std::vector<engine::ScenarioHeader>& scenarios() const override { return headers; }

    void prepare() override {
        session.emplace(config, secrets, executor);
        check_health();
    }

    engine::Target target() const override {
        return {session ? session->describe_target() : std::string(), {}, {}};
    }

    std::string mask(std::string_view text) const override { return secrets.redact(text); }

    // What one scenario's steps share: the project folder that `initialize` set up.
    struct ScenarioState {
        std::optional<std::filesystem::path> project;
        std::vector<CommandResult> setup;
    };

    CommandResult command(const Command& what) { return session->run(what); }

    // The scenario's project, made by `initialize` in a new folder the first time it is needed.
    std::filesystem::path project(ScenarioState& state, StepResult& result) {
        if (!state.project) {
            state.project = session->new_project_dir();
            result.runs.push_back(command({.purpose = Purpose::setup,
                                           .label = "setup: initialize",
                                           .executable = config.extension_executable,
                                           .args = {"initialize"},
                                           .cwd = *state.project}));
        }
        return *state.project;
    }

    Command extension(Purpose purpose, std::string label, std::vector<std::string> args) const {
        return {.purpose = purpose,
                .label = std::move(label),
                .executable = config.extension_executable,
                .args = std::move(args)};
    }

    void run_help(StepResult& result) {
        result.runs.push_back(command(extension(Purpose::help, "--help", {"--help"})));
    }

    void run_describe(StepResult& result, bool json) {
        auto what = json ? extension(Purpose::describe, "describe --format=json",
                                     {"describe", "--format=json"})
                         : extension(Purpose::describe, "describe", {"describe"});
        what.name = json ? "json" : "plain";
        result.runs.push_back(command(what));
    }

    // The CLIs `describe --format=json` names, from the scenario's describe step; sets why_not
    // when there is nothing to read.
    std::vector<DescribedCli> described(const std::vector<StepResult>& earlier,
                                        StepResult& result) {
        const CommandResult* json = nullptr;
        for (const auto& step : earlier) {
            if (step.step->kind == Role::describe_json && step.ran()) {
                json = &step.runs.front();
            }
        }
        if (json == nullptr || !json->started) {
            result.why_not = "describe did not run";
            return {};
        }
        auto reading = read_describe(json->stdout_text, config.extension_executable,
                                     config.invoker.value_or(""));
        if (!reading.not_json.empty()) {
            result.why_not = "describe printed no JSON to read";
        } else if (reading.clis.empty()) {
            result.why_not = "describe names no executable";
        }
        return reading.clis;
    }

    // `NAME --help` of a described executable. A pass-through CLI hands --help to the wrapped
    // program: the silent probe stands in for it when it can, so what is printed is the CLI's own,
    // in an initialized project, as Meltano runs it (dbt-ext's invoker needs its transform/).
    CommandResult described_help(const DescribedCli& cli, ScenarioState& state,
                                 StepResult& result) {
        Command what{.purpose = Purpose::cli_help,
                     .label = cli.name + " --help",
                     .executable = cli.name,
                     .args = {"--help"},
                     .name = cli.name,
                     .pass_through = cli.pass_through};
        if (cli.pass_through && session->probe_available()) {
            what.label += " (probe)";
            what.probe_exit = 0;
            what.cwd = project(state, result);
        }
        return command(what);
    }

    void run_described_helps(const std::vector<StepResult>& earlier, ScenarioState& state,
                             StepResult& result) {
        std::vector<std::string> hooks;
        for (const auto& cli : described(earlier, result)) {
            auto help = described_help(cli, state, result);
            bool go_on = !help.cannot_run() && !cli.pass_through;
            result.runs.push_back(std::move(help));
            if (!go_on) {
                continue;
            }
            for (const auto& name : cli.commands) {
                if (is_edk_hook(name)) {
                    hooks.push_back(name);
                    continue;
                }
                if (name.empty() || name.starts_with(':')) {
                    continue;
                }
                result.runs.push_back(command({.purpose = Purpose::command_help,
                                               .label = fmt::format("{} {} --help", cli.name, name),
                                               .executable = cli.name,
                                               .args = {name, "--help"},
                                               .name = cli.name,
                                               .subject = name}));
            }
        }
        if (!hooks.empty()) {
            result.notes.push_back(fmt::format(
                "{} are the EDK's hooks around invoke, not sub-commands: not run with --help "
                "(invoke runs them; see mx.passthrough)",
                fmt::join(hooks, " and ")));
        }
    }

    void run_configured(ScenarioState& state, StepResult& result) {
        auto dir = project(state, result);
        for (const auto& configured : config.commands) {
            result.runs.push_back(command({.purpose = Purpose::configured,
                                           .label = "command " + configured.name,
                                           .executable = configured.executable,
                                           .args = configured.args,
                                           .env = configured.env,
                                           .cwd = dir,
                                           .name = configured.name,
                                           .expected_exit = configured.exit_code,
                                           .result_on_stdout = configured.result_on_stdout}));
        }
    }

    // The test* commands the extension CLI itself lists (meltano test runs them in that order).
    void run_described_tests(ScenarioState& state, StepResult& result) {
        auto dir = project(state, result);
        auto json = command(
            extension(Purpose::describe, "describe --format=json", {"describe", "--format=json"}));
        auto reading = read_describe(json.stdout_text, config.extension_executable, "");
        result.runs.push_back(std::move(json));
        for (const auto& cli : reading.clis) {
            if (cli.pass_through) {
                continue;
            }
            for (const auto& name : cli.commands) {
                if (!is_test_command(name)) {
                    continue;
                }
                result.runs.push_back(command({.purpose = Purpose::listed_test,
                                               .label = fmt::format("{} {}", cli.name, name),
                                               .executable = cli.name,
                                               .args = {name},
                                               .cwd = dir,
                                               .name = name}));
            }
        }
    }

    void run_unknown(StepResult& result) {
        result.runs.push_back(command(extension(Purpose::unknown_command, "unknown sub-command",
                                                {std::string(k_unknown_command)})));
        if (config.wrapped.empty()) {
            result.runs.push_back(
                command(extension(Purpose::invoke_unknown, "invoke an unknown command",
                                  {"invoke", std::string(k_unknown_command)})));
        }
    }

    Command probe_run(Purpose purpose, std::string label, std::string executable,
                      std::vector<std::string> args, const std::filesystem::path& dir, int code) {
        return {.purpose = purpose,
                .label = std::move(label),
                .executable = std::move(executable),
                .args = std::move(args),
                .cwd = dir,
                .probe_exit = code};
    }

    void run_passthrough(ScenarioState& state, StepResult& result) {
        auto dir = project(state, result);
        const auto& ext = config.extension_executable;
        std::vector<std::string> invoke_args = {"invoke"};
        invoke_args.insert(invoke_args.end(), k_passthrough_args.begin(), k_passthrough_args.end());
        result.runs.push_back(
            command(probe_run(Purpose::invoke_probe, "invoke (probe)", ext, invoke_args, dir, 0)));
        result.runs.push_back(
            command(probe_run(Purpose::invoke_probe_fails, "invoke (probe exits 3)", ext,
                              {"invoke", k_probe_fail_argument}, dir, k_probe_failure)));
        if (!config.invoker) {
            return;
        }
        const auto& invoker = *config.invoker;
        result.runs.push_back(command(probe_run(Purpose::invoker_probe, "invoker (probe)", invoker,
                                                k_passthrough_args, dir, 0)));
        result.runs.push_back(command(probe_run(
            Purpose::invoker_bare, "invoker without arguments (probe)", invoker, {}, dir, 0)));
        result.runs.push_back(
            command(probe_run(Purpose::invoker_probe_fails, "invoker (probe exits 3)", invoker,
                              {k_probe_fail_argument}, dir, k_probe_failure)));
    }

    void run_initialize_twice(StepResult& result) {
        auto dir = session->new_project_dir();
        auto what = extension(Purpose::initialize, "initialize", {"initialize"});
        what.cwd = dir;
        result.runs.push_back(command(what));
        auto after_first = snapshot(dir);
        what.purpose = Purpose::initialize_again;
        what.label = "initialize again";
        result.runs.push_back(command(what));
        result.changed_files = changes_between(after_first, snapshot(dir));
    }

    // The extension's own commands whose output conform judges: initialize, the configured
    // commands of the extension CLI, and invoke with the probe (silent, so every line is the
    // extension's).
    void run_own(const Step& step, StepResult& result) {
        std::map<std::string, std::string> env;
        std::string suffix;
        if (step.log_json) {
            env["MELTANO_LOG_JSON"] = "true";
            suffix = " (MELTANO_LOG_JSON=true)";
        }
        if (step.debug_logs) {
            env["LOG_LEVEL"] = "debug";
            suffix = " (LOG_LEVEL=debug)";
        }
        auto dir = session->new_project_dir();
        auto own = [&](const std::string& label, std::string executable,
                       std::vector<std::string> args, std::optional<int> probe_exit,
                       const std::map<std::string, std::string>& command_env,
                       bool result_on_stdout = false) {
            auto all_env = command_env;
            all_env.insert(env.begin(), env.end());
            result.runs.push_back(command({.purpose = Purpose::own,
                                           .label = label + suffix,
                                           .executable = std::move(executable),
                                           .args = std::move(args),
                                           .env = all_env,
                                           .cwd = dir,
                                           .probe_exit = probe_exit,
                                           .result_on_stdout = result_on_stdout}));
        };
        own("initialize", config.extension_executable, {"initialize"}, std::nullopt, {});
        for (const auto& configured : config.commands) {
            if (configured.executable != config.extension_executable || configured.args.empty() ||
                configured.args.front() == "describe" || configured.args.front() == "--help") {
                continue;
            }
            own("command " + configured.name, configured.executable, configured.args, std::nullopt,
                configured.env, configured.result_on_stdout);
        }
        if (session->probe_available()) {
            own("invoke (probe)", config.extension_executable, {"invoke", "conform-probe"}, 0, {});
            own("invoke (probe exits 3)", config.extension_executable,
                {"invoke", k_probe_fail_argument}, k_probe_failure, {});
        }
    }

    void run_stdin_open(StepResult& result) {
        auto dir = session->new_project_dir();
        std::vector<Command> commands = {
            extension(Purpose::own, "describe --format=json (stdin open)",
                      {"describe", "--format=json"}),
            extension(Purpose::own, "initialize (stdin open)", {"initialize"}),
        };
        commands.back().cwd = dir;
        if (session->probe_available()) {
            commands.push_back(probe_run(Purpose::own, "invoke (probe, stdin open)",
                                         config.extension_executable, {"invoke", "conform-probe"},
                                         dir, 0));
            if (config.invoker) {
                commands.push_back(probe_run(Purpose::own, "invoker (probe, stdin open)",
                                             *config.invoker, {"conform-probe"}, dir, 0));
            }
        }
        for (auto& what : commands) {
            what.stdin_mode = StdinMode::open_empty;
            what.timeout = config.stdin_timeout;
            result.runs.push_back(command(what));
        }
    }

    StepResult execute(const Step& step, const std::vector<StepResult>& earlier,
                       ScenarioState& state) {
        StepResult result;
        result.step = &step;
        switch (step.kind) {
            case Role::help:
                run_help(result);
                break;
            case Role::describe_json:
            case Role::describe_plain:
                run_describe(result, step.kind == Role::describe_json);
                break;
            case Role::described_helps:
                run_described_helps(earlier, state, result);
                break;
            case Role::configured_commands:
                run_configured(state, result);
                break;
            case Role::described_tests:
                run_described_tests(state, result);
                break;
            case Role::unknown_command:
                run_unknown(result);
                break;
            case Role::passthrough:
                run_passthrough(state, result);
                break;
            case Role::initialize_twice:
                run_initialize_twice(result);
                break;
            case Role::own_commands:
                run_own(step, result);
                break;
            case Role::stdin_open:
                run_stdin_open(result);
                break;
            case Role::run:
            case Role::log_json:
            case Role::debug_logs:
                break;
        }
        return result;
    }

    // Runs before every scenario: when neither `--help` nor `describe` answers, the extension
    // cannot run at all here (a missing dependency or environment variable), and that one setup
    // problem is reported once, by mx-help, not by every check.
    void check_health() {
        auto help = command(extension(Purpose::help, "health: --help", {"--help"}));
        if (help.exited_with(0)) {
            return;
        }
        auto json = command(extension(Purpose::describe, "health: describe --format=json",
                                      {"describe", "--format=json"}));
        if (json.exited_with(0)) {
            return;
        }
        auto lines = non_empty_lines_of(help.stderr_text);
        auto hint = help.started ? std::string()
                                 : " (extension.path puts the folder that holds it first on PATH; "
                                   "extension.executable names it when it is not NAME_extension)";
        health_problem = fmt::format(
            "the extension does not run here: `{} --help` gave {} and `describe` gave {}{}; fix "
            "the setup (see mx-help){} and rerun",
            config.extension_executable, help.outcome(), json.outcome(),
            lines.empty() ? std::string() : fmt::format(" (\"{}\")", lines.back()), hint);
    }

    // Why the scenario cannot run, in the test config's terms; nothing when it can.
    std::optional<std::string> unmet_requirement(const Scenario& scenario) const {
        if (health_problem && scenario.id != "mx-help") {
            return health_problem;
        }
        for (const auto& requirement : scenario.requires_) {
            if (requirement == "probe" && session && !session->probe_available()) {
                return session->probe_error();
            }
            if (requirement == "probe" && config.wrapped.empty()) {
                return "the test config names no wrapped program (extension.wrapped)";
            }
            if (requirement == "log_json" && !config.log_json) {
                return "the test config says MELTANO_LOG_JSON is not supported (logging.json)";
            }
        }
        return std::nullopt;
    }

    report::ScenarioResult run(std::size_t index, const std::vector<std::string>& selected,
                               bool strict) override {
        const auto& scenario = scenario_table[index];
        ScenarioState state;
        return engine::run_scenario<StepResult>(
            scenario, k_suite, selected, strict, unmet_requirement(scenario),
            [&](const Step& step, const std::vector<StepResult>& earlier) {
                return execute(step, earlier, state);
            },
            [&](const std::string& id, const std::vector<StepResult>& steps,
                const engine::Matching& matching, const engine::Circumstances& circumstances) {
                return engine::judge(*find_check(checks, id), Inputs(steps, matching, config),
                                     circumstances);
            },
            summarize);
    }

    engine::PlannedScenario plan(std::size_t index) const override {
        const auto& scenario = scenario_table[index];
        engine::PlannedScenario planned;
        if (auto unmet = unmet_requirement(scenario)) {
            planned.unmet = *unmet;
            return planned;
        }
        for (const auto& step : scenario.steps) {
            planned.lines.push_back(fmt::format("step {:<22} {}", step.id, to_string(step.kind)));
            planned.runs += 1;
        }
        planned.exact = false;  // the commands depend on the test config and what describe lists
        return planned;
    }

    report::StreamsCoverage stream_coverage() const override {
        return {false, false, "not applicable: a Meltano extension has no streams", {}};
    }
};

}  // namespace

std::unique_ptr<engine::ScenarioSource> make_meltano_source(const TestConfig& config,
                                                            const Checks& checks,
                                                            Executor executor) {
    return std::make_unique<MeltanoSource>(config, checks, std::move(executor));
}

report::RunReport run_extension_suite(const TestConfig& config, const Checks& checks,
                                      const engine::RunOptions& options, report::Reporter& reporter,
                                      Executor executor) {
    auto source = make_meltano_source(config, checks, std::move(executor));
    return engine::run_builtin_suite(*source, options, reporter, config.origin,
                                     report::k_meltano_extension);
}

}  // namespace conform::meltano
