#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/fwd.h>

#include "suite/check_registry.hpp"
#include "suite/context.hpp"

namespace conform::suite {

// Adds every analyzer finding tagged `id` from every run of the scenario.
void collect_findings(const std::string& id, const ScenarioContext& context, CheckOutcome& outcome);

// True when the run exited 0 on its own (not stopped by conform).
bool exited_cleanly(const protocol::Observation& run);

std::vector<std::string> stream_names(const ScenarioContext& context);
std::string json_text(const rapidjson::Value& value);

}  // namespace conform::suite
