#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "protocol/secrets.hpp"
#include "report/model.hpp"
#include "suite/check.hpp"

namespace conform::suite {

// How much of a transcript a report shows around each example: lines each side, bytes per line.
struct SurroundingsLimits {
    std::uint64_t lines_each_side = 3;
    std::size_t line_bytes = 240;
};

// The lines `first`..`last` (1-based, inclusive) of the transcript file at `path`, each masked
// with `secrets` before it is cut to `limits.line_bytes`, so that no part of a secret survives
// the cut. Stops reading at `last`; fewer lines when the file is shorter or cannot be read.
std::vector<report::TranscriptLine> transcript_lines(const std::string& path, std::uint64_t first,
                                                     std::uint64_t last,
                                                     const protocol::Secrets& secrets,
                                                     const SurroundingsLimits& limits = {});

// Gives every example of `result` that names a stdout line the lines around it, read from the
// kept transcript of the run it names in `context`. Must run while the transcripts still exist.
// An example whose run label names more than one run gets none rather than the wrong lines.
void add_transcript_surroundings(report::ScenarioResult& result, const ScenarioRun& context,
                                 const protocol::Secrets& secrets,
                                 const SurroundingsLimits& limits = {});

}  // namespace conform::suite
