#pragma once

#include <memory>

#include "engine/run.hpp"
#include "process/process.hpp"
#include "singer/check.hpp"
#include "singer/test_config.hpp"

namespace conform::singer {

// Starts one process; tests substitute a fake tap that spawns nothing.
using Executor = process::Executor;

// The Singer scenarios against one tap, for the engine's run loop: it asks for --about and
// discovers the catalog once; each scenario's steps run the tap with catalogs, states and configs
// conform writes, and the checks are judged on the steps their needs matched.
std::unique_ptr<engine::ScenarioSource> make_singer_source(const TestConfig& config,
                                                           const Checks& checks,
                                                           Executor executor = {});

// Runs the Singer suite: the engine's loop over the Singer source, the report in Singer's terms.
report::RunReport run_singer_suite(const TestConfig& config, const Checks& checks,
                                   const engine::RunOptions& options, report::Reporter& reporter,
                                   Executor executor = {});

}  // namespace conform::singer
