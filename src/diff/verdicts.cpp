#include "diff/verdicts.hpp"

#include <fmt/format.h>

#include <map>
#include <string>
#include <utility>

namespace conform::diff {

namespace {

using Verdicts = std::map<std::pair<std::string, std::string>, const report::CheckResult*>;

Verdicts verdicts_of(const report::RunReport& report) {
    Verdicts verdicts;
    for (const auto& scenario : report.scenarios) {
        for (const auto& check : scenario.checks) {
            verdicts[{scenario.id, check.id}] = &check;
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

// Per scenario, the checks skipped on one side only, and on which.
struct Unjudged {
    std::vector<std::string> checks;
    std::string side;
    std::string reason;
};

}  // namespace

std::vector<Change> diff_verdicts(const report::RunReport& control, const report::RunReport& target,
                                  std::vector<std::string>* notes) {
    auto before = verdicts_of(control);
    auto after = verdicts_of(target);
    std::vector<Change> changes;
    std::map<std::string, Unjudged> unjudged;
    for (const auto& [key, check] : after) {
        auto found = before.find(key);
        if (found == before.end() || found->second->status == check->status) {
            continue;
        }
        auto old_status = found->second->status;
        auto new_status = check->status;
        if (old_status == report::Status::skipped || new_status == report::Status::skipped) {
            bool target_skipped = new_status == report::Status::skipped;
            auto& entry = unjudged[key.first];
            entry.checks.push_back(
                fmt::format("{} ({})", key.second,
                            report::status_name(target_skipped ? old_status : new_status)));
            if (entry.side.empty()) {
                entry.side = target_skipped ? "the target" : "the control";
                entry.reason = target_skipped ? check->note : found->second->note;
            } else if (entry.side != (target_skipped ? "the target" : "the control")) {
                entry.side = "one side or the other";
            }
            continue;
        }
        auto rule = rule_for(old_status, new_status);
        changes.push_back({rule,
                           fmt::format("{}/{}", key.first, key.second),
                           fmt::format("{} -> {}", report::status_name(old_status),
                                       report::status_name(new_status)),
                           rule == "verdict.regressed",
                           {}});
    }
    if (notes != nullptr) {
        for (const auto& [scenario, entry] : unjudged) {
            notes->push_back(fmt::format(
                "{}: {} check(s) skipped on {} and judged on the other side, not compared: "
                "{}{}",
                scenario, entry.checks.size(), entry.side, fmt::join(entry.checks, ", "),
                entry.reason.empty() ? "" : fmt::format(" (skipped: {})", entry.reason)));
        }
    }
    return changes;
}

}  // namespace conform::diff
