#pragma once

#include <string>
#include <vector>

#include "diff/change.hpp"
#include "report/model.hpp"

namespace conform::diff {

// Checks whose verdict differs between the two runs, by scenario and check id: a check that failed
// only on the target is breaking ("verdict.regressed"); one that failed only on the control
// ("verdict.fixed") and passed <-> warned ("verdict.changed") are not. Skipped is no verdict: a
// check skipped on one side only is not compared, and `notes` gets one line per scenario saying
// so, with the reason.
std::vector<Change> diff_verdicts(const report::RunReport& control, const report::RunReport& target,
                                  std::vector<std::string>* notes = nullptr);

}  // namespace conform::diff
