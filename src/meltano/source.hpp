#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/run.hpp"
#include "meltano/check.hpp"
#include "meltano/session.hpp"
#include "meltano/test_config.hpp"

namespace conform::meltano {

// The Meltano extension scenarios against one extension, for the engine's run loop: it runs each
// scenario's steps through a Session and judges the checks with the steps their needs matched.
class MeltanoSource : public engine::ScenarioSource {
public:
    MeltanoSource(const TestConfig& config, const Checks& checks, Executor executor = {});
    ~MeltanoSource() override;

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

// Runs the extension suite: the engine's loop over a MeltanoSource.
report::RunReport run_extension_suite(const TestConfig& config, const Checks& checks,
                                      const engine::RunOptions& options, report::Reporter& reporter,
                                      Executor executor = {});

}  // namespace conform::meltano
