#pragma once

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

// Starts one process; tests substitute a fake that answers with canned NDJSON and spawns nothing.
using Executor = process::Executor;

struct SourceOptions {
    protocol::KeySpelling spelling = protocol::KeySpelling::estuary;
    Executor executor;  // empty: process::run
};

// The Airbyte-protocol scenarios against one connector, for the engine's run loop: it sets up
// (spec for the secrets, the catalog), runs each scenario's steps, judges the checks with the
// steps their needs matched, and reports progress to `progress` as runs go.
std::unique_ptr<engine::ScenarioSource> make_airbyte_source(const config::TestConfig& test_config,
                                                            std::vector<Scenario> scenarios,
                                                            const Checks& checks,
                                                            SourceOptions options,
                                                            report::Reporter& progress);

// The scenarios and checks as the engine's run loop sees them.
std::vector<engine::ScenarioHeader> headers_of(const std::vector<Scenario>& scenarios);

// Runs `scenarios` against the connector of `test_config`: the engine's loop over the Airbyte
// source, with the run report's Airbyte fields (test config, claimed extensions) set.
report::RunReport run_suites(const config::TestConfig& test_config, std::vector<Scenario> scenarios,
                             const Checks& checks, const engine::RunOptions& options,
                             SourceOptions source_options, report::Reporter& reporter);

// The extension a scenario certifies (its "claims:" requirement); empty for the core protocol.
std::string certified_extension(const Scenario& scenario);

}  // namespace conform::suite
