#pragma once

#include <string>
#include <utility>
#include <vector>

#include "protocol/observation.hpp"
#include "report/model.hpp"

namespace conform::suite {

using ResumeNotes = std::vector<std::pair<const protocol::Observation*, report::ResumedCheckpoint>>;

// The checkpoint timeline of `run`: its first report::k_timeline_checkpoints STATE positions with
// the streams each commits (`stream_names` by catalog index), and what resuming from its
// checkpoints lost or repeated (`resumes`, from every check that compared a resume, possibly
// twice: each checkpoint and resumed run is kept once).
report::CheckpointTimeline checkpoint_timeline(const protocol::Observation& run,
                                               const std::vector<std::string>& stream_names,
                                               const ResumeNotes& resumes);

}  // namespace conform::suite
