#pragma once

#include <string_view>
#include <utility>
#include <vector>

namespace conform::resources {

// The files of schemas/ and suites/, compiled into the binary so conform runs from anywhere.
const std::vector<std::pair<std::string_view, std::string_view>>& all();

// The content of the embedded file called `name`; throws conform::Error (internal) if absent.
std::string_view find(std::string_view name);

}  // namespace conform::resources
