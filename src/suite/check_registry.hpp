#pragma once

#include <string_view>
#include <vector>

#include "checks/registry.hpp"
#include "suite/scenario.hpp"

namespace conform::suite {

struct ScenarioContext;
struct CheckOutcome;

enum class CheckKind {
    per_message,  // judged line by line in the analyzer's single pass; reported from its findings
    across_runs,  // judged once the scenario's runs are over, from what they kept
};

using CheckCode = void (*)(const ScenarioContext&, CheckOutcome&);

// One check: what it is (reports, --only, `conform list`), the step roles it reads (a scenario
// listing it must provide them) and its code. Defined beside the code, one family per file:
// checks_messages.cpp, checks_core.cpp, checks_extensions.cpp.
struct CheckDefinition {
    checks::CheckInfo info;
    CheckKind kind = CheckKind::across_runs;
    std::vector<Role> reads;
    CheckCode code = nullptr;
};

// The checks of each family, in report order.
std::vector<CheckDefinition> message_checks();
std::vector<CheckDefinition> core_checks();
std::vector<CheckDefinition> extension_checks();

// Every Airbyte-protocol check (the families above). Building it fails (internal error) on a
// check without code or an id defined twice.
const std::vector<CheckDefinition>& airbyte_checks();
const CheckDefinition* find_airbyte_check(std::string_view id);

}  // namespace conform::suite
