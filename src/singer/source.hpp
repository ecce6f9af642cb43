#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/run.hpp"
#include "process/process.hpp"
#include "singer/check.hpp"
#include "singer/test_config.hpp"

namespace conform::singer {

// Starts one process and feeds its stdout to the observer until it ends. The default is
// process::run; tests substitute a fake tap that spawns nothing.
using Executor = std::function<process::RunResult(const process::LaunchSpec&, process::Observer&)>;

// The Singer scenarios against one tap, for the engine's run loop: `prepare` asks for --about and
// discovers the catalog once; each scenario's steps run the tap with catalogs, states and configs
// conform writes, and the checks are judged on the steps their needs matched.
class SingerSource : public engine::ScenarioSource {
public:
    SingerSource(const TestConfig& config, const Checks& checks, Executor executor = {});
    ~SingerSource() override;

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

// Runs the Singer suite: the engine's loop over a SingerSource, the report in Singer's terms.
report::RunReport run_singer_suite(const TestConfig& config, const Checks& checks,
                                   const engine::RunOptions& options, report::Reporter& reporter,
                                   Executor executor = {});

}  // namespace conform::singer
