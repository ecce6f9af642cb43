#include "checks/destination/helpers.hpp"

#include <algorithm>

namespace conform::checks::dst {

void report_line_findings(std::string_view id, const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.all_steps()) {
        for (const auto& run : step->runs) {
            auto found = run.observation.tallies.find(id);
            if (found == run.observation.tallies.end()) {
                continue;
            }
            const auto& tally = found->second;
            std::uint64_t shown_failures = 0;
            std::uint64_t shown_advisories = 0;
            for (const auto& finding : tally.examples) {
                engine::Where where{run.label, finding.line, finding.excerpt};
                auto& shown = finding.advisory ? shown_advisories : shown_failures;
                ++shown;
                finding.advisory ? verdict.advise(finding.message, std::move(where))
                                 : verdict.fail(finding.message, std::move(where));
            }
            verdict.count_more(tally.failures - std::min(tally.failures, shown_failures),
                               tally.advisories - std::min(tally.advisories, shown_advisories));
            verdict.judged(tally.judged);
        }
    }
}

std::string stderr_tail(const Run& run, std::size_t bytes) {
    const auto& text = run.process().stderr_text;
    return text.size() > bytes ? text.substr(text.size() - bytes) : text;
}

std::optional<std::size_t> last_state_index(const destination::Input& input,
                                            std::optional<std::size_t> stream) {
    for (std::size_t i = input.messages.size(); i-- > 0;) {
        const auto& message = input.messages[i];
        if (message.kind == destination::InputMessage::Kind::state &&
            (!stream || message.stream == stream)) {
            return i;
        }
    }
    return std::nullopt;
}

std::vector<std::optional<std::size_t>> committed_through(
    const destination::Input& input, const std::vector<destination::Echo>& echoes,
    std::size_t streams) {
    std::vector<std::optional<std::size_t>> through(streams);
    for (const auto& echo : echoes) {
        if (!echo.input_index) {
            continue;
        }
        auto index = *echo.input_index;
        const auto& state = input.messages[index];
        for (std::size_t s = 0; s < streams; ++s) {
            if (state.all_streams || state.stream == s) {
                through[s] = std::max(through[s].value_or(0), index);
            }
        }
    }
    return through;
}

std::string stream_name(const Inputs& inputs, std::size_t stream) {
    return inputs.catalog().streams().at(stream).airbyte.display_name();
}

}  // namespace conform::checks::dst
