#pragma once

#include <string>
#include <vector>

#include "report/model.hpp"

namespace conform::report {

// "clean", "lost 3", "repeated 2" or "lost 3, repeated 2": a resume's outcome in words.
std::string resume_outcome(const ResumedCheckpoint& resume);

// The checkpoint timelines of a scenario's runs for the HTML report: per run with STATEs, an
// inline SVG (records along the axis, a tick per STATE, a mark per resumed checkpoint shaped and
// coloured by its outcome) and a table of the resumed checkpoints for readers who cannot see
// colour. Runs resumed from come first; the others' timelines are folded. Empty without STATEs.
std::string checkpoint_timelines_html(const std::vector<RunSummary>& runs);

}  // namespace conform::report
