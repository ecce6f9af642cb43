#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/manifest.hpp"
#include "container/launcher.hpp"

namespace conform::config {

using Projections = std::vector<std::pair<std::string, std::string>>;

// TestConfig::origin of a run given by flags only, without a test config file.
inline constexpr std::string_view k_command_line_origin = "<command line>";

// Which checkpoints a resuming step starts from: every one up to `max`, evenly spaced beyond it;
// or, with the older `sample` key, first, middle, last and `sample` evenly spaced ones.
struct ResumeSampling {
    static constexpr std::size_t k_default_max = 20;
    std::size_t max = k_default_max;
    std::optional<std::size_t> sample;
};

// The spec `spec` must emit (Airbyte's spec_path): the file's content as JSON (a YAML file read as
// JSON), and the file. Of a low-code manifest only the connection specification is kept, and only
// it is compared.
struct ExpectedSpec {
    std::string json;
    std::string origin;
    bool connection_only = false;
    std::string as_named;  // the path as the test config names it, for reports
};

// The expected spec in the file at `path` (named `as_named` in reports): a connector
// specification in JSON or YAML, or a low-code manifest. Throws conform::Error (input) for a file
// that is neither.
ExpectedSpec read_expected_spec(const std::filesystem::path& path, const std::string& as_named);

// How to run one connector and what to expect of it: a test config file (schema in
// schemas/test-config.schema.json), or the same built from command-line flags.
struct TestConfig {
    std::filesystem::path origin;  // the file, or "<command line>"
    std::filesystem::path base_dir;
    // Every file a test config file made conform read: itself, the connector configs, the
    // catalog, the expected records (no report may overwrite one). Empty for flags.
    std::vector<std::filesystem::path> files;

    std::vector<std::string> command;               // native connector argv
    std::optional<container::ImageSettings> image;  // or an image
    std::map<std::string, std::string> env;
    std::filesystem::path working_dir;
    // A manifest-only connector's manifest, for a generic runner (docs/manifest-only.md).
    std::optional<Manifest> manifest;
    // The manifest.yaml beside an acceptance-test-config.yml whose metadata.yaml says the
    // connector is manifest-only: a run given no manifest says to give it.
    std::optional<std::filesystem::path> manifest_beside;

    std::string config_text;  // may contain ${CONFORM_SCRATCH}
    // Why there is no connector config (an acceptance-test-config.yml that tests spec only): the
    // scenarios that run more than spec are skipped with it, and config_text is "{}".
    std::optional<std::string> no_config;
    std::optional<std::string> invalid_config_text;
    std::optional<std::string> catalog_text;
    // The state `read-from-future-state` reads from (Airbyte's abnormal_state.json), instead of
    // the connector's final state with its cursors moved ahead; and its file.
    std::optional<std::string> future_state_text;
    std::string future_state_origin;
    using ExpectedSpec = config::ExpectedSpec;
    std::optional<ExpectedSpec> expected_spec;
    std::vector<std::string> extensions;
    // Configured streams allowed to emit no record in a read (Airbyte's empty_streams).
    std::vector<std::string> empty_streams;
    std::map<std::string, std::vector<std::string>> volatile_fields;
    // Streams that emit every record again on each read by design (a heartbeat, a snapshot with
    // a fresh cursor): their re-emissions after a resume are not findings (X-STATE-3).
    std::vector<std::string> reemitting_streams;

    struct ExpectedRecord {
        std::string stream;
        std::string data_json;
        std::size_t line;
    };
    std::vector<ExpectedRecord> expected_records;
    bool expected_exact = false;
    // Each stream's first records are its expected records, in the file's order (Airbyte's
    // exact_order).
    bool expected_in_order = false;
    std::string expected_origin;

    std::chrono::milliseconds spec_timeout{30'000};
    std::chrono::milliseconds check_timeout{30'000};
    std::chrono::milliseconds discover_timeout{60'000};
    std::chrono::milliseconds read_timeout{300'000};
    std::chrono::milliseconds grace{5'000};
    // The known-failures file the test config names (docs/known-failures.md); empty: none.
    std::filesystem::path known_failures;
    // The keys of an acceptance-test-config.yml conform cannot honour, one line each
    // (docs/acceptance-test-config.md): reported once before the run.
    std::vector<std::string> warnings;

    ResumeSampling resume;
    std::optional<std::string> merge_config_text;
    std::optional<std::string> full_state_config_text;
    bool states_are_patches = false;

    std::vector<std::string> inject_command;
    std::chrono::milliseconds inject_after{500};
    std::chrono::milliseconds observe{2'000};
    std::chrono::milliseconds tail_wait{60'000};  // longest wait for each tail event

    std::map<std::string, Projections> projections;

    // Breaking differences a reviewer accepted for `conform diff` (docs/regression.md).
    struct AcceptedChange {
        std::string change;
        std::string where;  // empty: everywhere
        std::string reason;
    };
    std::vector<AcceptedChange> accepted_changes;

    bool claims(std::string_view extension) const;

    // A rendered connector config as the connector reads it: with the manifest injected when the
    // test config names one.
    std::string for_connector(const std::string& rendered_config) const {
        return manifest ? with_manifest(*manifest, rendered_config) : rendered_config;
    }

    // Given by flags only (--connector/--image and --config), not by a test config file.
    bool from_flags() const { return origin == k_command_line_origin; }

    // Says that the setting `key` is missing ("invalid_config", "inject_command", "claims:tail"...)
    // in the terms the user gave the others in: the test config's key, or the flag of a flags-only
    // run (and that a test config is needed where no flag says it).
    std::string lacks(std::string_view key) const;
};

// Loads and validates a test config file. Throws conform::Error (input) naming the file, the line
// and the field, and what was expected, for every problem found. The files it names are read
// (each at most k_max_input_file_bytes; expected records at most 256 MiB) and their JSON syntax
// checked, so that a syntax error names the file that has it; a connector config's error never
// shows its line, which may hold a secret.
// A test config that names an "acceptance_test_config" is that file's mapping with the test
// config's own keys over it, and its warnings.
TestConfig load_test_config(const std::filesystem::path& path);

// Airbyte's acceptance-test-config.yml at `path` as a test config (docs/acceptance-test-config.md),
// with a warning for each key conform cannot honour.
TestConfig load_acceptance_test_config(const std::filesystem::path& path);

// What a JSON input file holds: a connector config holds secrets, so its syntax errors never show
// the line.
enum class Holds { data, secrets };

// The text of the JSON file `path` (read as read_text_file reads it), once its syntax is known to
// be right. Throws conform::Error (input) naming the file, line and column of a syntax error,
// with the line only for Holds::data. For files named by flags as for those a test config names.
std::string read_json_file(const std::filesystem::path& path, Holds holds);

// Splits a command line into argv the way a POSIX shell would for words and quotes (no
// expansion). Throws conform::Error (usage) on an unterminated quote.
std::vector<std::string> split_command_line(std::string_view command_line);

}  // namespace conform::config
