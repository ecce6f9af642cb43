#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "protocol/observation.hpp"
#include "suite/scenario.hpp"

namespace conform::suite {

// One concrete connector invocation a step expands to.
struct RunPlan {
    std::string label;
    std::optional<std::string> range_json;  // written into the catalog when set
    std::optional<std::size_t> checkpoint;  // 0-based index into the base run's checkpoints
    std::string state_text;                 // the --state file content, empty for none
};

// Expands `step` into its runs. `base` is the first run of the step named by step.state_from (or
// null). Returns no runs and sets `why_not` when the step cannot run (e.g. no checkpoint to resume
// from).
std::vector<RunPlan> expand_step(const Step& step, const protocol::Observation* base,
                                 std::size_t resume_sample, std::string& why_not);

// The checkpoint indexes resumed from for "first", "middle", "last", "sample" or a 1-based number.
std::vector<std::size_t> pick_checkpoints(const std::string& which, std::size_t count,
                                          std::size_t sample);

}  // namespace conform::suite
