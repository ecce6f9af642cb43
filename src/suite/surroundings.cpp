#include "suite/surroundings.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include "util/text.hpp"

namespace conform::suite {

namespace {

// The transcript of each run label, or "" for a label that several runs share.
std::map<std::string, std::string> transcripts_by_label(const ScenarioContext& context) {
    std::map<std::string, std::string> paths;
    for (const auto& step : context.steps) {
        for (const auto& run : step.runs) {
            auto [at, inserted] = paths.emplace(run.label, run.transcript_path);
            if (!inserted) {
                at->second.clear();
            }
        }
    }
    return paths;
}

}  // namespace

std::vector<report::TranscriptLine> transcript_lines(const std::string& path, std::uint64_t first,
                                                     std::uint64_t last,
                                                     const protocol::Secrets& secrets,
                                                     const SurroundingsLimits& limits) {
    std::vector<report::TranscriptLine> lines;
    std::ifstream in(path, std::ios::binary);
    std::string line;
    for (std::uint64_t number = 1; number <= last && std::getline(in, line); ++number) {
        if (number >= first) {
            lines.push_back({number, excerpt(secrets.redact(line), limits.line_bytes)});
        }
    }
    return lines;
}

void add_transcript_surroundings(report::ScenarioResult& result, const ScenarioContext& context,
                                 const protocol::Secrets& secrets,
                                 const SurroundingsLimits& limits) {
    auto paths = transcripts_by_label(context);
    for (auto& check : result.checks) {
        for (auto& example : check.examples) {
            auto path = paths.find(example.run);
            if (example.line == 0 || path == paths.end() || path->second.empty()) {
                continue;
            }
            auto first = example.line > limits.lines_each_side
                             ? example.line - limits.lines_each_side
                             : std::uint64_t{1};
            example.context = transcript_lines(
                path->second, first, example.line + limits.lines_each_side, secrets, limits);
        }
    }
}

}  // namespace conform::suite
