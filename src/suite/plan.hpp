#pragma once

#include <chrono>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "config/test_config.hpp"
#include "protocol/observation.hpp"
#include "suite/scenario.hpp"

namespace conform::suite {

// One concrete connector invocation a step expands to.
struct RunPlan {
    std::string label;
    std::optional<std::string> range_json;    // written into the catalog when set
    std::optional<std::size_t> checkpoint;    // 0-based index into the base run's checkpoints
    std::string state_text;                   // the --state file content, empty for none
    std::size_t base_run = 0;                 // which run of the base step it resumes
    std::optional<std::string> config_text;   // replaces the step's config when set
    std::optional<std::string> catalog_text;  // replaces the configured catalog when set
};

// The runs of the step a resuming step takes its checkpoints from.
struct BaseStep {
    std::span<const protocol::Observation> runs;
    std::span<const RunPlan> plans;  // may be empty when every run had no range
};

// Expands `step` into its runs. `base` holds the runs of the step named by step.state_from. A
// step with its own range or split resumes from the base's first run; one without resumes each
// base run (e.g. each shard) from its own checkpoints, in that run's range. Returns no runs and
// sets `why_not` when the step cannot run (e.g. no checkpoint to resume from).
std::vector<RunPlan> expand_step(const Step& step, const BaseStep& base,
                                 const config::ResumeSampling& sampling, std::string& why_not);
// The same with one base run (or none).
std::vector<RunPlan> expand_step(const Step& step, const protocol::Observation* base,
                                 const config::ResumeSampling& sampling, std::string& why_not);

// The checkpoint indexes resumed from for "first", "middle", "last", "sample" or a 1-based number.
// "sample" is every checkpoint up to sampling.max, else sampling.max of them: first and last, then
// the `preferred` ones (sorted indexes) evenly spaced, then others evenly spaced; with
// sampling.sample, first, middle, last and that many evenly spaced ones.
std::vector<std::size_t> pick_checkpoints(const CheckpointChoice& which, std::size_t count,
                                          const config::ResumeSampling& sampling,
                                          const std::vector<std::size_t>& preferred = {});

// The checkpoints (indexes) of `run` right after which a stream they commit goes on emitting
// records: a STATE in the middle of its stream, where resuming loses what it claimed too early
// (a connector checkpointing records that come newest first). Sampling prefers them.
std::vector<std::size_t> mid_stream_checkpoints(const protocol::Observation& run);

// The most runs a resume from "sample" checkpoints of one base run takes.
std::size_t most_sampled_checkpoints(const config::ResumeSampling& sampling);

// Which checkpoints the resumed runs of `plans` start from, for the report: "every checkpoint
// (1-14 of 14)" or "20 of 45 checkpoints, evenly spaced: 1, 3, ...". Empty when none resumes.
std::string describe_checkpoints_used(const std::vector<RunPlan>& plans, const BaseStep& base);

}  // namespace conform::suite
