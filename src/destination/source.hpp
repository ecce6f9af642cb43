#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "destination/check.hpp"
#include "destination/test_config.hpp"
#include "engine/run.hpp"
#include "process/process.hpp"

namespace conform::destination {

// Starts one process and feeds its output to the observer until it ends. The default is
// process::run; tests substitute a fake destination that spawns nothing.
using Executor = std::function<process::RunResult(const process::LaunchSpec&, process::Observer&)>;

// The destination scenarios against one Airbyte destination, for the engine's run loop: it writes
// generated (or recorded) input on the destination's stdin, kills and resumes it, reads back what
// landed with the test config's verify command, and judges the checks with the steps their needs
// matched.
class DestinationSource : public engine::ScenarioSource {
public:
    // Throws conform::Error (input) for a catalog or input conform cannot use, or a not_served
    // entry that names no destination check.
    DestinationSource(const TestConfig& config, const Checks& checks, Executor executor = {});
    ~DestinationSource() override;

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

// Runs the destination suite: the engine's loop over a DestinationSource, with the report's
// protocol and test config set.
report::RunReport run_destination_suite(const TestConfig& config, const Checks& checks,
                                        const engine::RunOptions& options,
                                        report::Reporter& reporter, Executor executor = {});

}  // namespace conform::destination
