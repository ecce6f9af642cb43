#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/fwd.h>

#include "suite/context.hpp"

namespace conform::suite {

using CheckFunction = std::function<void(const ScenarioContext&, CheckOutcome&)>;

// Checks whose verdict is computed after the runs; the rest report the analyzer's findings.
const std::map<std::string_view, CheckFunction>& core_checks();
const std::map<std::string_view, CheckFunction>& extension_checks();

// Adds every analyzer finding tagged `id` from every run of the scenario.
void collect_findings(const std::string& id, const ScenarioContext& context, CheckOutcome& outcome);

// True when the run exited 0 on its own (not stopped by conform).
bool exited_cleanly(const protocol::Observation& run);

std::vector<std::string> stream_names(const ScenarioContext& context);
std::string json_text(const rapidjson::Value& value);

}  // namespace conform::suite
