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
    // Globs over scenario ids, "meltano" or check ids, selected as for the Airbyte suites
    // (checks/selection.hpp).
    std::vector<std::string> only;
    std::vector<std::string> skip;
    std::string rerun_prefix;     // the command line, without --only/--skip/--shard
    std::size_t shard_index = 0;  // --shard K/N: K-1 and N
    std::size_t shard_count = 1;
};

// Runs the extension suite and returns its report (version, start time left to the caller).
// Throws conform::Error (usage) for --only/--skip names that match no scenario, "meltano" or
// mx.* check.
report::RunReport run_extension_suite(const ExtensionConfig& config, const SuiteOptions& options,
                                      report::Reporter& reporter);

}  // namespace conform::meltano
