#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "report/model.hpp"

namespace conform::report {

// Streams a readable report to `out`: one line per scenario as it ends, the failed checks with
// clause, expected and seen, and a rerun command; colours and a live progress line on a TTY.
// Skips of extensions not in `claimed_extensions` are one line at the end, unless `verbose`.
std::unique_ptr<Reporter> make_console_reporter(std::FILE* out, bool verbose,
                                                std::vector<std::string> claimed_extensions = {});

}  // namespace conform::report
