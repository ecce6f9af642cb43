#pragma once

#include <istream>
#include <string>
#include <vector>

#include "protocol/catalog.hpp"
#include "report/model.hpp"
#include "suite/check.hpp"

namespace conform::suite {

// The checks of `checks` that `conform validate` can judge from a recorded read: those whose needs
// one recorded read meets and that read nothing from a test config. Derived, never listed.
std::vector<std::string> transcript_checks(const Checks& checks);

// Feeds `transcript` line by line through the same analyzer a live read uses and judges
// transcript_checks() as one scenario called "transcript". When `origin` names the transcript's
// file, examples carry the lines around them read back from it.
report::RunReport validate_transcript(std::istream& transcript, const std::string& origin,
                                      const protocol::Catalog& catalog, const Checks& checks,
                                      bool strict);

}  // namespace conform::suite
