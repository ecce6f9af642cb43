#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "container/launcher.hpp"
#include "container/runtime.hpp"
#include "process/workdir.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::container;
using namespace std::chrono_literals;
using Args = std::vector<std::string>;

namespace {

// Index of `word` in `argv`, or -1.
std::ptrdiff_t index_of(const Args& argv, const std::string& word) {
    auto found = std::find(argv.begin(), argv.end(), word);
    return found == argv.end() ? -1 : std::distance(argv.begin(), found);
}

bool contains_pair(const Args& argv, const std::string& first, const std::string& second) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == first && argv[i + 1] == second) {
            return true;
        }
    }
    return false;
}

std::string joined(const Args& argv) {
    std::string line;
    for (const auto& word : argv) {
        line += word + " ";
    }
    return line;
}

// The runtime client's command line inside the shell that shields it from SIGTERM.
Args client_argv(const Args& argv) {
    REQUIRE(argv.size() > 4);
    return Args(argv.begin() + 4, argv.end());
}

ImageSettings podman_settings() {
    ImageSettings settings;
    settings.image = "localhost/conform-reference:test";
    settings.runtime = "podman";
    settings.global_args = {"--storage-driver=vfs"};
    return settings;
}

Call read_call() {
    Call call;
    call.args = {"read"};
    call.file_args = {{"--config", "/tmp/conform-x/config.json"},
                      {"--catalog", "/tmp/conform-x/catalog.json"}};
    call.timeout = 7000ms;
    call.grace = 1500ms;
    return call;
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A stand-in runtime CLI: logs its arguments and answers `image inspect` and `pull` with the exit
// codes given, writing `stderr_text` on failure.
std::filesystem::path write_fake_runtime(const process::PrivateDir& dir, int inspect_code,
                                         int pull_code) {
    std::ostringstream script;
    script << "#!/bin/sh\n"
           << "echo \"$*\" >> '" << (dir.path() / "calls.log").string() << "'\n"
           << "case \"$*\" in\n"
           << "  *'image inspect'*) [ " << inspect_code
           << " -eq 0 ] || echo 'Error: example/absent:1: image not known' >&2; exit "
           << inspect_code << " ;;\n"
           << "  *pull*) [ " << pull_code
           << " -eq 0 ] || echo 'Error: initializing source: manifest unknown' >&2; exit "
           << pull_code << " ;;\n"
           << "esac\n"
           << "exit 0\n";
    auto path = dir.write_file("fake-runtime", script.str());
    ::chmod(path.c_str(), 0700);
    return path;
}

Args logged_calls(const process::PrivateDir& dir) {
    Args calls;
    std::istringstream in(read_text(dir.path() / "calls.log"));
    for (std::string line; std::getline(in, line);) {
        calls.push_back(line);
    }
    return calls;
}

class ScopedPath {
public:
    explicit ScopedPath(const std::string& value) {
        const char* old = std::getenv("PATH");
        m_old = old != nullptr ? old : "";
        ::setenv("PATH", value.c_str(), 1);
    }
    ~ScopedPath() { ::setenv("PATH", m_old.c_str(), 1); }
    ScopedPath(const ScopedPath&) = delete;
    ScopedPath& operator=(const ScopedPath&) = delete;

private:
    std::string m_old;
};

void write_script(const process::PrivateDir& dir, const std::string& name, int code) {
    auto path = dir.write_file(
        name, "#!/bin/sh\necho 'no engine here' >&2\nexit " + std::to_string(code) + "\n");
    ::chmod(path.c_str(), 0700);
}

}  // namespace

TEST_CASE("native launcher appends the subcommand and the file flags with host paths") {
    auto launcher =
        make_native_launcher({"/opt/source-x", "--verbose"}, {{"TOKEN", "abc"}}, "/srv/work");
    auto spec = launcher->prepare(read_call());
    CHECK(spec.argv == Args{"/opt/source-x", "--verbose", "read", "--config",
                            "/tmp/conform-x/config.json", "--catalog",
                            "/tmp/conform-x/catalog.json"});
    CHECK(spec.env == std::map<std::string, std::string>{{"TOKEN", "abc"}});
    CHECK(spec.working_dir == "/srv/work");
    CHECK(spec.timeout == 7000ms);
    CHECK(spec.grace == 1500ms);
    CHECK(spec.stop_command.empty());
    CHECK(spec.cleanup_command.empty());
}

TEST_CASE("native launcher describes its command line, quoted, without the environment") {
    auto launcher =
        make_native_launcher({"python3", "main.py", "it's here"}, {{"TOKEN", "abc"}}, {});
    CHECK(launcher->describe() == "python3 main.py 'it'\\''s here'");
}

TEST_CASE("native launcher refuses an empty command") {
    CHECK_THROWS_AS(make_native_launcher({}, {}, {}), Error);
}

TEST_CASE("the runtime client runs in a session of its own under a shell that ignores SIGTERM") {
    auto argv = image_launch_spec(podman_settings(), read_call(), "n").argv;
    REQUIRE(argv.size() > 5);
    CHECK(argv[0] == "/bin/sh");
    CHECK(argv[1] == "-c");
    CHECK(argv[2] == "trap '' TERM; setsid \"$@\"");
    CHECK(argv[4] == "podman");
}

TEST_CASE("image run command: runtime, global args, run -i --name (no --rm), image, subcommand") {
    auto spec = image_launch_spec(podman_settings(), read_call(), "conform-1-2-abc");
    const Args argv = client_argv(spec.argv);
    REQUIRE(argv.size() > 8);
    CHECK(Args(argv.begin(), argv.begin() + 6) ==
          Args{"podman", "--storage-driver=vfs", "run", "-i", "--name", "conform-1-2-abc"});
    auto image_at = index_of(argv, "localhost/conform-reference:test");
    REQUIRE(image_at > 0);
    CHECK(argv[image_at + 1] == "read");
    CHECK(contains_pair(argv, "--network", "none"));
    CHECK(index_of(argv, "--network") < image_at);
    CHECK(spec.timeout == 7000ms);
    CHECK(spec.grace == 1500ms);
}

TEST_CASE("image run command mounts input files read-only under /data and rewrites the flags") {
    auto spec = image_launch_spec(podman_settings(), read_call(), "conform-1-2-abc");
    const Args argv = client_argv(spec.argv);
    CHECK(contains_pair(argv, "-v", "/tmp/conform-x/config.json:/data/config.json:ro"));
    CHECK(contains_pair(argv, "-v", "/tmp/conform-x/catalog.json:/data/catalog.json:ro"));
    auto image_at = index_of(argv, "localhost/conform-reference:test");
    CHECK(Args(argv.begin() + image_at + 1, argv.end()) ==
          Args{"read", "--config", "/data/config.json", "--catalog", "/data/catalog.json"});
    CHECK(joined(argv).find("--config /tmp") == std::string::npos);
}

TEST_CASE("input files with the same name get distinct container paths") {
    Call call;
    call.args = {"read"};
    call.file_args = {{"--config", "/tmp/a/input.json"}, {"--state", "/tmp/b/input.json"}};
    auto argv = image_launch_spec(podman_settings(), call, "n").argv;
    CHECK(contains_pair(argv, "-v", "/tmp/a/input.json:/data/input.json:ro"));
    CHECK(contains_pair(argv, "-v", "/tmp/b/input.json:/data/2/input.json:ro"));
    CHECK(contains_pair(argv, "--state", "/data/2/input.json"));
}

TEST_CASE("relative input paths are mounted by their absolute path") {
    Call call;
    call.args = {"check"};
    call.file_args = {{"--config", "secrets/config.json"}};
    auto argv = image_launch_spec(podman_settings(), call, "n").argv;
    auto expected = (std::filesystem::current_path() / "secrets/config.json").string();
    CHECK(contains_pair(argv, "-v", expected + ":/data/config.json:ro"));
}

TEST_CASE("a path with ':' cannot be mounted and is refused as an input error") {
    Call call;
    call.file_args = {{"--config", "/tmp/odd:name/config.json"}};
    try {
        image_launch_spec(podman_settings(), call, "n");
        FAIL("expected an error");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        CHECK(std::string(error.what()).find("/tmp/odd:name") != std::string::npos);
    }
}

TEST_CASE("network on uses the host network; a --network runtime argument replaces ours") {
    auto settings = podman_settings();
    settings.network = true;
    auto argv = image_launch_spec(settings, read_call(), "n").argv;
    CHECK(contains_pair(argv, "--network", "host"));
    CHECK_FALSE(contains_pair(argv, "--network", "none"));

    settings.runtime_args = {"--network=bridge"};
    argv = image_launch_spec(settings, read_call(), "n").argv;
    CHECK(index_of(argv, "--network") == -1);
    CHECK(index_of(argv, "--network=bridge") < index_of(argv, settings.image));
}

TEST_CASE("runtime arguments go after run and before the image; shared dirs mount read-write") {
    auto settings = podman_settings();
    settings.runtime_args = {"--memory", "512m"};
    settings.shared_dirs = {"/tmp/conform-scratch"};
    auto argv = image_launch_spec(settings, read_call(), "n").argv;
    auto memory_at = index_of(argv, "--memory");
    CHECK(memory_at > index_of(argv, "run"));
    CHECK(memory_at < index_of(argv, settings.image));
    CHECK(argv[memory_at + 1] == "512m");
    CHECK(contains_pair(argv, "-v", "/tmp/conform-scratch:/tmp/conform-scratch"));
}

TEST_CASE("environment values reach the runtime client's environment, not its command line") {
    auto settings = podman_settings();
    settings.env = {{"API_TOKEN", "s3cret"}, {"PATH", "/custom/bin"}};
    auto spec = image_launch_spec(settings, read_call(), "n");
    CHECK(contains_pair(spec.argv, "-e", "API_TOKEN"));
    CHECK(spec.env.at("API_TOKEN") == "s3cret");
    CHECK(joined(spec.argv).find("s3cret") == std::string::npos);
    // PATH steers the client itself, so it travels on the command line instead.
    CHECK(contains_pair(spec.argv, "-e", "PATH=/custom/bin"));
    CHECK(spec.env.count("PATH") == 0);
}

TEST_CASE("an environment name with '=' is an input error") {
    auto settings = podman_settings();
    settings.env = {{"A=B", "x"}};
    CHECK_THROWS_AS(image_launch_spec(settings, read_call(), "n"), Error);
}

TEST_CASE("stop and cleanup commands address the container by name with the same global args") {
    auto spec = image_launch_spec(podman_settings(), read_call(), "conform-9-1-ff");
    REQUIRE(spec.stop_command.size() == 10);
    CHECK(spec.stop_command[0] == "/bin/sh");
    CHECK(spec.stop_command[2].find("\"$@\" >/dev/null 2>&1 && exit 0") != std::string::npos);
    CHECK(Args(spec.stop_command.begin() + 4, spec.stop_command.end()) ==
          Args{"podman", "--storage-driver=vfs", "kill", "--signal", "TERM", "conform-9-1-ff"});
    CHECK(spec.cleanup_command ==
          Args{"podman", "--storage-driver=vfs", "rm", "-f", "conform-9-1-ff"});
}

TEST_CASE("container names are unique, start with conform-<pid>- and are valid names") {
    std::set<std::string> names;
    for (int i = 0; i < 100; ++i) {
        names.insert(unique_container_name());
    }
    CHECK(names.size() == 100);
    for (const auto& name : names) {
        CHECK(name.starts_with(container_name_prefix()));
        CHECK(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-") == std::string::npos);
    }
    CHECK(container_name_prefix() == "conform-" + std::to_string(::getpid()) + "-");
}

TEST_CASE("pull policies round-trip through their names") {
    for (PullPolicy policy : {PullPolicy::never, PullPolicy::missing, PullPolicy::always}) {
        CHECK(parse_pull_policy(pull_policy_name(policy)) == policy);
    }
    CHECK_FALSE(parse_pull_policy("sometimes").has_value());
}

TEST_CASE("describe names the runtime and the image but never environment values") {
    process::PrivateDir dir;
    auto settings = podman_settings();
    settings.runtime = write_fake_runtime(dir, 0, 0).string();
    settings.env = {{"API_TOKEN", "s3cret"}};
    auto launcher = make_image_launcher(settings);
    CHECK(launcher->describe() == settings.runtime + " image localhost/conform-reference:test");
    CHECK(launcher->describe().find("s3cret") == std::string::npos);
    settings.network = true;
    CHECK(make_image_launcher(settings)->describe().ends_with("(network on)"));
}

TEST_CASE("pull policy never: an absent image is a clear input error, checked once") {
    process::PrivateDir dir;
    auto settings = podman_settings();
    settings.image = "example/absent:1";
    settings.runtime = write_fake_runtime(dir, 1, 0).string();
    settings.pull = PullPolicy::never;
    auto launcher = make_image_launcher(settings);
    for (int attempt = 0; attempt < 2; ++attempt) {
        try {
            launcher->prepare(read_call());
            FAIL("expected an error");
        } catch (const Error& error) {
            CHECK(error.kind() == ErrorKind::input);
            std::string message = error.what();
            CHECK(message.find("image 'example/absent:1' is not present and the pull policy is "
                               "'never'") != std::string::npos);
            CHECK(message.find("image not known") != std::string::npos);
        }
    }
    auto calls = logged_calls(dir);
    REQUIRE(calls.size() == 1);
    CHECK(calls[0].find("--storage-driver=vfs image inspect") == 0);
    CHECK(calls[0].find("pull") == std::string::npos);
}

TEST_CASE(
    "pull policy missing pulls an absent image once; always pulls first; both then learn its id") {
    process::PrivateDir dir;
    auto settings = podman_settings();
    settings.runtime = write_fake_runtime(dir, 1, 0).string();
    auto launcher = make_image_launcher(settings);
    auto spec = launcher->prepare(read_call());
    CHECK(client_argv(spec.argv)[0] == settings.runtime);
    launcher->prepare(read_call());
    auto calls = logged_calls(dir);
    REQUIRE(calls.size() == 3);
    CHECK(calls[0].find("image inspect") != std::string::npos);
    CHECK(calls[1] == "--storage-driver=vfs pull localhost/conform-reference:test");
    CHECK(calls[2].find("image inspect") != std::string::npos);

    process::PrivateDir always_dir;
    settings.runtime = write_fake_runtime(always_dir, 0, 0).string();
    settings.pull = PullPolicy::always;
    make_image_launcher(settings)->prepare(read_call());
    auto always_calls = logged_calls(always_dir);
    REQUIRE(always_calls.size() == 2);
    CHECK(always_calls[0] == "--storage-driver=vfs pull localhost/conform-reference:test");
    CHECK(always_calls[1].find("image inspect") != std::string::npos);
}

TEST_CASE("a failed pull is an input error carrying the runtime's message") {
    process::PrivateDir dir;
    auto settings = podman_settings();
    settings.runtime = write_fake_runtime(dir, 1, 125).string();
    try {
        make_image_launcher(settings)->prepare(read_call());
        FAIL("expected an error");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        std::string message = error.what();
        CHECK(message.find("could not pull image 'localhost/conform-reference:test' (pull policy "
                           "'missing')") != std::string::npos);
        CHECK(message.find("manifest unknown") != std::string::npos);
    }
}

TEST_CASE("a runtime that cannot be started is a usage error naming it") {
    auto settings = podman_settings();
    settings.runtime = "/nonexistent/conform-runtime";
    try {
        make_image_launcher(settings)->prepare(read_call());
        FAIL("expected an error");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::usage);
        CHECK(std::string(error.what()).find("/nonexistent/conform-runtime") != std::string::npos);
    }
}

TEST_CASE("runtime detection: docker when its engine answers, else podman, else a usage error") {
    process::PrivateDir dir;
    ScopedPath path(dir.path().string());

    write_script(dir, "docker", 0);
    CHECK(detect_runtime() == "docker");

    write_script(dir, "docker", 1);
    write_script(dir, "podman", 0);
    CHECK(detect_runtime() == "podman");

    std::filesystem::remove(dir.path() / "podman");
    try {
        detect_runtime();
        FAIL("expected an error");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::usage);
        std::string message = error.what();
        CHECK(message.find("no engine here") != std::string::npos);
        CHECK(message.find("--container-runtime") != std::string::npos);
    }
}

TEST_CASE("stderr summaries keep the end of long output") {
    std::string text = std::string(1000, 'x') + "\nError: the real reason\n";
    std::string summary = stderr_summary(text);
    CHECK(summary.size() < 500);
    CHECK(summary.ends_with("Error: the real reason"));
    CHECK(stderr_summary("  short\n") == "short");
}

TEST_CASE("image identity: the id, then the first version label that is set") {
    auto both = container::image_identity_from("abc123\t1.2.3\t9.9.9\n");
    CHECK(both.id == "sha256:abc123");
    CHECK(both.version == "1.2.3");
    CHECK(both.version_label == "io.airbyte.version");
    auto oci_only = container::image_identity_from("sha256:abc123\t\t0.4.1\n");
    CHECK(oci_only.id == "sha256:abc123");
    CHECK(oci_only.version == "0.4.1");
    CHECK(oci_only.version_label == "org.opencontainers.image.version");
    auto none = container::image_identity_from("abc123\t<no value>\t\n");
    CHECK(none.id == "sha256:abc123");
    CHECK(none.version.empty());
    CHECK(none.version_label.empty());
    CHECK(container::image_identity_from("abc\t1\t2\nabd\t1\t2\n").id.empty());
    CHECK(container::image_identity_from("abc\n").id.empty());
}

TEST_CASE("native launcher knows no version") {
    auto launcher = container::make_native_launcher({"/bin/true"}, {}, {});
    CHECK(launcher->version().value.empty());
}
