#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "process/process.hpp"

namespace conform::container {

// One connector invocation as the suite runner sees it, independent of how the connector runs.
struct Call {
    // The Airbyte subcommand and its plain arguments, e.g. {"read"}.
    std::vector<std::string> args;
    // Flag → host file, e.g. {"--config", "/tmp/conform-ab12/config.json"}. A launcher may map the
    // file to another path (a container mounts it read-only under /data).
    std::vector<std::pair<std::string, std::filesystem::path>> file_args;
    std::chrono::milliseconds timeout{0};
    std::chrono::milliseconds grace{5000};
};

// A connector's version and where it was read, e.g. {"0.4.1", "image label io.airbyte.version"}.
struct ConnectorVersion {
    std::string value;  // empty: unknown
    std::string source;
};

// Turns a Call into a process to run. Implementations: native command line and container image.
// prepare() may be called from several threads at once.
class Launcher {
public:
    virtual ~Launcher() = default;
    // Builds the process for `call`. Throws conform::Error when it cannot (e.g. image absent under
    // pull policy "never").
    virtual process::LaunchSpec prepare(const Call& call) = 0;
    // A one-line description for reports: the command line or "podman image localhost/x:1".
    virtual std::string describe() const = 0;
    // What the launcher knows of the connector's version once it ran (an image's labels).
    virtual ConnectorVersion version() const { return {}; }
};

// Runs `command` (argv, no shell) with the call's arguments appended. Throws conform::Error
// (usage) when `command` is empty.
std::unique_ptr<Launcher> make_native_launcher(std::vector<std::string> command,
                                               std::map<std::string, std::string> env,
                                               std::filesystem::path working_dir);

enum class PullPolicy { never, missing, always };

// "never", "missing", "always".
std::string_view pull_policy_name(PullPolicy policy);
// The policy named `name`, or nothing when `name` is not one of the three names.
std::optional<PullPolicy> parse_pull_policy(std::string_view name);

struct ImageSettings {
    std::string image;
    // "docker", "podman", a path to a docker-compatible CLI, or "" to detect (docker when its
    // engine answers, else podman).
    std::string runtime;
    std::vector<std::string> runtime_args;  // inserted after `run`
    std::vector<std::string> global_args;   // inserted before `run` (e.g. --storage-driver=vfs)
    // Off: `--network none`. On: `--network host` (the connector reaches the internet and the
    // host's local services). A --network/--net option in runtime_args replaces either.
    bool network = false;
    // Passed as `-e NAME` with the value in the runtime client's environment, so values never
    // appear on a command line.
    std::map<std::string, std::string> env;
    PullPolicy pull = PullPolicy::missing;
    // Mounted read-write at the same path inside the container (scratch data such as tail input).
    std::vector<std::filesystem::path> shared_dirs;
};

// Runs the image the Airbyte way (entrypoint takes the subcommand; input files mounted read-only
// under /data; stdin/stdout piped; container named, removed afterwards, stopped by name on stop).
// Detects the runtime now when `settings.runtime` is empty (conform::Error (usage) when none is
// found, or when setsid is not on PATH); the pull policy is applied once, on the first prepare().
std::unique_ptr<Launcher> make_image_launcher(ImageSettings settings);

// The `run` command for `call` in a container named `name`; `settings.runtime` must be set. Runs
// nothing. The runtime client is started as `/bin/sh -c "trap '' TERM; setsid \"$@\"" NAME
// CLIENT...`, out of reach of the SIGTERM conform sends to the process group: the stop command
// (`kill --signal TERM NAME`, retried while the container is being created) stops the connector.
// Throws conform::Error (input) for an environment name or a file path that cannot be passed to
// the runtime.
process::LaunchSpec image_launch_spec(const ImageSettings& settings, const Call& call,
                                      const std::string& name);

// A container name no other container on this host has: "conform-<pid>-<counter>-<random>".
std::string unique_container_name();

// The prefix every container name from this process starts with: "conform-<pid>-".
std::string container_name_prefix();

// "docker" when `docker version` reaches an engine, else "podman" when it is on PATH. Throws
// conform::Error (usage) naming both and the --container-runtime option when neither is usable.
std::string detect_runtime();

}  // namespace conform::container
