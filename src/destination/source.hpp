#pragma once

#include <memory>

#include "destination/check.hpp"
#include "destination/test_config.hpp"
#include "engine/run.hpp"
#include "process/process.hpp"

namespace conform::destination {

// Starts one process; tests substitute a fake destination that spawns nothing.
using Executor = process::Executor;

// The destination scenarios against one Airbyte destination, for the engine's run loop: it writes
// generated (or recorded) input on the destination's stdin, kills and resumes it, reads back what
// landed with the test config's verify command, and judges the checks with the steps their needs
// matched. Throws conform::Error (input) for a catalog or input conform cannot use, or a
// not_served entry that names no destination check.
std::unique_ptr<engine::ScenarioSource> make_destination_source(const TestConfig& config,
                                                                const Checks& checks,
                                                                Executor executor = {});

// Runs the destination suite: the engine's loop over the destination source, with the report's
// protocol and test config set.
report::RunReport run_destination_suite(const TestConfig& config, const Checks& checks,
                                        const engine::RunOptions& options,
                                        report::Reporter& reporter, Executor executor = {});

}  // namespace conform::destination
