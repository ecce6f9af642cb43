#pragma once

#include <memory>
#include <optional>
#include <string>

#include "config/test_config.hpp"
#include "diff/records.hpp"
#include "diff/schema_diff.hpp"

namespace conform::diff {

// What one version of a connector answered to the plain commands the diff compares.
struct VersionAnswers {
    std::optional<std::string> spec;     // connectionSpecification, canonical JSON
    std::optional<std::string> catalog;  // the discovered catalog, canonical JSON
    std::string read_catalog;            // the configured catalog its read was given
    ReadCapture read;
    std::string read_failure;  // empty when the read exited 0
};

// The catalog a version's read is given: the test config's catalog without the streams
// `discovered_json` lacks, a renamed stream's entry taken over by its new name (with its new
// stream object); without a catalog in the test config, every discovered stream in full_refresh.
std::string catalog_for(const config::TestConfig& config, const std::string& discovered_json,
                        const std::vector<StreamRename>& renames = {});

// The catalog the state comparison reads and resumes. With a catalog in the test config, the one
// catalog_for gives. Without one: every stream of `control_discovered_json` that supports
// incremental with a cursor the source defines or defaults, incremental (the Airbyte CDK gives no
// state to a full-refresh stream, so resuming one tests nothing), the others full_refresh; then
// restricted to the streams of `discovered_json`, as catalog_for restricts the test config's.
std::string state_catalog_for(const config::TestConfig& config,
                              const std::string& control_discovered_json,
                              const std::string& discovered_json,
                              const std::vector<StreamRename>& renames = {});

// The stream names of a configured catalog, by its sync mode.
struct StreamsBySyncMode {
    std::vector<std::string> incremental;
    std::vector<std::string> full_refresh;
};
StreamsBySyncMode streams_by_sync_mode(const std::string& configured_json);

// Runs `spec`, `discover` and `read` of one connector version (native or image) with the test
// config's connector config, in a private folder of its own.
class VersionProbe {
public:
    explicit VersionProbe(const config::TestConfig& config);
    ~VersionProbe();

    // spec, discover, then a read of the test config's catalog restricted to the streams this
    // version discovers (or, without one, of every discovered stream in full_refresh).
    VersionAnswers answer();
    // Only spec and discover: `read_catalog` is set (catalog_for), `read` is not made.
    VersionAnswers discover();
    // The read of `answers.read_catalog`, into `answers`.
    void read_into(VersionAnswers& answers);
    // A read of `catalog_json`, resumed from `state_text` when given. `failure` says how the
    // read ended when it did not exit 0, with the connector's own error message when it wrote
    // one (a TRACE error, an ERROR log or the last line of stderr); else it is empty.
    ReadCapture read(const std::string& catalog_json, const std::string* state_text,
                     std::string& failure);
    std::string describe() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace conform::diff
