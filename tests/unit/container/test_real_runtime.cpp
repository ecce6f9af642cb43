// Runs connector images on a real container runtime: podman, or the docker CLI against podman's
// Docker-compatible API socket. Exits 77 (reported as SKIPPED by ctest) with the reason when the
// runtime cannot run containers on this machine.
//
//   test_container_runtime podman|docker SCRIPTS_DIR TINY_CONNECTOR [doctest options]
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>

#include "container/launcher.hpp"
#include "container/runtime.hpp"
#include "process/workdir.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::container;
using namespace std::chrono_literals;

namespace {

constexpr int k_skipped = 77;
constexpr const char* k_image = "localhost/conform-container-test:1";

struct Setup {
    std::string runtime;
    std::vector<std::string> global_args;
    std::filesystem::path scripts;
};
Setup g_setup;

class LineCollector : public process::Observer {
public:
    process::Decision on_stdout_line(std::string_view line, std::uint64_t /*line_number*/,
                                     bool /*truncated*/) override {
        lines.emplace_back(line);
        return process::Decision::keep_going;
    }
    std::vector<std::string> lines;
};

bool has_line(const std::vector<std::string>& lines, const std::string& wanted) {
    return std::find(lines.begin(), lines.end(), wanted) != lines.end();
}

ImageSettings settings() {
    ImageSettings result;
    result.image = k_image;
    result.runtime = g_setup.runtime;
    result.global_args = g_setup.global_args;
    result.pull = PullPolicy::never;
    return result;
}

std::vector<std::string> our_containers() {
    RuntimeCommand runtime{g_setup.runtime, g_setup.global_args};
    auto output = run_command(runtime.with({"ps", "-a", "--format", "{{.Names}}"}), 60s);
    REQUIRE(output.succeeded());
    std::vector<std::string> names;
    std::istringstream in(output.stdout_text);
    for (std::string name; std::getline(in, name);) {
        if (name.starts_with(container_name_prefix())) {
            names.push_back(name);
        }
    }
    return names;
}

int host_interfaces_besides_lo() {
    std::ifstream in("/proc/net/dev");
    int count = 0;
    for (std::string line; std::getline(in, line);) {
        auto colon = line.find(':');
        if (colon != std::string::npos && line.substr(0, colon).find("lo") == std::string::npos) {
            ++count;
        }
    }
    return count;
}

std::string script(const std::string& name) {
    return (g_setup.scripts / name).string();
}

// Prints the script's output; returns its exit code.
int run_script(const std::vector<std::string>& argv) {
    auto output = run_command(argv, 120s);
    std::fputs(output.stdout_text.c_str(), stdout);
    std::fputs(output.stderr_text.c_str(), stderr);
    if (output.timed_out) {
        std::printf("%s did not finish within 120 s\n", argv[0].c_str());
        return 1;
    }
    return output.exit.code.value_or(1);
}

// Serves podman's Docker API on a socket for the docker CLI while the tests run.
class DockerSocket {
public:
    DockerSocket() {
        m_started = run_script({script("docker-socket.sh"), "start", m_dir.path().string()}) == 0;
        if (m_started) {
            auto socket = "unix://" + (m_dir.path() / "podman.sock").string();
            ::setenv("DOCKER_HOST", socket.c_str(), 1);
        }
    }
    ~DockerSocket() {
        if (m_started) {
            run_script({script("docker-socket.sh"), "stop", m_dir.path().string()});
        }
    }
    DockerSocket(const DockerSocket&) = delete;
    DockerSocket& operator=(const DockerSocket&) = delete;

    bool started() const { return m_started; }

private:
    process::PrivateDir m_dir;
    bool m_started = false;
};

}  // namespace

TEST_CASE("files are mounted read-only under /data, env and stdin arrive, network is off") {
    process::PrivateDir dir;
    auto config = dir.write_file("config.json", "{\"api_key\": \"k\"}\n");
    auto launcher = make_image_launcher([] {
        auto s = settings();
        s.env = {{"CONFORM_TEST_SECRET", "s3cret value"}};
        return s;
    }());
    Call call;
    call.args = {"report", "CONFORM_TEST_SECRET", "plain"};
    call.file_args = {{"--config", config}};
    call.timeout = 60s;
    auto spec = launcher->prepare(call);
    spec.stdin_data = "line one\nline two\n";
    LineCollector lines;
    auto result = process::run(spec, lines);
    INFO("stderr: " << result.stderr_text);
    CHECK(result.exit.succeeded());
    CHECK(has_line(lines.lines, "env CONFORM_TEST_SECRET=s3cret value"));
    CHECK(has_line(lines.lines, "arg=plain"));
    CHECK(has_line(lines.lines, "file --config /data/config.json={\"api_key\": \"k\"}"));
    CHECK(has_line(lines.lines, "stdin=line one"));
    CHECK(has_line(lines.lines, "stdin=line two"));
    CHECK(has_line(lines.lines, "interfaces=0"));
    CHECK(our_containers().empty());
    // Once run, the image is described by its id: what exactly ran.
    auto description = launcher->describe();
    INFO(description);
    CHECK(description.find(std::string(k_image) + " (sha256:") != std::string::npos);
}

TEST_CASE("network on gives the container the host's network") {
    int host_count = host_interfaces_besides_lo();
    if (host_count == 0) {
        MESSAGE("this host has no interface besides lo; nothing to compare");
        return;
    }
    auto launcher = make_image_launcher([] {
        auto s = settings();
        s.network = true;
        return s;
    }());
    Call call;
    call.args = {"report"};
    call.timeout = 60s;
    LineCollector lines;
    auto result = process::run(launcher->prepare(call), lines);
    INFO("stderr: " << result.stderr_text);
    CHECK(result.exit.succeeded());
    CHECK(has_line(lines.lines, "interfaces=" + std::to_string(host_count)));
}

TEST_CASE("stopping delivers SIGTERM to the connector inside the container, which is removed") {
    // Stops as soon as the connector has its handler in place, the way the tail suite stops it.
    class StopWhenSleeping : public LineCollector {
    public:
        process::Decision on_stdout_line(std::string_view line, std::uint64_t number,
                                         bool truncated) override {
            LineCollector::on_stdout_line(line, number, truncated);
            return line == "sleeping" ? process::Decision::stop : process::Decision::keep_going;
        }
    };
    auto launcher = make_image_launcher(settings());
    Call call;
    call.args = {"sleep"};
    call.timeout = 60s;
    call.grace = 10s;
    StopWhenSleeping lines;
    auto result = process::run(launcher->prepare(call), lines);
    INFO("stderr: " << result.stderr_text);
    CHECK(result.stop_reason == process::StopReason::requested);
    CHECK_FALSE(result.killed_after_grace);
    CHECK(has_line(lines.lines, "stopped=SIGTERM"));
    CHECK(result.exit.succeeded());
    REQUIRE(result.exit_after_stop.has_value());
    CHECK(*result.exit_after_stop < 10s);
    CHECK(our_containers().empty());
}

TEST_CASE("a timeout holds for a connector that ignores SIGTERM: killed after grace, removed") {
    auto launcher = make_image_launcher(settings());
    Call call;
    call.args = {"ignore-term"};
    call.timeout = 500ms;
    call.grace = 300ms;
    LineCollector lines;
    auto result = process::run(launcher->prepare(call), lines);
    INFO("stderr: " << result.stderr_text);
    CHECK(result.stop_reason == process::StopReason::timeout);
    CHECK(result.killed_after_grace);
    CHECK(result.elapsed < 10s);
    CHECK(our_containers().empty());
}

TEST_CASE("an absent image under pull policy never is a clear error") {
    auto s = settings();
    s.image = "localhost/conform-absent-image:never";
    auto launcher = make_image_launcher(s);
    try {
        launcher->prepare(Call{});
        FAIL("expected an error");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        CHECK(std::string(error.what()).find("is not present and the pull policy is 'never'") !=
              std::string::npos);
    }
}

TEST_CASE("runtime detection picks docker exactly when a Docker API answers") {
    if (g_setup.runtime == "docker") {
        CHECK(detect_runtime() == "docker");
    } else if (std::getenv("DOCKER_HOST") == nullptr) {
        CHECK(detect_runtime() != "");
    }
}

int main(int argc, char** argv) {
    if (argc < 4 || (std::string(argv[1]) != "podman" && std::string(argv[1]) != "docker")) {
        std::fprintf(stderr,
                     "usage: %s podman|docker SCRIPTS_DIR TINY_CONNECTOR [doctest options]\n",
                     argv[0]);
        return 2;
    }
    g_setup.runtime = argv[1];
    g_setup.scripts = argv[2];
    std::string tiny_connector = argv[3];
    if (std::getenv("CONTAINERS_CONF") == nullptr) {
        ::setenv("CONTAINERS_CONF", script("containers.conf").c_str(), 1);
    }
    if (g_setup.runtime == "podman") {
        g_setup.global_args = {"--storage-driver=vfs"};
    }

    try {
        // The image is always made with podman: the docker CLI reaches the same storage.
        int status = run_script({script("check-runtime.sh"), "podman"});
        if (status != 0) {
            return status == k_skipped ? k_skipped : 1;
        }
        std::optional<DockerSocket> socket;
        if (g_setup.runtime == "docker") {
            if (run_command({"sh", "-c", "command -v docker"}).exit.code != 0) {
                std::printf("SKIPPED: the docker CLI is not installed\n");
                return k_skipped;
            }
            socket.emplace();
            if (!socket->started()) {
                return 1;
            }
        }
        if (run_script({script("import-binary-image.sh"), tiny_connector, k_image, "podman"}) !=
            0) {
            return 1;
        }
        doctest::Context context(argc - 3, argv + 3);
        return context.run();
    } catch (const Error& error) {
        std::fprintf(stderr, "error: %s\n", error.what());
        return 1;
    }
}
