#include "container/launcher.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <mutex>
#include <random>
#include <set>

#include "container/runtime.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::container {

namespace {

constexpr std::string_view k_data_dir = "/data";

std::string join_command_line(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& word : argv) {
        if (!line.empty()) {
            line += ' ';
        }
        line += shell_quote(word);
    }
    return line;
}

class NativeLauncher : public Launcher {
public:
    NativeLauncher(std::vector<std::string> command, std::map<std::string, std::string> env,
                   std::filesystem::path working_dir)
        : m_command(std::move(command)),
          m_env(std::move(env)),
          m_working_dir(std::move(working_dir)) {}

    process::LaunchSpec prepare(const Call& call) override {
        process::LaunchSpec spec;
        spec.argv = m_command;
        spec.argv.insert(spec.argv.end(), call.args.begin(), call.args.end());
        for (const auto& [flag, path] : call.file_args) {
            spec.argv.push_back(flag);
            spec.argv.push_back(path.string());
        }
        spec.env = m_env;
        spec.working_dir = m_working_dir;
        spec.timeout = call.timeout;
        spec.grace = call.grace;
        return spec;
    }

    std::string describe() const override { return join_command_line(m_command); }

private:
    std::vector<std::string> m_command;
    std::map<std::string, std::string> m_env;
    std::filesystem::path m_working_dir;
};

bool is_network_option(const std::string& arg) {
    return arg == "--network" || arg == "--net" || arg.starts_with("--network=") ||
           arg.starts_with("--net=");
}

// Variables the runtime client itself reads: giving them the connector's value in the client's
// environment would change how the client works, so these go on the command line instead.
bool steers_runtime_client(const std::string& name) {
    std::string upper = name;
    std::transform(upper.begin(), upper.end(), upper.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    static const std::set<std::string, std::less<>> k_names = {
        "PATH",     "HOME",      "TMPDIR",         "HTTP_PROXY",   "HTTPS_PROXY",
        "NO_PROXY", "ALL_PROXY", "STORAGE_DRIVER", "STORAGE_OPTS", "REGISTRY_AUTH_FILE"};
    static const std::array<std::string_view, 7> k_prefixes = {
        "DOCKER_", "CONTAINERS_", "CONTAINER_", "PODMAN_", "BUILDAH_", "XDG_", "LD_"};
    return k_names.contains(upper) ||
           std::any_of(k_prefixes.begin(), k_prefixes.end(),
                       [&](std::string_view prefix) { return upper.starts_with(prefix); });
}

void check_env_name(const std::string& name) {
    if (name.empty() || name.find_first_of("=\n") != std::string::npos) {
        throw_input_error(
            fmt::format("'{}' is not a valid environment variable name for a container", name));
    }
}

std::string absolute_host_path(const std::filesystem::path& path) {
    std::string host = std::filesystem::absolute(path).lexically_normal().string();
    if (host.find_first_of(":\n") != std::string::npos) {
        throw_input_error(fmt::format(
            "the path '{}' cannot be mounted into a container: it contains ':' or a newline",
            host));
    }
    return host;
}

// Maps each input file to /data/<name>, or /data/<n>/<name> when two files share a name.
class DataMounts {
public:
    std::string container_path(const std::filesystem::path& host) {
        std::string name = host.filename().string();
        if (name.empty() || name == "." || name == "..") {
            throw_input_error(fmt::format("'{}' is not a file that can be mounted into a container",
                                          host.string()));
        }
        std::string path = fmt::format("{}/{}", k_data_dir, name);
        for (int n = 2; !m_used.insert(path).second; ++n) {
            path = fmt::format("{}/{}/{}", k_data_dir, n, name);
        }
        return path;
    }

private:
    std::set<std::string> m_used;
};

// The runtime client runs in a session of its own under a shell that ignores SIGTERM, so the
// SIGTERM conform sends to the launched process group never reaches the client: the connector is
// stopped by the stop command (`kill --signal TERM NAME`) alone, and the client keeps relaying
// its output until the container exits. A podman 4.3 client that gets SIGTERM itself exits at
// once with code 0 in some runs and drops the connector's last output (docs/containers.md).
std::vector<std::string> shielded_client(std::vector<std::string> client_argv) {
    std::vector<std::string> argv = {"/bin/sh", "-c", "trap '' TERM; setsid \"$@\"",
                                     "conform-container"};
    argv.insert(argv.end(), std::make_move_iterator(client_argv.begin()),
                std::make_move_iterator(client_argv.end()));
    return argv;
}

// A stop that comes while the client is still creating the container finds no container by that
// name yet; retrying for about two seconds covers the creation.
std::vector<std::string> kill_with_retries(std::vector<std::string> kill_argv) {
    std::vector<std::string> argv = {
        "/bin/sh", "-c",
        "for attempt in 1 2 3 4 5 6 7 8 9 10; do \"$@\" >/dev/null 2>&1 && exit 0; sleep 0.2; "
        "done; exit 1",
        "conform-container-stop"};
    argv.insert(argv.end(), std::make_move_iterator(kill_argv.begin()),
                std::make_move_iterator(kill_argv.end()));
    return argv;
}

class ImageLauncher : public Launcher {
public:
    explicit ImageLauncher(ImageSettings settings) : m_settings(std::move(settings)) {}

    process::LaunchSpec prepare(const Call& call) override {
        ensure_image_once();
        make_readable_in_container(call);
        return image_launch_spec(m_settings, call, unique_container_name());
    }

    // The image's id once it was checked (after the first run): what exactly ran.
    std::string describe() const override {
        std::lock_guard lock(m_mutex);
        return fmt::format("{} image {}{}{}", m_settings.runtime, m_settings.image,
                           m_image.id.empty() ? "" : fmt::format(" ({})", m_image.id.substr(0, 19)),
                           m_settings.network ? " (network on)" : "");
    }

    ConnectorVersion version() const override {
        std::lock_guard lock(m_mutex);
        if (m_image.version.empty()) {
            return {};
        }
        return {m_image.version, "image label " + m_image.version_label};
    }

private:
    // Many connector images run as a non-root user (Airbyte's as "airbyte"), which cannot read a
    // bind-mounted 0600 file owned by root. The files stay private on the host: the folders that
    // hold them (0700) and the shared scratch folders are what guard them there.
    void make_readable_in_container(const Call& call) const {
        namespace fs = std::filesystem;
        constexpr auto readable = fs::perms::owner_read | fs::perms::owner_write |
                                  fs::perms::group_read | fs::perms::others_read;
        for (const auto& [flag, path] : call.file_args) {
            std::error_code ignored;
            fs::permissions(path, readable, ignored);
        }
        for (const auto& dir : m_settings.shared_dirs) {
            std::error_code ignored;
            fs::permissions(dir,
                            fs::perms::others_read | fs::perms::others_exec |
                                fs::perms::group_read | fs::perms::group_exec,
                            fs::perm_options::add, ignored);
        }
    }

    void ensure_image_once() {
        std::lock_guard lock(m_mutex);
        if (!m_image_checked) {
            m_image_checked = true;
            try {
                m_image = ensure_image({m_settings.runtime, m_settings.global_args},
                                       m_settings.image, m_settings.pull);
            } catch (const Error& error) {
                m_image_error = error;
            }
        }
        if (m_image_error) {
            throw *m_image_error;
        }
    }

    ImageSettings m_settings;
    mutable std::mutex m_mutex;
    bool m_image_checked = false;
    std::optional<Error> m_image_error;
    ImageIdentity m_image;
};

}  // namespace

std::unique_ptr<Launcher> make_native_launcher(std::vector<std::string> command,
                                               std::map<std::string, std::string> env,
                                               std::filesystem::path working_dir) {
    if (command.empty() || command.front().empty()) {
        throw Error(ErrorKind::usage, "the connector command is empty");
    }
    return std::make_unique<NativeLauncher>(std::move(command), std::move(env),
                                            std::move(working_dir));
}

std::string_view pull_policy_name(PullPolicy policy) {
    switch (policy) {
        case PullPolicy::never:
            return "never";
        case PullPolicy::missing:
            return "missing";
        case PullPolicy::always:
            return "always";
    }
    return "missing";
}

std::optional<PullPolicy> parse_pull_policy(std::string_view name) {
    for (PullPolicy policy : {PullPolicy::never, PullPolicy::missing, PullPolicy::always}) {
        if (pull_policy_name(policy) == name) {
            return policy;
        }
    }
    return std::nullopt;
}

std::unique_ptr<Launcher> make_image_launcher(ImageSettings settings) {
    if (settings.image.empty() || settings.image.starts_with('-')) {
        throw Error(ErrorKind::usage,
                    fmt::format("'{}' is not a container image name", settings.image));
    }
    if (!on_path("setsid")) {
        throw Error(ErrorKind::usage,
                    "running container images needs the setsid command (util-linux) on PATH");
    }
    if (settings.runtime.empty()) {
        settings.runtime = detect_runtime();
    }
    return std::make_unique<ImageLauncher>(std::move(settings));
}

process::LaunchSpec image_launch_spec(const ImageSettings& settings, const Call& call,
                                      const std::string& name) {
    if (settings.runtime.empty()) {
        throw_internal_error("image_launch_spec() needs a container runtime");
    }
    process::LaunchSpec spec;
    RuntimeCommand runtime{settings.runtime, settings.global_args};
    // No --rm: the docker CLI against podman 4.3's API then reports exit code 0 for every
    // container (measured); the cleanup command removes the container by name instead.
    // The container's output is read through the attached stdout; a log copy would only cost
    // time and disk.
    // --stop-timeout 0: the cleanup's `rm -f` comes after conform's own grace period, so the
    // runtime must not add its default 10 s of waiting before SIGKILL.
    spec.argv =
        runtime.with({"run", "-i", "--name", name, "--log-driver", "none", "--stop-timeout", "0"});
    auto add = [&spec](std::initializer_list<std::string> words) {
        spec.argv.insert(spec.argv.end(), words);
    };
    if (std::none_of(settings.runtime_args.begin(), settings.runtime_args.end(),
                     is_network_option)) {
        add({"--network", settings.network ? "host" : "none"});
    }

    DataMounts mounts;
    std::vector<std::pair<std::string, std::string>> file_flags;
    for (const auto& [flag, path] : call.file_args) {
        std::string host = absolute_host_path(path);
        std::string inside = mounts.container_path(host);
        add({"-v", fmt::format("{}:{}:ro", host, inside)});
        file_flags.emplace_back(flag, inside);
    }
    for (const auto& dir : settings.shared_dirs) {
        std::string host = absolute_host_path(dir);
        add({"-v", fmt::format("{}:{}", host, host)});
    }
    for (const auto& [key, value] : settings.env) {
        check_env_name(key);
        if (steers_runtime_client(key)) {
            add({"-e", fmt::format("{}={}", key, value)});
        } else {
            add({"-e", key});
            spec.env[key] = value;
        }
    }
    spec.argv.insert(spec.argv.end(), settings.runtime_args.begin(), settings.runtime_args.end());
    spec.argv.push_back(settings.image);
    spec.argv.insert(spec.argv.end(), call.args.begin(), call.args.end());
    for (const auto& [flag, inside] : file_flags) {
        add({flag, inside});
    }

    spec.argv = shielded_client(std::move(spec.argv));
    spec.stop_command = kill_with_retries(runtime.with({"kill", "--signal", "TERM", name}));
    spec.cleanup_command = runtime.with({"rm", "-f", name});
    spec.leftover_argument = name;
    // The runtime's daemons (conmon) would inherit the run marker: they are the engine's, and
    // killing them loses the container's output and exit status. They are conform's descendants
    // all the same (conform is their subreaper): when the cleanup fails, what the run left behind
    // is killed, a client that exec'd the connector too.
    spec.mark_descendants = false;
    spec.leftovers = process::LaunchSpec::Leftovers::kill_when_cleanup_fails;
    spec.timeout = call.timeout;
    spec.grace = call.grace;
    return spec;
}

std::string container_name_prefix() {
    return fmt::format("conform-{}-", ::getpid());
}

std::string unique_container_name() {
    static std::atomic<std::uint64_t> counter{0};
    std::random_device random;
    return fmt::format("{}{}-{:08x}", container_name_prefix(), ++counter,
                       static_cast<std::uint32_t>(random()));
}

}  // namespace conform::container
