#include "meltano/session.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "container/launcher.hpp"
#include "container/runtime.hpp"
#include "util/error.hpp"

namespace conform::meltano {

namespace {

// Collects stdout (small: describe, help, or noise to report) and scans all of stdout and stderr
// for secrets.
class Collector : public process::Observer {
public:
    explicit Collector(const protocol::Secrets& secrets)
        : m_secrets(secrets), m_stderr_secrets(&secrets) {}

    process::Decision on_stdout_line(std::string_view line, std::uint64_t /*line_number*/,
                                     bool /*truncated*/) override {
        secret_on_stdout = secret_on_stdout || m_secrets.found_in(line);
        if (text.size() < k_limit) {
            text.append(line);
            text += '\n';
        }
        return process::Decision::keep_going;
    }
    void on_stderr(std::string_view chunk) override { m_stderr_secrets.feed(chunk); }
    bool secret_on_stderr() const { return m_stderr_secrets.found(); }

    static constexpr std::size_t k_limit = 1024 * 1024;
    std::string text;
    bool secret_on_stdout = false;

private:
    const protocol::Secrets& m_secrets;
    protocol::SecretStreamScanner m_stderr_secrets;
};

// What a native command keeps of conform's own environment: the test config's env and the
// step's replace everything else (docs/meltano.md).
constexpr std::array<std::string_view, 8> k_kept_variables = {
    "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"};

constexpr std::string_view k_image_path =
    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// The calls of the probe in its record (probe_main.cpp): per call, a count and that many
// arguments, each NUL-terminated. Nothing when the probe was not called.
std::optional<std::vector<std::vector<std::string>>> read_probe_record(
    const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return std::nullopt;
    }
    std::vector<std::string> fields;
    std::string field;
    while (std::getline(in, field, '\0')) {
        fields.push_back(field);
    }
    std::vector<std::vector<std::string>> calls;
    for (std::size_t i = 0; i < fields.size();) {
        auto count = static_cast<std::size_t>(std::strtoul(fields[i].c_str(), nullptr, 10));
        auto first = fields.begin() + static_cast<std::ptrdiff_t>(i + 1);
        auto last =
            fields.begin() + static_cast<std::ptrdiff_t>(std::min(i + 1 + count, fields.size()));
        calls.emplace_back(first, last);
        i += 1 + count;
    }
    if (calls.empty()) {
        return std::nullopt;
    }
    return calls;
}

}  // namespace

std::string shell_join(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& word : argv) {
        bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
                   std::string_view("_./:=@%+,-").find(c) != std::string_view::npos;
        });
        std::string quoted = "'";
        for (char c : word) {
            quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
        }
        line += (line.empty() ? "" : " ") + (plain ? word : quoted + "'");
    }
    return line;
}

std::string CommandResult::outcome() const {
    if (!started) {
        return "could not start: " + start_error;
    }
    if (timed_out) {
        return fmt::format("timed out after {:.1f} s", static_cast<double>(elapsed.count()) / 1000);
    }
    return exit.describe();
}

bool CommandResult::cannot_run() const {
    return !started || timed_out || (exit.code && (*exit.code == 126 || *exit.code == 127));
}

std::filesystem::path probe_executable() {
    if (const char* path = std::getenv("CONFORM_PROBE"); path != nullptr && *path != '\0') {
        return path;
    }
    std::error_code error;
    auto self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) {
        return {};
    }
    return self.parent_path() / "conform-probe";
}

Session::Session(const TestConfig& config, const protocol::Secrets& secrets, Executor executor)
    : m_config(config), m_secrets(secrets), m_executor(std::move(executor)) {
    m_probe_dir = m_dir.path() / "probe-bin";
    m_probe_record = m_dir.path() / "probe-record";
    m_stdin_fifo = m_dir.path() / "stdin-open-empty";
    if (::mkfifo(m_stdin_fifo.c_str(), 0600) != 0) {
        throw_internal_error(fmt::format("cannot create the FIFO {}: {}", m_stdin_fifo.string(),
                                         std::strerror(errno)));
    }
    if (!config.wrapped.empty()) {
        auto probe = probe_executable();
        std::error_code error;
        std::filesystem::create_directories(m_probe_dir, error);
        if (probe.empty() || !std::filesystem::is_regular_file(probe, error)) {
            m_probe_error = fmt::format(
                "conform's probe executable was not found ({}); set CONFORM_PROBE to its path",
                probe.empty() ? std::string("no path") : probe.string());
        } else {
            auto copy = m_probe_dir / config.wrapped;
            std::filesystem::copy_file(probe, copy,
                                       std::filesystem::copy_options::overwrite_existing, error);
            if (error) {
                m_probe_error =
                    fmt::format("cannot copy the probe to {}: {}", copy.string(), error.message());
            } else {
                std::filesystem::permissions(
                    copy,
                    std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                        std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                        std::filesystem::perms::others_exec,
                    error);
            }
        }
    } else {
        m_probe_error = "the test config names no wrapped program (extension.wrapped)";
    }
    if (config.image) {
        m_image = *config.image;
        if (!container::on_path("setsid")) {
            throw Error(ErrorKind::usage,
                        "running container images needs the setsid command (util-linux) on PATH");
        }
        if (m_image->runtime.empty()) {
            m_image->runtime = container::detect_runtime();
        }
        container::ensure_image({m_image->runtime, m_image->global_args}, m_image->image,
                                m_image->pull);
        // The container may run as another user: the scratch folder must be reachable.
        std::error_code error;
        std::filesystem::permissions(
            m_dir.path(), std::filesystem::perms::others_read | std::filesystem::perms::others_exec,
            std::filesystem::perm_options::add, error);
    }
}

std::filesystem::path Session::new_project_dir() {
    auto dir = m_dir.path() / fmt::format("project-{}", ++m_projects);
    std::filesystem::create_directories(dir);
    if (m_image) {
        std::filesystem::permissions(dir, std::filesystem::perms::all,
                                     std::filesystem::perm_options::add);
    }
    return dir;
}

std::string Session::describe_target() const {
    if (m_image) {
        return fmt::format("{} image {}", m_image->runtime, m_image->image);
    }
    return fmt::format("native {}", m_config.extension_executable);
}

process::LaunchSpec Session::launch_spec(const Command& step,
                                         const std::map<std::string, std::string>& env,
                                         const std::filesystem::path& cwd) {
    auto timeout = step.timeout.count() > 0 ? step.timeout : m_config.command_timeout;
    process::LaunchSpec spec;
    if (m_image) {
        container::ImageSettings settings = *m_image;
        settings.env = env;
        settings.shared_dirs.push_back(m_dir.path());
        settings.runtime_args.insert(settings.runtime_args.end(),
                                     {"--entrypoint", step.executable, "-w", cwd.string()});
        container::Call call;
        call.args = step.args;
        call.timeout = timeout;
        call.grace = m_config.grace;
        spec = container::image_launch_spec(settings, call, container::unique_container_name());
    } else {
        spec.argv = {step.executable};
        spec.argv.insert(spec.argv.end(), step.args.begin(), step.args.end());
        spec.env = env;
        spec.inherit_environment = false;
        for (auto name : k_kept_variables) {
            const char* value = std::getenv(std::string(name).c_str());
            if (value != nullptr && !spec.env.contains(std::string(name))) {
                spec.env.emplace(name, value);
            }
        }
        spec.working_dir = cwd;
        spec.timeout = timeout;
        spec.grace = m_config.grace;
    }
    if (step.stdin_mode == StdinMode::open_empty) {
        // Opened read-write, the FIFO never reports end of input: a read waits forever.
        std::vector<std::string> argv = {"/bin/sh", "-c", "exec 0<>\"$0\" && exec \"$@\"",
                                         m_stdin_fifo.string()};
        argv.insert(argv.end(), spec.argv.begin(), spec.argv.end());
        spec.argv = std::move(argv);
    }
    return spec;
}

// The probe's instructions for `step` (probe_main.cpp): the exit code of the failing call, then
// the arguments that mark the step's own calls; the wrapper's other calls go to the real program.
void Session::write_probe_conf(const Command& step) const {
    std::vector<std::string> markers = {"conform-probe", k_probe_fail_argument};
    if (step.args.empty()) {
        markers.emplace_back();  // the invoker run bare: its call of the program has no arguments
    } else if (step.args == std::vector<std::string>{"--help"}) {
        markers.emplace_back("--help");  // a pass-through CLI's --help, handed on
    }
    std::ofstream conf(m_probe_record.parent_path() / "probe.conf", std::ios::trunc);
    conf << step.probe_exit.value_or(0) << '\n';
    for (const auto& marker : markers) {
        conf << marker << '\n';
    }
    if (!conf) {
        throw_internal_error(
            fmt::format("cannot write {}", (m_probe_record.parent_path() / "probe.conf").string()));
    }
}

CommandResult Session::run(const Command& step) {
    CommandResult result;
    result.command = step;
    result.label = step.label;
    std::vector<std::string> shown = {step.executable};
    shown.insert(shown.end(), step.args.begin(), step.args.end());
    result.command_line = shell_join(shown);

    // The EDK's switches: always on, so that a level and a timestamp can be judged where the test
    // config requires them, and the level of an error in any case.
    std::map<std::string, std::string> env = m_config.env;
    env["LOG_LEVELS"] = "true";
    env["LOG_TIMESTAMPS"] = "true";
    for (const auto& [key, value] : step.env) {
        env[key] = value;
    }
    std::string path;
    if (step.probe_exit) {
        std::error_code ignored;
        std::filesystem::remove(m_probe_record, ignored);
        write_probe_conf(step);
        env["CONFORM_PROBE_RECORD"] = m_probe_record.string();
        env["CONFORM_PROBE_EXIT"] = std::to_string(*step.probe_exit);
        path = m_probe_dir.string();
    }
    if (m_image) {
        if (!path.empty()) {
            env["PATH"] = fmt::format("{}:{}", path, k_image_path);
        }
    } else {
        for (const auto& dir : m_config.path) {
            path += (path.empty() ? "" : ":") + dir.string();
        }
        const char* inherited = std::getenv("PATH");
        if (inherited != nullptr && *inherited != '\0') {
            path += (path.empty() ? "" : ":") + std::string(inherited);
        }
        env["PATH"] = path;
    }
    auto cwd = step.cwd.empty() ? m_dir.path() : step.cwd;
    // Meltano runs every plugin with its project root set; extensions write under it (superset-ext
    // its config, airflow-ext its home): the folder the command runs in, unless the test config
    // sets one.
    env.try_emplace("MELTANO_PROJECT_ROOT", cwd.string());

    Collector collector(m_secrets);
    try {
        auto spec = launch_spec(step, env, cwd);
        auto run = process::run_with(m_executor, spec, collector);
        result.started = true;
        result.exit = run.exit;
        result.timed_out = run.stop_reason == process::StopReason::timeout;
        result.stderr_text = std::move(run.stderr_text);
        result.stdout_lines = run.stdout_lines;
        result.elapsed = run.elapsed;
    } catch (const Error& error) {
        if (error.kind() == ErrorKind::interrupted || error.kind() == ErrorKind::usage) {
            throw;
        }
        result.started = false;
        result.start_error = error.what();
    }
    result.stdout_text = std::move(collector.text);
    result.secret_on_stdout = collector.secret_on_stdout;
    result.secret_on_stderr =
        collector.secret_on_stderr() || m_secrets.found_in(result.stderr_text);
    if (step.probe_exit) {
        result.probe_calls = read_probe_record(m_probe_record);
    }
    return result;
}

}  // namespace conform::meltano
