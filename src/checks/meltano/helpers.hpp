#pragma once

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

inline std::string first_line(std::string_view text) {
    auto lines = meltano::non_empty_lines(text);
    return lines.empty() ? std::string() : std::string(lines.front());
}

}  // namespace conform::checks::mx
