#pragma once

#include <string>
#include <string_view>

#include "destination/check.hpp"
#include "engine/verdict.hpp"

// What the destination checks share.
namespace conform::checks::dst {

using destination::Inputs;
using destination::Run;
using destination::StepResult;
using engine::Verdict;

// Reports what the judge of check `id` saw in every run of `inputs`' steps.
void report_line_findings(std::string_view id, const Inputs& inputs, Verdict& verdict);

// The runs of the steps of need `need`, with their steps.
template <typename Visit>
void for_each_run(const Inputs& inputs, std::size_t need, Visit visit) {
    for (const auto* step : inputs.steps(need)) {
        for (const auto& run : step->runs) {
            visit(*step, run);
        }
    }
}

// The last `bytes` of a run's stderr, where the cause of a failure usually is.
std::string stderr_tail(const Run& run, std::size_t bytes = 300);

// The index of the last STATE of `input` (of those of `stream` with per-stream states; of any
// when `stream` is none).
std::optional<std::size_t> last_state_index(const destination::Input& input,
                                            std::optional<std::size_t> stream);

// Per catalog stream, the input index of the last echoed STATE that commits it (its own STATE, or
// a GLOBAL or LEGACY one); none when no echoed STATE does.
std::vector<std::optional<std::size_t>> committed_through(
    const destination::Input& input, const std::vector<destination::Echo>& echoes,
    std::size_t streams);

// "users" or "public.users".
std::string stream_name(const Inputs& inputs, std::size_t stream);

}  // namespace conform::checks::dst
