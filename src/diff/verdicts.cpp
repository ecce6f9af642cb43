#include "diff/verdicts.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>

namespace conform::diff {

namespace {

using Verdicts = std::map<std::pair<std::string, std::string>, report::Status>;

Verdicts verdicts_of(const report::RunReport& report) {
    Verdicts verdicts;
    for (const auto& scenario : report.scenarios) {
        for (const auto& check : scenario.checks) {
            verdicts[{scenario.id, check.id}] = check.status;
        }
    }
    return verdicts;
}

bool failed(report::Status status) {
    return status == report::Status::failed;
}

std::string rule_for(report::Status before, report::Status after) {
    if (failed(after)) {
        return "verdict.regressed";
    }
    return failed(before) ? "verdict.fixed" : "verdict.changed";
}

}  // namespace

std::vector<Change> diff_verdicts(const report::RunReport& control,
                                  const report::RunReport& target) {
    auto before = verdicts_of(control);
    auto after = verdicts_of(target);
    std::vector<Change> changes;
    for (const auto& [key, status] : after) {
        auto found = before.find(key);
        if (found == before.end() || found->second == status) {
            continue;
        }
        auto rule = rule_for(found->second, status);
        changes.push_back({rule,
                           fmt::format("{}/{}", key.first, key.second),
                           fmt::format("{} -> {}", report::status_name(found->second),
                                       report::status_name(status)),
                           rule == "verdict.regressed",
                           {}});
    }
    return changes;
}

}  // namespace conform::diff
