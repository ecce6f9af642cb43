#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <functional>

#include "meltano/test_config.hpp"
#include "process/process.hpp"
#include "process/workdir.hpp"
#include "protocol/secrets.hpp"

namespace conform::meltano {

// The argument on whose call the probe exits $CONFORM_PROBE_EXIT (probe_main.cpp), and the code
// conform asks of it there.
inline constexpr const char* k_probe_fail_argument = "conform-probe-fail";
inline constexpr int k_probe_failure = 3;

// What a step's stdin is: /dev/null (every step unless said otherwise), or a pipe that stays
// open and empty, so that a command that reads stdin waits until its timeout (MX-IO-2).
enum class StdinMode { null, open_empty };

// What a step ran a command for: the checks pick the commands they judge by it.
enum class Purpose {
    setup,                // initialize in a new project folder, for the commands after it
    help,                 // NAME_extension --help
    describe,             // describe (any format)
    cli_help,             // a described executable's --help
    command_help,         // a described executable's COMMAND --help
    configured,           // a command of the test config
    listed_test,          // a test* command describe lists
    unknown_command,      // NAME_extension conform-no-such-command
    invoke_unknown,       // NAME_extension invoke conform-no-such-command
    invoke_probe,         // invoke with the awkward arguments, the probe exits 0
    invoke_probe_fails,   // invoke, the probe exits 3
    invoker_probe,        // the invoker with the awkward arguments
    invoker_bare,         // the invoker without arguments
    invoker_probe_fails,  // the invoker, the probe exits 3
    initialize,           // initialize in a new folder
    initialize_again,     // initialize run a second time in that folder
    own,                  // the extension's own commands whose output is judged
};

// One command conform runs: an executable of the extension with arguments and environment.
struct Command {
    Purpose purpose = Purpose::setup;
    std::string label{};
    std::string executable{};
    std::vector<std::string> args{};
    std::map<std::string, std::string> env{};  // on top of the test config's and the log settings
    std::filesystem::path cwd{};               // empty: the session folder
    StdinMode stdin_mode = StdinMode::null;
    // Replace the wrapped program with conform's probe, which records its arguments and exits
    // with this code.
    std::optional<int> probe_exit{};
    std::chrono::milliseconds timeout{0};  // zero: the test config's command timeout
    // For the checks: the configured command's or the described executable's name, the described
    // sub-command, whether it is a pass-through CLI, the expected exit code.
    std::string name{};
    std::string subject{};
    bool pass_through = false;
    int expected_exit = 0;
    bool result_on_stdout = false;  // the test config says its stdout is its result
};

struct CommandResult {
    Command command;  // what was asked, with the purpose and names for the checks
    std::string label;
    std::string command_line;  // shell-quoted, for reports
    bool started = false;
    std::string start_error;
    process::ExitStatus exit;
    bool timed_out = false;
    std::string stdout_text;
    std::uint64_t stdout_lines = 0;
    std::string stderr_text;
    // The wrapped program's arguments as the probe received them, per call (a wrapper may call it
    // several times); nothing when it did not run.
    std::optional<std::vector<std::vector<std::string>>> probe_calls;
    // A secret value (the test config's secret_env) appeared on stdout or stderr, raw or in a
    // JSON spelling; stderr is scanned whole, not only the kept part.
    bool secret_on_stdout = false;
    bool secret_on_stderr = false;
    std::chrono::milliseconds elapsed{0};

    bool exited_with(int code) const { return started && !timed_out && exit.code == code; }
    // The executable could not be run at all: not started, not found (126, 127) or hung.
    bool cannot_run() const;
    // "exit code 3", "timed out after 10 s", "could not start: ...".
    std::string outcome() const;
};

// Starts one process; tests substitute a fake extension that spawns nothing.
using Executor = process::Executor;

// Runs commands natively or in the test config's image, with a private scratch folder for
// projects, the probe and its records. Not thread-safe.
class Session {
public:
    // `secrets`: the values every command's output is scanned for.
    Session(const TestConfig& config, const protocol::Secrets& secrets, Executor executor = {});

    CommandResult run(const Command& command);

    // A new empty folder in the scratch folder, for a project `initialize` creates.
    std::filesystem::path new_project_dir();

    // Whether the probe can stand in for the wrapped program; when not, why.
    bool probe_available() const { return m_probe_error.empty(); }
    const std::string& probe_error() const { return m_probe_error; }

    // "native: refext_extension" or "podman image localhost/x".
    std::string describe_target() const;

private:
    void write_probe_conf(const Command& command) const;
    process::LaunchSpec launch_spec(const Command& command,
                                    const std::map<std::string, std::string>& env,
                                    const std::filesystem::path& cwd);

    const TestConfig& m_config;
    const protocol::Secrets& m_secrets;
    Executor m_executor;
    process::PrivateDir m_dir;
    std::filesystem::path m_probe_dir;
    std::filesystem::path m_probe_record;
    std::filesystem::path m_stdin_fifo;
    std::string m_probe_error;
    std::optional<container::ImageSettings> m_image;
    int m_projects = 0;
};

// The probe executable: $CONFORM_PROBE, else `conform-probe` next to the running conform.
std::filesystem::path probe_executable();

// Quotes `argv` for a POSIX shell.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace conform::meltano
