#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace conform::config {

// The key under which Airbyte's generic runner of low-code connectors (source-declarative-manifest,
// and the CDK's CLI of that name) reads the manifest from the connector config.
inline constexpr const char* k_injected_manifest_key = "__injected_declarative_manifest";

// A manifest-only (low-code) connector's manifest.yaml, run by a generic runner: conform gives it
// to the connector inside every config, and takes the connector's spec from its `spec` section,
// since the runner's own `spec` prints the runner's generic spec (docs/manifest-only.md).
struct Manifest {
    std::string json;           // the whole manifest, as JSON
    std::string spec_message;   // a SPEC message built from the `spec` section as the CDK builds it
    std::string origin;         // the file
    std::string as_named;       // the path as the test config or flag names it, for reports
    std::size_t spec_line = 0;  // the line of the `spec` section in the file
};

// Reads a manifest (YAML or JSON). Throws conform::Error (input) naming the file for text that is
// not YAML, a manifest that is not a mapping, or one without spec.connection_specification.
Manifest read_manifest(const std::filesystem::path& path, std::string as_named);

// `config_json`, a rendered connector config, as the runner reads it: with the manifest under
// k_injected_manifest_key (replacing one the config gives). A config that is not a JSON object
// (an invalid config may be anything) is left as it is.
std::string with_manifest(const Manifest& manifest, const std::string& config_json);

// The manifest.yaml of the connector folder `folder` when its metadata.yaml tags it
// language:manifest-only (as Airbyte's monorepo does), or nothing (also for a metadata.yaml that
// cannot be read: this only decides whether to give a hint).
std::optional<std::filesystem::path> manifest_only_manifest(const std::filesystem::path& folder);

}  // namespace conform::config
