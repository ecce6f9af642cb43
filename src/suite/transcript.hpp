#pragma once

#include <istream>
#include <string>

#include "protocol/catalog.hpp"
#include "report/model.hpp"

namespace conform::suite {

// The checks `conform validate` applies to a recorded read transcript: every check that needs only
// one read's stdout.
const std::vector<std::string>& transcript_checks();

// Feeds `transcript` line by line through the same analyzer a live read uses and evaluates
// transcript_checks() as one scenario called "transcript". When `origin` names the transcript's
// file, examples carry the lines around them read back from it.
report::RunReport validate_transcript(std::istream& transcript, const std::string& origin,
                                      const protocol::Catalog& catalog, bool strict);

}  // namespace conform::suite
