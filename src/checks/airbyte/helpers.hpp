#pragma once

#include <rapidjson/fwd.h>

#include <string>
#include <string_view>

#include "engine/verdict.hpp"
#include "protocol/observation.hpp"
#include "suite/check.hpp"

// What the Airbyte checks share.
namespace conform::checks::airbyte {

using engine::Verdict;
using suite::Inputs;

// Reports what the judge of check `id` saw in every run of `inputs`' steps: its findings with
// their counts, and how much it judged.
void report_line_findings(std::string_view id, const Inputs& inputs, Verdict& verdict);

// True when the run exited 0 on its own (not stopped by conform).
bool exited_cleanly(const protocol::Observation& run);

// How a run ended: "exit code 1", or that it was stopped at its timeout.
std::string exit_text(const protocol::Observation& run);
// The same as a predicate: "ended with exit code 1", "did not finish within its timeout (…)".
std::string ending_text(const protocol::Observation& run);

// The last `bytes` of a run's stderr, where the cause of a failure usually is.
std::string stderr_tail(const protocol::Observation& run, std::size_t bytes = 300);

std::string json_text(const rapidjson::Value& value);

}  // namespace conform::checks::airbyte
