#pragma once

#include <cstdio>
#include <memory>

#include "report/model.hpp"

namespace conform::report {

// Streams a readable report to `out`: one line per scenario as it ends, the failed checks with
// clause, expected and seen, and a rerun command; colours and a live progress line on a TTY.
std::unique_ptr<Reporter> make_console_reporter(std::FILE* out, bool verbose);

}  // namespace conform::report
