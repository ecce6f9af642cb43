#pragma once

#include <string>
#include <vector>

namespace conform::diff {

// One difference between the control and the target version of a connector. `rule` is a stable
// id (docs/regression.md), `where` names the property, stream or check it concerns.
struct Change {
    std::string rule;
    std::string where;
    std::string detail;
    bool breaking = false;
    std::string accepted_reason;  // set when the test config accepts this change after review

    bool counts_as_breaking() const { return breaking && accepted_reason.empty(); }
};

// A reviewed change the test config accepts: `rule` and, when given, `where` must match.
struct AcceptedChange {
    std::string rule;
    std::string where;  // empty: every place
    std::string reason;
};

// Marks every change an accepted entry matches with that entry's reason.
void apply_accepted(std::vector<Change>& changes, const std::vector<AcceptedChange>& accepted);

std::size_t breaking_count(const std::vector<Change>& changes);

}  // namespace conform::diff
