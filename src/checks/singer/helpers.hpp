#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <string_view>

#include "engine/verdict.hpp"
#include "singer/check.hpp"
#include "util/text.hpp"

// What the Singer checks share.
namespace conform::checks::sg {

using engine::Verdict;
using singer::Inputs;
using singer::TapRun;

// The test config puts `stream` under test ("streams" names it, or names none).
inline bool under_test(const Inputs& inputs, const singer::CatalogStream& stream) {
    const auto& wanted = inputs.test_config().streams;
    return wanted.empty() ||
           std::find(wanted.begin(), wanted.end(), stream.tap_stream_id) != wanted.end();
}

// A finding seen in `run`, with the end of its stderr, where the cause of a failure usually is.
inline void fail_with_stderr(Verdict& verdict, const TapRun& run, std::string message) {
    auto tail = run.process.stderr_text.size() > 600
                    ? run.process.stderr_text.substr(run.process.stderr_text.size() - 600)
                    : run.process.stderr_text;
    verdict.fail(std::move(message), {run.label, 0, excerpt(tail, 600)});
}

// What the judge of check `id` saw in the runs of need `need`.
inline void report_tallies(const Inputs& inputs, Verdict& verdict, std::string_view id,
                           std::size_t need = 0) {
    for (const auto* run : inputs.runs(need)) {
        auto found = run->tallies.find(id);
        if (found == run->tallies.end()) {
            continue;
        }
        const auto& tally = found->second;
        verdict.judged(tally.judged);
        std::uint64_t failures = 0;
        std::uint64_t advisories = 0;
        for (const auto& example : tally.examples) {
            engine::Where where{run->label, example.line, example.excerpt};
            if (example.advisory) {
                ++advisories;
                verdict.advise(example.message, where);
            } else if (example.line != 0 || !example.message.empty()) {
                ++failures;
                verdict.fail(example.message, where);
            }
        }
        verdict.count_more(tally.failures > failures ? tally.failures - failures : 0,
                           tally.advisories > advisories ? tally.advisories - advisories : 0);
    }
}

}  // namespace conform::checks::sg
