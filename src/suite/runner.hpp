#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/test_config.hpp"
#include "engine/run.hpp"
#include "process/process.hpp"
#include "protocol/catalog.hpp"
#include "report/model.hpp"
#include "suite/check.hpp"
#include "suite/scenario.hpp"

namespace conform::suite {

// Starts one process and feeds its output to the observer until it ends. The default is
// process::run; tests substitute a fake that answers with canned NDJSON and spawns nothing.
using Executor = std::function<process::RunResult(const process::LaunchSpec&, process::Observer&)>;

struct SourceOptions {
    protocol::KeySpelling spelling = protocol::KeySpelling::estuary;
    Executor executor;  // empty: process::run
};

// The Airbyte-protocol scenarios against one connector, for the engine's run loop: it sets up
// (spec for the secrets, the catalog), runs each scenario's steps, judges the checks with the
// steps their needs matched, and reports progress to `progress` as runs go.
class AirbyteSource : public engine::ScenarioSource {
public:
    AirbyteSource(const config::TestConfig& test_config, std::vector<Scenario> scenarios,
                  const Checks& checks, SourceOptions options, report::Reporter& progress);
    ~AirbyteSource() override;

    const std::vector<engine::ScenarioHeader>& scenarios() const override;
    void prepare() override;
    engine::Target target() const override;
    report::ScenarioResult run(std::size_t index, const std::vector<std::string>& checks,
                               bool strict) override;
    engine::PlannedScenario plan(std::size_t index) const override;
    std::string mask(std::string_view text) const override;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The scenarios and checks as the engine's run loop sees them.
std::vector<engine::ScenarioHeader> headers_of(const std::vector<Scenario>& scenarios);

// Runs `scenarios` against the connector of `test_config`: the engine's loop over an
// AirbyteSource, with the run report's Airbyte fields (test config, claimed extensions) set.
report::RunReport run_suites(const config::TestConfig& test_config, std::vector<Scenario> scenarios,
                             const Checks& checks, const engine::RunOptions& options,
                             SourceOptions source_options, report::Reporter& reporter);

// The extension a scenario certifies (its "claims:" requirement); empty for the core protocol.
std::string certified_extension(const Scenario& scenario);

}  // namespace conform::suite
