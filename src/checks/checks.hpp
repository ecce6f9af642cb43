#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "destination/check.hpp"
#include "engine/check.hpp"
#include "meltano/check.hpp"
#include "report/coverage.hpp"
#include "singer/check.hpp"
#include "suite/check.hpp"

// Every check conform has, per protocol, in report order. Each table is built once; building it
// fails (internal error) on a check without code or an id defined twice.
namespace conform::checks {

const suite::Checks& airbyte_checks();
const meltano::Checks& meltano_checks();
const singer::Checks& singer_checks();
const destination::Checks& destination_checks();

// What `conform list` shows of every check: Airbyte, Meltano, Singer, then destination checks.
std::vector<engine::CheckInfo> all_infos();
// The checks of `protocol` (report::RunReport::protocol) and the clauses each names, for clause
// coverage.
std::vector<report::CheckClauses> clauses_of_protocol(std::string_view protocol);
// Every check id, for --only/--skip names.
std::vector<std::string> all_ids();

}  // namespace conform::checks
