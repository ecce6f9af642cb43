#pragma once

#include <vector>

#include "diff/change.hpp"
#include "report/model.hpp"

namespace conform::diff {

// Checks whose verdict differs between the two runs, by scenario and check id: a check that failed
// only on the target is breaking ("verdict.regressed"); one that failed only on the control
// ("verdict.fixed") and one that ran on one side only ("verdict.changed") are not.
std::vector<Change> diff_verdicts(const report::RunReport& control,
                                  const report::RunReport& target);

}  // namespace conform::diff
