#pragma once

#include <filesystem>
#include <string>
#include <vector>

// Airbyte's acceptance-test-config.yml (docs/acceptance-test-config.md), current and legacy
// formats, read as a conform test config.
namespace conform::config {

struct AcceptanceMapping {
    // A conform test config (schemas/test-config.schema.json) as JSON text, its paths absolute.
    std::string test_config_json;
    // One line per key conform cannot honour: "FILE:LINE: KEY: why".
    std::vector<std::string> warnings;
    // Why the file gives no connector config ("" when it gives one): a file that tests spec only
    // maps to a test config without "config", whose other scenarios are skipped with this reason.
    std::string no_config;
    // The file tests a destination (a destination-* image, or connectorType: destination in the
    // metadata.yaml beside it): test_config_json is then a destination test config
    // (schemas/destination-test-config.schema.json) of its spec and connection tests.
    bool destination = false;
    // Every configured catalog the file names, in order, absolute (the test config's "catalog" is
    // the first): more than one is read as one catalog by merge_configured_catalogs.
    std::vector<std::string> catalogs;
};

// The configured catalogs `texts` (named `origins`) as one: every stream of each, in order of first
// appearance, the first entry of a stream kept unless a later catalog configures it incrementally
// (a basic_read catalog reads a stream in full refresh that the incremental tests' catalog reads
// incrementally: conform runs every scenario with one catalog). Throws conform::Error (input)
// naming the file that is not a configured catalog.
std::string merge_configured_catalogs(const std::vector<std::string>& texts,
                                      const std::vector<std::string>& origins);

// Maps the YAML `text` of an acceptance-test-config.yml (named `origin`, its paths relative to
// `base_dir`, the connector's folder) to a conform test config. Throws conform::Error (input) for
// text that is not YAML or breaks schemas/acceptance-test-config.schema.json, naming the line.
AcceptanceMapping map_acceptance_test_config(const std::string& text, const std::string& origin,
                                             const std::filesystem::path& base_dir);

// Reads the file at `path` with map_acceptance_test_config (base: its folder).
AcceptanceMapping read_acceptance_test_config(const std::filesystem::path& path);

}  // namespace conform::config
