#pragma once

#include <string>
#include <vector>

#include "config/test_config.hpp"
#include "suite/runner.hpp"
#include "suite/scenario.hpp"

namespace conform::cli {

// `conform run --dry-run`: prints the scenarios the selection and shard leave, their steps, the
// connector runs each step makes and the checks that would be judged; starts no connector.
// Returns the exit code: 0, or 5 when nothing would run.
int dry_run_command(const std::vector<suite::Scenario>& scenarios, const suite::RunOptions& options,
                    const config::TestConfig& config);

}  // namespace conform::cli
