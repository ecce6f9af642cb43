#include "suite/surroundings.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "util/text.hpp"

namespace conform::suite {

namespace {

// The transcript of each run label, or "" for a label that several runs share.
std::map<std::string, std::string> transcripts_by_label(const ScenarioRun& context) {
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

// The lines numbered in `wanted` of the transcript at `path`, masked then cut, in one pass that
// stops after the last one: a transcript can be gigabytes, and many examples may point into it.
std::map<std::uint64_t, std::string> read_lines(const std::string& path,
                                                const std::set<std::uint64_t>& wanted,
                                                const protocol::Secrets& secrets,
                                                const SurroundingsLimits& limits) {
    std::map<std::uint64_t, std::string> lines;
    if (wanted.empty()) {
        return lines;
    }
    std::ifstream in(path, std::ios::binary);
    std::string line;
    auto last = *wanted.rbegin();
    for (std::uint64_t number = 1; number <= last && std::getline(in, line); ++number) {
        if (wanted.contains(number)) {
            lines.emplace(number, excerpt(secrets.redact(line), limits.line_bytes));
        }
    }
    return lines;
}

std::uint64_t first_around(std::uint64_t line, const SurroundingsLimits& limits) {
    return line > limits.lines_each_side ? line - limits.lines_each_side : 1;
}

}  // namespace

std::vector<report::TranscriptLine> transcript_lines(const std::string& path, std::uint64_t first,
                                                     std::uint64_t last,
                                                     const protocol::Secrets& secrets,
                                                     const SurroundingsLimits& limits) {
    std::set<std::uint64_t> wanted;
    for (auto number = first; number <= last; ++number) {
        wanted.insert(number);
    }
    std::vector<report::TranscriptLine> lines;
    for (auto& [number, text] : read_lines(path, wanted, secrets, limits)) {
        lines.push_back({number, std::move(text)});
    }
    return lines;
}

void add_transcript_surroundings(report::ScenarioResult& result, const ScenarioRun& context,
                                 const protocol::Secrets& secrets,
                                 const SurroundingsLimits& limits) {
    auto paths = transcripts_by_label(context);
    // Per transcript: the examples that point into it and every line they need.
    std::map<std::string, std::pair<std::vector<report::Example*>, std::set<std::uint64_t>>> needs;
    for (auto& check : result.checks) {
        for (auto& example : check.examples) {
            auto path = paths.find(example.run);
            if (example.line == 0 || path == paths.end() || path->second.empty()) {
                continue;
            }
            auto& [examples, wanted] = needs[path->second];
            examples.push_back(&example);
            for (auto number = first_around(example.line, limits);
                 number <= example.line + limits.lines_each_side; ++number) {
                wanted.insert(number);
            }
        }
    }
    for (const auto& [path, need] : needs) {
        auto lines = read_lines(path, need.second, secrets, limits);
        for (auto* example : need.first) {
            for (auto at = lines.lower_bound(first_around(example->line, limits));
                 at != lines.end() && at->first <= example->line + limits.lines_each_side; ++at) {
                example->context.push_back({at->first, at->second});
            }
        }
    }
}

}  // namespace conform::suite
