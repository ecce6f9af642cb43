#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "destination/test_config.hpp"
#include "process/workdir.hpp"
#include "util/error.hpp"

using namespace conform;
using namespace conform::destination;

namespace {

std::string load_error(const process::PrivateDir& dir, const std::string& text) {
    try {
        load_test_config(dir.write_file("destination.json", text));
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    return "";
}

}  // namespace

TEST_CASE("destination test config: a full config loads with its files read") {
    process::PrivateDir dir;
    dir.write_file("config.json", R"({"path": "${CONFORM_SCRATCH}"})");
    dir.write_file("catalog.json", R"({"streams": []})");
    dir.write_file("read.jsonl", "{}\n");
    auto path = dir.write_file("destination.json", R"({
        // comments are allowed
        "protocol": "airbyte-destination",
        "destination": {"command": "node main.js", "env": {"A": "1"}},
        "config": "config.json",
        "catalog": "catalog.json",
        "input": {"recorded": "read.jsonl", "state_type": "LEGACY"},
        "write": {"args": ["--dry-run"]},
        "verify": {"command": ["./verify.sh", "${CONFORM_SCRATCH}"]},
        "not_served": {"dst.resume_no_loss": "a dry run writes nothing"},
        "refreshes": false,
        "invalid_records": {"unknown_stream": "error", "schema_violation": "drop"},
        "kill": {"after_echo": 3, "end_input_after_seconds": 0.5},
        "timeouts": {"write": 12}
    })");
    CHECK(is_destination_test_config(path));
    auto config = load_test_config(path);
    CHECK(config.command == std::vector<std::string>{"node", "main.js"});
    CHECK(config.env.at("A") == "1");
    CHECK(config.config_text == R"({"path": "${CONFORM_SCRATCH}"})");
    CHECK(config.input.recorded_text == "{}\n");
    CHECK(config.input.state_type == "LEGACY");
    CHECK(config.write_args == std::vector<std::string>{"--dry-run"});
    CHECK(config.verify_command.front() == (dir.path() / "verify.sh").string());
    CHECK(config.verify_command.back() == "${CONFORM_SCRATCH}");
    CHECK(config.not_served.at("dst.resume_no_loss") == "a dry run writes nothing");
    CHECK_FALSE(config.refreshes);
    CHECK(config.unknown_stream == Handling::error);
    CHECK(config.schema_violation == Handling::drop);
    CHECK(config.kill_after_echo == 3);
    CHECK(config.end_input_after == std::chrono::milliseconds(500));
    CHECK(config.write_timeout == std::chrono::milliseconds(12'000));
    CHECK(config.spec_timeout == std::chrono::milliseconds(30'000));
}

TEST_CASE("destination test config: problems name the line and what was expected") {
    process::PrivateDir dir;
    auto missing = load_error(dir, R"({"protocol": "airbyte-destination",
        "destination": {"command": ["x"]}, "config": "c.json"})");
    CHECK(missing.find("catalog") != std::string::npos);
    auto wrong = load_error(dir, R"({"protocol": "airbyte-destination",
        "destination": {"command": ["x"]}, "config": "c.json", "catalog": "k.json",
        "invalid_records": {"unknown_stream": "keep"}})");
    CHECK(wrong.find(":3:") != std::string::npos);
    CHECK(wrong.find("/invalid_records/unknown_stream") != std::string::npos);
}

TEST_CASE("destination test config: other files are not destination test configs") {
    process::PrivateDir dir;
    CHECK_FALSE(is_destination_test_config(
        dir.write_file("a.json", R"({"protocol": "meltano-extension"})")));
    CHECK_FALSE(is_destination_test_config(dir.write_file("b.json", "not json")));
    CHECK_FALSE(is_destination_test_config(dir.path() / "absent.json"));
    CHECK_FALSE(is_destination_test_config(""));
}
