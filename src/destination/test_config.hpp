#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "config/test_config.hpp"
#include "container/launcher.hpp"

namespace conform::destination {

// What a destination does with a record the configured catalog does not allow, as its test config
// documents it (docs/destinations.md).
enum class Handling {
    keep,   // writes it (possibly with fields nulled) and goes on
    drop,   // leaves it out and goes on
    error,  // emits a TRACE error and exits non-zero
};

std::string_view to_string(Handling handling);

// What `write` reads on stdin.
struct InputSettings {
    std::size_t records_per_stream = 60;
    std::size_t state_every = 10;
    std::string state_type = "STREAM";  // STREAM, GLOBAL or LEGACY
    bool stream_status = true;
    // A recorded source read instead of generated records (and the second sync's, when another).
    std::optional<std::string> recorded_text;
    std::string recorded_origin;
    std::optional<std::string> recorded_second_text;
    std::string recorded_second_origin;
};

// The test config of an Airbyte destination (`"protocol": "airbyte-destination"`,
// schemas/destination-test-config.schema.json).
struct TestConfig {
    std::filesystem::path origin;
    std::filesystem::path base_dir;
    // The known-failures file the test config names (docs/known-failures.md); empty: none.
    std::filesystem::path known_failures;

    std::vector<std::string> command;               // native destination argv
    std::optional<container::ImageSettings> image;  // or an image
    std::map<std::string, std::string> env;
    std::filesystem::path working_dir;

    std::string config_text;  // may contain ${CONFORM_SCRATCH}
    std::optional<std::string> invalid_config_text;
    std::string catalog_text;
    std::string catalog_origin;
    // The spec `spec` must emit (an acceptance-test-config.yml's spec_path).
    std::optional<config::ExpectedSpec> expected_spec;

    // Of a test config mapped from Airbyte's acceptance-test-config.yml (the file; empty
    // otherwise), which tests spec and check only: why there is no config (only spec runs) and
    // why no catalog (nothing is written); the scenarios that need them are skipped with these.
    std::filesystem::path acceptance_test_config;
    std::optional<std::string> no_config;
    std::optional<std::string> no_catalog;
    // The keys of the acceptance-test-config.yml conform cannot honour, one line each.
    std::vector<std::string> warnings;

    InputSettings input;
    std::vector<std::string> write_args;
    std::vector<std::string> verify_command;  // empty: the data checks are skipped
    std::map<std::string, std::string> verify_env;
    // Check id -> why the mode under test cannot serve it.
    std::map<std::string, std::string, std::less<>> not_served;
    bool refreshes = true;
    Handling unknown_stream = Handling::drop;
    Handling schema_violation = Handling::keep;
    std::size_t kill_after_echo = 2;
    std::chrono::milliseconds end_input_after{5'000};

    std::chrono::milliseconds spec_timeout{30'000};
    std::chrono::milliseconds check_timeout{30'000};
    std::chrono::milliseconds write_timeout{300'000};
    std::chrono::milliseconds verify_timeout{60'000};
    std::chrono::milliseconds grace{5'000};
};

// True when the JSON file at `path` says "protocol": "airbyte-destination". False for any other
// file, including one that cannot be read or parsed.
bool is_destination_test_config(const std::filesystem::path& path);

// Loads and checks a destination's test config. Throws conform::Error (input) listing every
// problem with its line.
TestConfig load_test_config(const std::filesystem::path& path);

// True when the acceptance-test-config.yml at `path` is a destination's: its connector_image
// names a destination-* image, or the metadata.yaml beside it says connectorType: destination.
bool is_destination_acceptance_test_config(const std::filesystem::path& path);

// A destination's acceptance-test-config.yml as its test config: the spec and connection tests
// (docs/acceptance-test-config.md, "Destinations"), with a warning for each key conform cannot
// honour.
TestConfig load_acceptance_test_config(const std::filesystem::path& path);

}  // namespace conform::destination
