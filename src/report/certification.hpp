#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/model.hpp"

namespace conform::report {

// What a report certifies for one area: the core protocol or one extension (docs/certification.md).
enum class Certified { certified, failed, incomplete, not_claimed, not_tested };

std::string_view certified_name(Certified level);

struct AreaVerdict {
    std::string area;  // "core", or an extension's name
    Certified level = Certified::not_tested;
    std::string reason;  // why not certified, in the reader's terms; empty when certified
};

// The core protocol first, then every extension conform knows, in a fixed order.
std::vector<AreaVerdict> certify(const RunReport& report);

// The extensions conform can certify, in report order.
const std::vector<std::string>& known_extensions();

}  // namespace conform::report
