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

// The extension a skipped check belongs to when the connector does not claim it (`claimed`): the
// scenario's extension, or the check's area for an extension check judged in a core scenario
// (merge.reduction_valid in `read`); "" otherwise. Such a skip says nothing about the connector.
std::string unclaimed_extension_of(const ScenarioResult& scenario, const CheckResult& check,
                                   const std::vector<std::string>& claimed);

// The checks skipped because their extension is not claimed, for the one line a report folds
// them into.
struct UnclaimedSkips {
    std::vector<std::string> extensions;  // in report order
    std::size_t checks = 0;
};
UnclaimedSkips unclaimed_skips(const RunReport& report, const std::vector<std::string>& claimed);

// That line: how many checks, of which extensions, and how a connector that supports one claims
// it in the terms of the run (--extensions, the test config's "extensions"); "" when none.
std::string unclaimed_summary(const RunReport& report, const UnclaimedSkips& skips);

}  // namespace conform::report
