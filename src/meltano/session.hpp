#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "meltano/extension_config.hpp"
#include "process/process.hpp"
#include "process/workdir.hpp"

namespace conform::meltano {

// What a step's stdin is: /dev/null (every step unless said otherwise), or a pipe that stays
// open and empty, so that a command that reads stdin waits until its timeout (MX-IO-2).
enum class StdinMode { null, open_empty };

// One command conform runs: an executable of the extension with arguments and environment.
struct Step {
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
};

struct StepResult {
    std::string label;
    std::string command;  // shell-quoted, for reports
    bool started = false;
    std::string start_error;
    process::ExitStatus exit;
    bool timed_out = false;
    std::string stdout_text;
    std::uint64_t stdout_lines = 0;
    std::string stderr_text;
    // The wrapped program's arguments as the probe received them; nothing when it did not run.
    std::optional<std::vector<std::string>> probe_args;
    std::chrono::milliseconds elapsed{0};

    bool exited_with(int code) const { return started && !timed_out && exit.code == code; }
    // "exit code 3", "timed out after 10 s", "could not start: ...".
    std::string outcome() const;
};

// Runs steps natively or in the test config's image, with a private scratch folder for projects,
// the probe and its records. Not thread-safe.
class Session {
public:
    explicit Session(const ExtensionConfig& config);

    StepResult run(const Step& step);

    // A new empty folder in the scratch folder, for a project `initialize` creates.
    std::filesystem::path new_project_dir();

    // Whether the probe can stand in for the wrapped program; when not, why.
    bool probe_available() const { return m_probe_error.empty(); }
    const std::string& probe_error() const { return m_probe_error; }

    // "native: refext_extension" or "podman image localhost/x".
    std::string describe_target() const;

private:
    process::LaunchSpec launch_spec(const Step& step, const std::map<std::string, std::string>& env,
                                    const std::filesystem::path& cwd);

    const ExtensionConfig& m_config;
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
