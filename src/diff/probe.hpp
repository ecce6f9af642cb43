#pragma once

#include <memory>
#include <optional>
#include <string>

#include "config/test_config.hpp"
#include "diff/records.hpp"

namespace conform::diff {

// What one version of a connector answered to the plain commands the diff compares.
struct VersionAnswers {
    std::optional<std::string> spec;     // connectionSpecification, canonical JSON
    std::optional<std::string> catalog;  // the discovered catalog, canonical JSON
    std::string read_catalog;            // the configured catalog its read was given
    ReadCapture read;
    std::string read_failure;  // empty when the read exited 0
};

// Runs `spec`, `discover` and `read` of one connector version (native or image) with the test
// config's connector config, in a private folder of its own.
class VersionProbe {
public:
    explicit VersionProbe(const config::TestConfig& config);
    ~VersionProbe();

    // spec, discover, then a read of the test config's catalog restricted to the streams this
    // version discovers (or, without one, of every discovered stream in full_refresh).
    VersionAnswers answer();
    // A read of `catalog_json`, resumed from `state_text` when given. `failure` says how the
    // read ended when it did not exit 0, else it is empty.
    ReadCapture read(const std::string& catalog_json, const std::string* state_text,
                     std::string& failure);
    std::string describe() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace conform::diff
