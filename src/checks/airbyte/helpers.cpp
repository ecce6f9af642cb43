#include "checks/airbyte/helpers.hpp"

#include <fmt/format.h>

#include "json/write.hpp"

namespace conform::checks::airbyte {

void report_line_findings(std::string_view id, const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.all_steps()) {
        for (const auto& run : step->runs) {
            auto found = run.tallies.find(id);
            if (found == run.tallies.end()) {
                continue;
            }
            const auto& tally = found->second;
            std::uint64_t failures = 0;
            std::uint64_t advisories = 0;
            for (const auto& finding : tally.examples) {
                engine::Where where{run.label, finding.line, finding.excerpt};
                if (finding.advisory) {
                    ++advisories;
                    verdict.advise(finding.message, std::move(where));
                } else {
                    ++failures;
                    verdict.fail(finding.message, std::move(where));
                }
            }
            verdict.count_more(tally.failures > failures ? tally.failures - failures : 0,
                               tally.advisories > advisories ? tally.advisories - advisories : 0);
            verdict.judged(tally.judged);
        }
    }
}

bool exited_cleanly(const protocol::Observation& run) {
    return run.process.exit.succeeded() && run.process.stop_reason == process::StopReason::none;
}

std::string ending_text(const protocol::Observation& run) {
    return run.process.stop_reason == process::StopReason::timeout ? exit_text(run)
                                                                   : "ended with " + exit_text(run);
}

std::string exit_text(const protocol::Observation& run) {
    if (run.process.stop_reason == process::StopReason::timeout) {
        return fmt::format("did not finish within its timeout ({} ms) and was stopped",
                           run.process.elapsed.count());
    }
    return run.process.exit.describe();
}

std::string stderr_tail(const protocol::Observation& run, std::size_t bytes) {
    const auto& text = run.process.stderr_text;
    return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

std::string json_text(const rapidjson::Value& value) {
    return json::to_json(value);
}

}  // namespace conform::checks::airbyte
