#include "diff/change.hpp"

#include <algorithm>

namespace conform::diff {

void apply_accepted(std::vector<Change>& changes, const std::vector<AcceptedChange>& accepted) {
    for (auto& change : changes) {
        for (const auto& entry : accepted) {
            if (entry.rule == change.rule && (entry.where.empty() || entry.where == change.where)) {
                change.accepted_reason = entry.reason;
                break;
            }
        }
    }
}

std::size_t breaking_count(const std::vector<Change>& changes) {
    return static_cast<std::size_t>(
        std::count_if(changes.begin(), changes.end(),
                      [](const Change& change) { return change.counts_as_breaking(); }));
}

}  // namespace conform::diff
