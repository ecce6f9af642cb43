#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "meltano/extension_config.hpp"
#include "report/model.hpp"

namespace conform::meltano {

// The suite name of the extension scenarios, accepted by --only/--skip.
inline constexpr std::string_view k_suite = "meltano";

struct ScenarioInfo {
    std::string_view id;
    std::string_view title;
    std::vector<std::string_view> checks;
};

// The extension suite's scenarios in run order.
const std::vector<ScenarioInfo>& extension_scenarios();

struct SuiteOptions {
    bool strict = false;
    std::vector<std::string> only;  // scenario ids, "meltano" or check ids
    std::vector<std::string> skip;
    std::string rerun_prefix;  // the command line, without --only/--skip
};

// Runs the extension suite and returns its report (version, start time left to the caller).
// Throws conform::Error (usage) for --only/--skip names that are not scenarios, "meltano" or
// mx.* checks.
report::RunReport run_extension_suite(const ExtensionConfig& config, const SuiteOptions& options,
                                      report::Reporter& reporter);

}  // namespace conform::meltano
