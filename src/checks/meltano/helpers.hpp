#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>

#include "engine/verdict.hpp"
#include "meltano/check.hpp"
#include "meltano/logs.hpp"
#include "util/text.hpp"

// What the Meltano extension checks share.
namespace conform::checks::mx {

using engine::Verdict;
using meltano::CommandResult;
using meltano::Inputs;
using meltano::Purpose;

// A finding seen in `run`, with an excerpt of what it printed.
inline void fail_in(Verdict& verdict, const CommandResult& run, std::string message,
                    std::string_view seen = {}) {
    verdict.fail(std::move(message), {run.label, 0, excerpt(seen, 300)});
}

// A finding seen in `run`, with the end of its stderr, where the cause of a failure usually is.
inline void fail_with_stderr(Verdict& verdict, const CommandResult& run, std::string message) {
    verdict.fail(std::move(message), {run.label, 0, last_lines(run.stderr_text)});
}

// Says so when the project's setup `initialize` failed: the commands the check judges ran in the
// folder it left (mx.initialize judges initialize itself, in a folder of its own).
inline void note_failed_setup(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.all_steps()) {
        for (const auto& run : step->runs) {
            if (run.command.purpose == Purpose::setup && !run.exited_with(0)) {
                verdict.note(
                    fmt::format("the project's setup `{}` gave {}: the commands ran in "
                                "the folder it left",
                                run.command_line, run.outcome()));
            }
        }
    }
}

inline std::string first_line(std::string_view text) {
    auto lines = meltano::non_empty_lines(text);
    return lines.empty() ? std::string() : std::string(lines.front());
}

}  // namespace conform::checks::mx
