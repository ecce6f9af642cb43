#pragma once

#include <string_view>
#include <vector>

#include "checks/registry.hpp"

namespace conform::meltano {

// The Meltano extension checks (MX-*), in report order. They judge an extension the way the
// Airbyte checks judge a connector; each scenario of suite.cpp computes the checks it lists.
const std::vector<checks::CheckInfo>& extension_checks();
const checks::CheckInfo* find_extension_check(std::string_view id);

}  // namespace conform::meltano
