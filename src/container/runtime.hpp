#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "container/launcher.hpp"
#include "process/process.hpp"

// Talking to a container runtime CLI outside of connector runs: detection and pull policy.
namespace conform::container {

struct CommandOutput {
    process::ExitStatus exit;
    bool timed_out = false;
    std::string stdout_text;
    std::string stderr_text;

    bool succeeded() const { return !timed_out && exit.succeeded(); }
};

// Runs `argv` with stdin from /dev/null for at most `timeout` and captures its output. Throws
// conform::Error (internal) when argv[0] cannot be started.
CommandOutput run_command(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout = std::chrono::seconds(10));

// Whether `program` is an executable file in one of the folders on PATH.
bool on_path(const std::string& program);

// The end of a runtime's stderr, trimmed and short enough for an error message.
std::string stderr_summary(const std::string& stderr_text);

// The runtime command line up to and including the global arguments.
struct RuntimeCommand {
    std::string runtime;
    std::vector<std::string> global_args;

    // `runtime global_args... args...`.
    std::vector<std::string> with(std::vector<std::string> args) const;
};

// What an image says about itself.
struct ImageIdentity {
    std::string id;  // "sha256:" and 64 hex digits, as the runtime reports it; empty when none
    // The connector's version from the image's labels, the first set of k_version_labels; empty
    // when neither is.
    std::string version;
    std::string version_label;  // the label `version` came from
};

// The labels that name a connector image's version, in the order they are believed: Airbyte's
// own, then the OCI annotation.
inline constexpr std::string_view k_version_labels[] = {"io.airbyte.version",
                                                        "org.opencontainers.image.version"};

// The identity in the output of `image inspect --format`: the id, then each version label's value,
// separated by tabs (a label the image lacks prints as nothing, docker and podman alike). Empty id
// when the output has another shape.
ImageIdentity image_identity_from(std::string_view inspect_output);

// Makes sure `image` is available under `policy`: inspects it, and pulls it when the policy says
// so. Returns the image's id, which names exactly what ran, and its version labels. Throws
// conform::Error (input) when the image is absent under "never" or cannot be pulled, and (usage)
// when the runtime cannot be started.
ImageIdentity ensure_image(const RuntimeCommand& runtime, const std::string& image,
                           PullPolicy policy);

}  // namespace conform::container
