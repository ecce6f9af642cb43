#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "meltano/test_config.hpp"
#include "process/workdir.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::meltano;

namespace {

std::filesystem::path write(const process::PrivateDir& dir, const std::string& text) {
    return dir.write_file("extension.json", text);
}

std::string load_error(const std::string& text) {
    process::PrivateDir dir;
    try {
        load_test_config(write(dir, text));
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("meltano test config: a full config loads with defaults filled in") {
    process::PrivateDir dir;
    auto path = write(dir, R"({
        "protocol": "meltano-extension",
        "extension": {"name": "airflow", "invoker": true, "wrapped": "airflow",
                      "path": ["bin"], "env": {"A": "1"}, "secret_env": ["A"]},
        "commands": [{"name": "version", "executable": "invoker", "args": ["version"]},
                     {"name": "test", "args": ["invoke", "test"], "exit": 0},
                     {"name": "other", "executable": "dbt", "args": [], "exit": 2}],
        "logging": {"levels": false},
        "timeouts": {"stdin": 2.5}
    })");
    CHECK(is_meltano_test_config(path));
    auto config = load_test_config(path);
    CHECK(config.extension_executable == "airflow_extension");
    CHECK(config.invoker == "airflow_invoker");
    CHECK(config.wrapped == "airflow");
    REQUIRE(config.path.size() == 1);
    CHECK(config.path[0] == dir.path() / "bin");
    CHECK(config.env.at("A") == "1");
    CHECK(config.secret_env == std::vector<std::string>{"A"});
    REQUIRE(config.commands.size() == 3);
    CHECK(config.commands[0].executable == "airflow_invoker");
    CHECK(config.commands[1].executable == "airflow_extension");
    CHECK(config.commands[2].executable == "dbt");
    CHECK(config.commands[2].exit_code == 2);
    CHECK_FALSE(config.log_levels);
    CHECK(config.log_timestamps);
    CHECK(config.stdin_timeout == std::chrono::milliseconds(2500));
    CHECK_FALSE(config.image);
}

TEST_CASE("meltano test config: executables named as the extension ships them (cron-ext)") {
    process::PrivateDir dir;
    auto config = load_test_config(write(dir, R"({
        "protocol": "meltano-extension",
        "extension": {"name": "cron", "executable": "cron", "invoker": "cron_wrapper"},
        "commands": [{"name": "list", "args": ["list"], "result_on_stdout": true},
                     {"name": "run", "executable": "invoker", "args": ["x"]}]
    })"));
    CHECK(config.extension_executable == "cron");
    CHECK(config.invoker == "cron_wrapper");
    CHECK(config.commands[0].executable == "cron");
    CHECK(config.commands[0].result_on_stdout);
    CHECK(config.commands[1].executable == "cron_wrapper");
    CHECK_FALSE(config.commands[1].result_on_stdout);
    CHECK(load_error(R"({"protocol": "meltano-extension",
        "extension": {"name": "cron", "executable": "bin/cron"}})")
              .find("/extension/executable") != std::string::npos);
}

TEST_CASE("meltano test config: an image config") {
    process::PrivateDir dir;
    auto config = load_test_config(write(dir, R"({
        "protocol": "meltano-extension",
        "extension": {"name": "x", "image": "localhost/x:1", "runtime": "podman",
                      "pull": "never", "global_args": ["--storage-driver=vfs"]}
    })"));
    REQUIRE(config.image);
    CHECK(config.image->image == "localhost/x:1");
    CHECK(config.image->pull == container::PullPolicy::never);
    CHECK_FALSE(config.invoker);
}

TEST_CASE(
    "meltano test config: connector test configs and unreadable files are not extension ones") {
    process::PrivateDir dir;
    CHECK_FALSE(is_meltano_test_config(write(dir, R"({"connector": {"command": ["x"]}})")));
    CHECK_FALSE(is_meltano_test_config(write(dir, "not json")));
    CHECK_FALSE(is_meltano_test_config(dir.path() / "missing.json"));
    CHECK_FALSE(is_meltano_test_config(""));
}

TEST_CASE("meltano test config: every problem is listed with its line and pointer") {
    const std::string head = R"({"protocol": "meltano-extension", )";
    CHECK(load_error(head + R"("extension": {}})").find("/extension: ") != std::string::npos);
    auto unknown = load_error(head + "\n" + R"("extension": {"name": "x", "nmae": 1}})");
    CHECK(unknown.find("extension.json:2: /extension") != std::string::npos);
    CHECK(unknown.find("nmae") != std::string::npos);
    CHECK(load_error(head + R"("extension": {"name": "a b"}})").find("/extension/name") !=
          std::string::npos);
    CHECK(load_error(head + R"("extension": {"name": "x"}, "commands": [{"name": "c",
          "executable": "invoker"}]})")
              .find("/commands/0/executable: \"invoker\" needs") != std::string::npos);
    CHECK(load_error(head + R"("extension": {"name": "x"}, "commands": [{"name": "c",
          "exit": 300}]})")
              .find("/commands/0/exit") != std::string::npos);
    CHECK(load_error(head + R"("extension": {"name": "x"}, "timeouts": {"stdin": 0}})")
              .find("/timeouts/stdin") != std::string::npos);
    CHECK(load_error(head + R"("extension": {"name": "x", "wrapped": "/bin/x"}})")
              .find("/extension/wrapped") != std::string::npos);
    CHECK(load_error(R"({"protocol": "airbyte", "extension": {"name": "x"}})").find("/protocol") !=
          std::string::npos);
    CHECK(load_error(head + R"("extension": {"name": "x", "image": "i", "path": ["bin"]}})")
              .find("/extension/path: not used with an image") != std::string::npos);
}

TEST_CASE("meltano test config: every schema problem is reported at once, not the first only") {
    auto message = load_error(R"({"protocol": "meltano-extension",
        "extension": {"name": "x", "pull": "sometimes"},
        "logging": {"levels": "yes"}})");
    CHECK(message.find("/extension/pull") != std::string::npos);
    CHECK(message.find("/logging/levels") != std::string::npos);
}
