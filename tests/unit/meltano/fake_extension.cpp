#include "fake_extension.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include "checks/checks.hpp"
#include "meltano/source.hpp"

namespace conform::testing {

namespace {

// What one command printed and how it ended.
struct Answer {
    std::vector<std::string> stdout_lines;
    std::string stderr_text;
    int exit = 0;
    bool hangs = false;
};

struct Call {
    std::string executable;
    std::vector<std::string> args;
    const std::map<std::string, std::string>& env;
    std::filesystem::path cwd;
    bool stdin_open = false;

    std::string env_value(const std::string& name) const {
        auto found = env.find(name);
        return found == env.end() ? "" : found->second;
    }
};

const std::string k_describe =
    R"({"commands":[{"name":"fake_extension","description":"the extension",)"
    R"("commands":["describe","invoke","initialize","hello","test"],"pass_through_cli":false},)"
    R"({"name":"fake_invoker","description":"the invoker","commands":[":splat"],)"
    R"("pass_through_cli":true}]})";

class Extension {
public:
    explicit Extension(const ExtensionModel& model) : m(model) {}

    Answer answer(const Call& call) const {
        if (call.stdin_open && m.waits_on_stdin) {
            return {{}, "", 0, true};
        }
        if (call.executable == "fake_extension") {
            return extension(call);
        }
        if (call.executable == "fake_invoker") {
            if (m.invoker_needs_project && !std::filesystem::exists(call.cwd / "fake.yml")) {
                return {{}, "FileNotFoundError: transform\n", 1};
            }
            auto code = run_wrapped(call, call.args);
            return {{}, log(call, "info", "faketool ran"), m.invoker_loses_exit ? 1 : code};
        }
        return {{}, fmt::format("sh: {}: not found\n", call.executable), 127};
    }

private:
    // One log line as structlog would print it, in the format the environment asks for.
    std::string log(const Call& call, const std::string& level, const std::string& event) const {
        if (call.env_value("MELTANO_LOG_JSON") == "true") {
            if (m.json_logs_broken) {
                return event + "\n";
            }
            return fmt::format(
                       R"({{"event":"{}","level":"{}","timestamp":"2026-12-01T10:00:00Z"}})", event,
                       level) +
                   "\n";
        }
        std::string shown_level = m.logs_without_level ? "" : fmt::format("[{:<9}] ", level);
        std::string line = fmt::format("2026-12-01T10:00:00Z {}{}", shown_level, event);
        return (m.logs_coloured ? "\x1b[32m" + line + "\x1b[0m" : line) + "\n";
    }

    // The wrapped program: the probe records what it received and exits as conform asked on the
    // call that carries conform-probe-fail, 0 on any other.
    static int run_wrapped(const Call& call, const std::vector<std::string>& args) {
        auto record = call.env_value("CONFORM_PROBE_RECORD");
        if (record.empty()) {
            return 0;
        }
        std::ofstream out(record, std::ios::binary | std::ios::app);
        out << args.size() << '\0';
        for (const auto& arg : args) {
            out << arg << '\0';
        }
        bool failing = std::find(args.begin(), args.end(), "conform-probe-fail") != args.end();
        return failing ? std::atoi(call.env_value("CONFORM_PROBE_EXIT").c_str()) : 0;
    }

    std::vector<std::string> passed_on(std::vector<std::string> args) const {
        if (m.invoke_drops_dashdash) {
            if (auto it = std::find(args.begin(), args.end(), "--"); it != args.end()) {
                args.erase(it);
            }
        }
        if (m.invoke_splits_args) {
            std::vector<std::string> split;
            for (const auto& arg : args) {
                std::size_t start = 0;
                for (std::size_t at = 0; at <= arg.size(); ++at) {
                    if (at == arg.size() || arg[at] == ' ') {
                        if (at > start) {
                            split.push_back(arg.substr(start, at - start));
                        }
                        start = at + 1;
                    }
                }
            }
            return split;
        }
        return args;
    }

    Answer invoke(const Call& call) const {
        std::vector<std::string> args(call.args.begin() + 1, call.args.end());
        if (m.checks_version_first) {
            run_wrapped(call, {"--version"});
        }
        if (m.runs_pre_invoke) {
            if (auto failed = run_wrapped(call, {"clean"}); failed != 0) {
                return {{}, log(call, "error", "clean failed"), failed};
            }
        }
        auto code = run_wrapped(call, passed_on(args));
        auto level = code == 0 || m.failure_not_logged_as_error ? "info" : "error";
        std::string logged;
        if (m.logs_env_at_debug && call.env_value("LOG_LEVEL") == "debug") {
            logged += log(call, "debug", "called env=" + call.env_value("FAKE_TOKEN"));
        }
        logged += log(call, level, fmt::format("faketool exited with {}", code));
        return {{}, logged, m.invoke_swallows_exit ? 0 : code};
    }

    Answer initialize(const Call& call) const {
        auto file = call.cwd / "fake.yml";
        if (m.needs_project_root && call.env_value("MELTANO_PROJECT_ROOT") != call.cwd.string()) {
            return {{}, log(call, "error", "MELTANO_PROJECT_ROOT is not the project"), 1};
        }
        if (!m.initialize_fails &&
            (m.initialize_not_idempotent || !std::filesystem::exists(file))) {
            std::ofstream(file, std::ios::app) << "initialized: true\n";
        }
        std::vector<std::string> out;
        if (m.stdout_noise) {
            out.emplace_back("initialized the project");
        }
        return {out, log(call, "info", "initialized"), m.initialize_fails ? 1 : 0};
    }

    Answer describe(const Call& call) const {
        bool json = call.args.size() > 1 && call.args[1] == "--format=json";
        std::string shown = k_describe;
        if (m.describe_lacks_description) {
            shown.replace(shown.find(R"("description":"the extension",)"), 30, "");
        }
        if (m.describe_ghost) {
            shown.replace(shown.rfind(']'), 1,
                          R"(,{"name":"ghost","description":"gone","commands":[],)"
                          R"("pass_through_cli":false}])");
        }
        if ((json && m.describe_not_json) || (!json && m.describe_plain_text)) {
            return {{"fake_extension: describe", "  commands: hello, test"}, "", 0};
        }
        return {{shown}, log(call, "info", "described"), 0};
    }

    Answer extension(const Call& call) const {
        const auto& args = call.args;
        auto first = args.empty() ? std::string() : args.front();
        bool help = std::find(args.begin(), args.end(), "--help") != args.end();
        if (first == "--help") {
            return {{m.help_without_usage ? "fake extension" : "Usage: fake_extension COMMAND"},
                    "",
                    m.help_fails ? 2 : 0};
        }
        if (help) {
            return {{"Usage: fake_extension " + first},
                    "",
                    m.command_help_fails && first == "hello" ? 2 : 0};
        }
        if (first == "describe") {
            return describe(call);
        }
        if (first == "invoke") {
            return invoke(call);
        }
        if (first == "initialize") {
            return initialize(call);
        }
        if (first == "hello") {
            std::vector<std::string> out;
            if (m.hello_prints_result) {
                out.emplace_back("hello: 3 schedules");
            }
            return {out, log(call, "info", "hello"), m.command_fails ? 1 : 0};
        }
        if (first == "test") {
            return {{}, log(call, "info", "tested"), m.test_fails ? 1 : 0};
        }
        if (m.unknown_exits_zero) {
            return {{}, "", 0};
        }
        if (m.traceback_on_stdout) {
            return {{"Traceback (most recent call last):", "  File \"main.py\", line 3, in run",
                     "KeyError: '" + first + "'"},
                    log(call, "error", "crashed"),
                    1};
        }
        return {
            {}, m.unknown_silent ? "" : fmt::format("Error: No such command '{}'.\n", first), 2};
    }

    const ExtensionModel& m;
};

// The command a launch spec runs; the open-stdin wrapper (/bin/sh -c ... FIFO CMD...) unwrapped.
Call call_of(const process::LaunchSpec& spec) {
    std::size_t first = 0;
    bool stdin_open = spec.argv.size() > 4 && spec.argv[0] == "/bin/sh" && spec.argv[1] == "-c";
    if (stdin_open) {
        first = 4;
    }
    Call call{std::filesystem::path(spec.argv.at(first)).filename().string(),
              {spec.argv.begin() + static_cast<std::ptrdiff_t>(first) + 1, spec.argv.end()},
              spec.env,
              spec.working_dir,
              stdin_open};
    return call;
}

}  // namespace

meltano::TestConfig fake_extension_config() {
    meltano::TestConfig config;
    config.origin = "<fake extension>";
    config.name = "fake";
    config.extension_executable = "fake_extension";
    config.invoker = "fake_invoker";
    config.wrapped = "faketool";
    config.commands = {{"hello", "fake_extension", {"hello"}, 0},
                       {"test", "fake_extension", {"test"}, 0}};
    config.env = {{"FAKE_TOKEN", "fake-secret-4821"}};
    config.secret_env = {"FAKE_TOKEN"};
    return config;
}

meltano::Executor executor_for(const ExtensionModel& model) {
    return [model](const process::LaunchSpec& spec, process::Observer& observer) {
        auto answer = Extension(model).answer(call_of(spec));
        process::RunResult result;
        std::uint64_t number = 0;
        for (const auto& line : answer.stdout_lines) {
            observer.on_stdout_line(line, ++number, false);
        }
        result.stdout_lines = number;
        result.stderr_text = answer.stderr_text;
        if (answer.hangs) {
            result.stop_reason = process::StopReason::timeout;
            result.exit.signal = 15;
        } else {
            result.exit.code = answer.exit;
        }
        return result;
    };
}

report::RunReport run_extension(const ExtensionModel& model, std::vector<std::string> only,
                                bool strict, const meltano::TestConfig& config) {
    // The probe is never run here; the session only copies it under the wrapped program's name.
    ::setenv("CONFORM_PROBE", "/bin/true", 1);
    engine::RunOptions options;
    options.only = std::move(only);
    options.strict = strict;
    report::Reporter silent;
    return meltano::run_extension_suite(config, checks::meltano_checks(), options, silent,
                                        executor_for(model));
}

namespace {

// The most telling result of `check` over every scenario that lists it: failed, then warned,
// then passed, then skipped.
const report::CheckResult* worst(const report::RunReport& report, const std::string& check) {
    auto rank = [](report::Status status) {
        switch (status) {
            case report::Status::failed:
            case report::Status::expected_failure:  // failed, listed or not
            case report::Status::flaky:             // failed before a rerun passed
                return 3;
            case report::Status::warned:
                return 2;
            case report::Status::passed:
                return 1;
            case report::Status::skipped:
                break;
        }
        return 0;
    };
    const report::CheckResult* found = nullptr;
    for (const auto& scenario : report.scenarios) {
        for (const auto& result : scenario.checks) {
            if (result.id == check &&
                (found == nullptr || rank(result.status) > rank(found->status))) {
                found = &result;
            }
        }
    }
    return found;
}

}  // namespace

std::string status_of(const report::RunReport& report, const std::string& check) {
    const auto* found = worst(report, check);
    return found == nullptr ? "absent" : std::string(report::status_name(found->status));
}

std::string message_of(const report::RunReport& report, const std::string& check) {
    const auto* found = worst(report, check);
    if (found == nullptr) {
        return "absent";
    }
    return found->examples.empty() ? found->note : found->examples.front().message;
}

}  // namespace conform::testing
