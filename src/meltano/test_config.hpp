#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "container/launcher.hpp"

namespace conform::meltano {

// A command the test config says is safe to run, as a meltano.yml `commands:` entry would run it:
// an executable (the extension, the invoker or any name) with arguments and an expected exit code.
struct ConfiguredCommand {
    std::string name;
    std::string executable;  // resolved: "<name>_extension", "<name>_invoker" or as given
    std::vector<std::string> args;
    int exit_code = 0;
    std::map<std::string, std::string> env = {};  // on top of the extension's, for this command
    bool result_on_stdout = false;                // what it prints on stdout is its result
};

// The test config of a Meltano extension (`"protocol": "meltano-extension"`, docs/meltano.md).
struct TestConfig {
    std::filesystem::path origin;
    std::filesystem::path base_dir;

    std::string name;                         // "airflow": airflow_extension, airflow_invoker
    std::string extension_executable;         // "<name>_extension"
    std::optional<std::string> invoker;       // "<name>_invoker" when the extension ships one
    std::string wrapped;                      // the program `invoke`/the invoker run, on PATH
    std::vector<std::filesystem::path> path;  // folders put first on PATH (absolute)
    std::map<std::string, std::string> env;
    // Environment variables (from `env` or conform's own environment) whose values are secrets:
    // masked in every report.
    std::vector<std::string> secret_env;
    std::optional<container::ImageSettings> image;

    std::vector<ConfiguredCommand> commands;

    // What the extension's logs carry when conform sets LOG_LEVELS/LOG_TIMESTAMPS=true, and
    // whether it supports MELTANO_LOG_JSON=true.
    bool log_levels = true;
    bool log_timestamps = true;
    bool log_json = true;

    std::chrono::milliseconds command_timeout{60'000};
    std::chrono::milliseconds stdin_timeout{10'000};
    std::chrono::milliseconds grace{2'000};
    // The known-failures file the test config names (docs/known-failures.md); empty: none.
    std::filesystem::path known_failures;
};

// True when the JSON file at `path` is a Meltano extension's test config (its "protocol" is
// "meltano-extension"). False for any other file, including one that cannot be read as an input
// (missing, a folder, a device such as /dev/zero, larger than an input may be: read_text_file
// refuses it without reading it whole) or parsed (the connector test config loader then
// reports the problem).
bool is_meltano_test_config(const std::filesystem::path& path);

// Loads and checks a Meltano extension's test config (schemas/meltano-test-config.schema.json).
// Throws conform::Error (input) listing every problem with its line.
TestConfig load_test_config(const std::filesystem::path& path);

}  // namespace conform::meltano
