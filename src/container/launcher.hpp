#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
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

// Turns a Call into a process to run. Implementations: native command line and container image.
class Launcher {
public:
    virtual ~Launcher() = default;
    // Builds the process for `call`. Throws conform::Error when it cannot (e.g. image absent under
    // pull policy "never").
    virtual process::LaunchSpec prepare(const Call& call) = 0;
    // A one-line description for reports: the command line or "podman image localhost/x:1".
    virtual std::string describe() const = 0;
};

// Runs `command` (argv, no shell) with the call's arguments appended.
std::unique_ptr<Launcher> make_native_launcher(std::vector<std::string> command,
                                               std::map<std::string, std::string> env,
                                               std::filesystem::path working_dir);

enum class PullPolicy { never, missing, always };

struct ImageSettings {
    std::string image;
    // "docker", "podman", a path to a docker-compatible CLI, or "" to detect (docker when its
    // engine answers, else podman).
    std::string runtime;
    std::vector<std::string> runtime_args;  // inserted after `run`
    std::vector<std::string> global_args;   // inserted before `run` (e.g. --storage-driver=vfs)
    bool network = false;
    std::map<std::string, std::string> env;
    PullPolicy pull = PullPolicy::missing;
    // Mounted read-write at the same path inside the container (scratch data such as tail input).
    std::vector<std::filesystem::path> shared_dirs;
};

// Runs the image the Airbyte way (entrypoint takes the subcommand; input files mounted read-only
// under /data; stdin/stdout piped; container named, removed afterwards, stopped by name on stop).
std::unique_ptr<Launcher> make_image_launcher(ImageSettings settings);

}  // namespace conform::container
