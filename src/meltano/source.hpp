#pragma once

#include <memory>

#include "engine/run.hpp"
#include "meltano/check.hpp"
#include "meltano/session.hpp"
#include "meltano/test_config.hpp"

namespace conform::meltano {

// The Meltano extension scenarios against one extension, for the engine's run loop: it runs each
// scenario's steps through a Session and judges the checks with the steps their needs matched.
std::unique_ptr<engine::ScenarioSource> make_meltano_source(const TestConfig& config,
                                                            const Checks& checks,
                                                            Executor executor = {});

// Runs the extension suite: the engine's loop over the extension source, with the report's
// protocol and test config set.
report::RunReport run_extension_suite(const TestConfig& config, const Checks& checks,
                                      const engine::RunOptions& options, report::Reporter& reporter,
                                      Executor executor = {});

}  // namespace conform::meltano
