#include "container/runtime.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string_view>

#include "util/error.hpp"

namespace conform::container {

namespace {

using namespace std::chrono_literals;

constexpr std::size_t k_summary_limit = 400;
constexpr std::chrono::milliseconds k_detect_timeout = 10s;
constexpr std::chrono::milliseconds k_inspect_timeout = 60s;
// Large images over slow links take a while; a pull that hangs must still end.
constexpr std::chrono::milliseconds k_pull_timeout = 30min;

class CapturingObserver : public process::Observer {
public:
    process::Decision on_stdout_line(std::string_view line, std::uint64_t /*line_number*/,
                                     bool /*truncated*/) override {
        m_text.append(line);
        m_text.push_back('\n');
        return process::Decision::keep_going;
    }

    std::string take_text() { return std::move(m_text); }

private:
    std::string m_text;
};

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) {
        return {};
    }
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

std::string runtime_label(const RuntimeCommand& runtime) {
    return std::filesystem::path(runtime.runtime).filename().string();
}

CommandOutput run_runtime(const RuntimeCommand& runtime, std::vector<std::string> args,
                          std::chrono::milliseconds timeout) {
    try {
        return run_command(runtime.with(std::move(args)), timeout);
    } catch (const Error& error) {
        throw Error(ErrorKind::usage,
                    fmt::format("the container runtime '{}' could not be started ({}); install it "
                                "or choose another docker-compatible CLI with --container-runtime",
                                runtime.runtime, error.what()));
    }
}

std::string failure_detail(const CommandOutput& output, std::chrono::milliseconds timeout) {
    if (output.timed_out) {
        return fmt::format("it did not finish within {} s", timeout.count() / 1000);
    }
    std::string summary = stderr_summary(output.stderr_text);
    if (summary.empty()) {
        return output.exit.describe();
    }
    return summary;
}

std::string identity_format() {
    std::string format = "{{.Id}}";
    for (auto label : k_version_labels) {
        format += fmt::format("\t{{{{index .Config.Labels \"{}\"}}}}", label);
    }
    return format;
}

// podman prints the bare hex, docker prefixes "sha256:".
std::string image_id_from(std::string_view text) {
    text = trim(text);
    if (text.empty()) {
        return {};
    }
    return text.starts_with("sha256:") ? std::string(text) : "sha256:" + std::string(text);
}

bool image_present(const RuntimeCommand& runtime, const std::string& image, ImageIdentity& identity,
                   std::string& why_not) {
    CommandOutput output = run_runtime(
        runtime, {"image", "inspect", "--format", identity_format(), image}, k_inspect_timeout);
    if (output.succeeded()) {
        identity = image_identity_from(output.stdout_text);
        return true;
    }
    why_not = fmt::format("{} image inspect: {}", runtime_label(runtime),
                          failure_detail(output, k_inspect_timeout));
    return false;
}

void pull_image(const RuntimeCommand& runtime, const std::string& image, PullPolicy policy) {
    CommandOutput output = run_runtime(runtime, {"pull", image}, k_pull_timeout);
    if (!output.succeeded()) {
        throw Error(ErrorKind::input,
                    fmt::format("could not pull image '{}' (pull policy '{}'): {} pull: {}", image,
                                pull_policy_name(policy), runtime_label(runtime),
                                failure_detail(output, k_pull_timeout)));
    }
}

// Empty when the docker CLI reached an engine, else why not.
std::string docker_engine_problem() {
    try {
        CommandOutput output =
            run_command({"docker", "version", "--format", "{{.Server.Version}}"}, k_detect_timeout);
        if (output.succeeded()) {
            return {};
        }
        return failure_detail(output, k_detect_timeout);
    } catch (const Error&) {
        return "docker is not installed";
    }
}

}  // namespace

bool on_path(const std::string& program) {
    const char* path = std::getenv("PATH");
    if (path == nullptr) {
        return false;
    }
    std::string_view rest = path;
    while (!rest.empty()) {
        const auto colon = rest.find(':');
        std::string_view dir = rest.substr(0, colon);
        rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / program;
        if (::access(candidate.c_str(), X_OK) == 0 && !std::filesystem::is_directory(candidate)) {
            return true;
        }
    }
    return false;
}

std::string detect_runtime() {
    std::string docker_problem = docker_engine_problem();
    if (docker_problem.empty()) {
        return "docker";
    }
    if (on_path("podman")) {
        return "podman";
    }
    throw Error(
        ErrorKind::usage,
        fmt::format("no container runtime found: no Docker engine answers ({}) and podman is "
                    "not on PATH; start Docker, install podman, or name a docker-compatible "
                    "CLI with --container-runtime",
                    docker_problem));
}

CommandOutput run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout) {
    process::LaunchSpec spec;
    spec.argv = argv;
    spec.timeout = timeout;
    spec.grace = 2s;
    // conform's own helper commands (a runtime's CLI, a test's script) may start a service that
    // must outlive them (a podman API socket): what they leave behind is theirs.
    spec.leftovers = process::LaunchSpec::Leftovers::keep;
    CapturingObserver observer;
    process::RunResult result = process::run(spec, observer);
    CommandOutput output;
    output.exit = result.exit;
    output.timed_out = result.stop_reason == process::StopReason::timeout;
    output.stdout_text = observer.take_text();
    output.stderr_text = std::move(result.stderr_text);
    return output;
}

std::string stderr_summary(const std::string& stderr_text) {
    std::string_view text = trim(stderr_text);
    if (text.size() <= k_summary_limit) {
        return std::string(text);
    }
    std::size_t start = text.size() - k_summary_limit;
    // Do not start inside a UTF-8 sequence.
    while (start < text.size() && (static_cast<unsigned char>(text[start]) & 0xC0) == 0x80) {
        ++start;
    }
    return "…" + std::string(text.substr(start));
}

std::vector<std::string> RuntimeCommand::with(std::vector<std::string> args) const {
    std::vector<std::string> argv;
    argv.reserve(1 + global_args.size() + args.size());
    argv.push_back(runtime);
    argv.insert(argv.end(), global_args.begin(), global_args.end());
    argv.insert(argv.end(), std::make_move_iterator(args.begin()),
                std::make_move_iterator(args.end()));
    return argv;
}

ImageIdentity image_identity_from(std::string_view inspect_output) {
    // Only the line end goes: a trailing tab separates an empty last label.
    while (inspect_output.ends_with('\n') || inspect_output.ends_with('\r')) {
        inspect_output.remove_suffix(1);
    }
    std::vector<std::string_view> fields;
    for (;;) {
        auto end = inspect_output.find('\t');
        fields.push_back(inspect_output.substr(0, end));
        if (end == std::string_view::npos) {
            break;
        }
        inspect_output = inspect_output.substr(end + 1);
    }
    ImageIdentity identity;
    // Several images (a name that matched more than one) or an unknown shape: nothing is certain.
    if (fields.size() != 1 + std::size(k_version_labels) ||
        fields[0].find('\n') != std::string_view::npos) {
        return identity;
    }
    identity.id = image_id_from(fields[0]);
    for (std::size_t i = 0; i < std::size(k_version_labels); ++i) {
        auto value = trim(fields[i + 1]);
        // A Go template prints a missing key of a map it cannot index as "<no value>".
        if (!value.empty() && value != "<no value>") {
            identity.version = std::string(value);
            identity.version_label = std::string(k_version_labels[i]);
            break;
        }
    }
    return identity;
}

ImageIdentity ensure_image(const RuntimeCommand& runtime, const std::string& image,
                           PullPolicy policy) {
    ImageIdentity identity;
    std::string why_not;
    if (policy != PullPolicy::always && image_present(runtime, image, identity, why_not)) {
        return identity;
    }
    if (policy == PullPolicy::never) {
        throw Error(ErrorKind::input,
                    fmt::format("image '{}' is not present and the pull policy is 'never' ({})",
                                image, why_not));
    }
    pull_image(runtime, image, policy);
    image_present(runtime, image, identity, why_not);
    return identity;
}

}  // namespace conform::container
