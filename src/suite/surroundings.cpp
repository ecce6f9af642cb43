#include "suite/surroundings.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include "protocol/spill.hpp"
#include "util/text.hpp"

namespace conform::suite {

namespace {

// Longer transcript lines are cut when read back, as a live run cuts them when it reads them.
constexpr std::size_t k_max_line_bytes = 16 * 1024 * 1024;

// Where the lines of one run come from: the transcript conform kept (read through its own
// descriptor), or the file of a transcript conform did not write.
struct TranscriptSource {
    std::shared_ptr<const protocol::TranscriptFile> kept;
    std::string path;

    bool empty() const { return !kept && path.empty(); }
    friend bool operator<(const TranscriptSource& a, const TranscriptSource& b) {
        return std::tie(a.kept, a.path) < std::tie(b.kept, b.path);
    }
};

void for_each_line(const TranscriptSource& source, const protocol::LineVisitor& visit) {
    if (source.kept) {
        source.kept->for_each_line(visit, k_max_line_bytes);
    } else if (!source.path.empty()) {
        protocol::for_each_line_of_file(source.path, visit, k_max_line_bytes);
    }
}

// The transcript of each run label, or none for a label that several runs share.
std::map<std::string, TranscriptSource> transcripts_by_label(const ScenarioRun& context) {
    std::map<std::string, TranscriptSource> sources;
    for (const auto& step : context.steps) {
        for (const auto& run : step.runs) {
            auto [at, inserted] =
                sources.emplace(run.label, TranscriptSource{run.transcript, run.transcript_path});
            if (!inserted) {
                at->second = {};
            }
        }
    }
    return sources;
}

// The lines numbered in `wanted` of a transcript, masked then cut, in one pass that stops after
// the last one: a transcript can be gigabytes, and many examples may point into it.
std::map<std::uint64_t, std::string> read_lines(const TranscriptSource& source,
                                                const std::set<std::uint64_t>& wanted,
                                                const protocol::Secrets& secrets,
                                                const SurroundingsLimits& limits) {
    std::map<std::uint64_t, std::string> lines;
    if (wanted.empty()) {
        return lines;
    }
    auto last = *wanted.rbegin();
    for_each_line(source, [&](std::uint64_t number, std::string_view line) {
        if (wanted.contains(number)) {
            lines.emplace(number, excerpt(secrets.redact(line), limits.line_bytes));
        }
        return number < last;
    });
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
    for (auto& [number, text] :
         read_lines(TranscriptSource{nullptr, path}, wanted, secrets, limits)) {
        lines.push_back({number, std::move(text)});
    }
    return lines;
}

void add_transcript_surroundings(report::ScenarioResult& result, const ScenarioRun& context,
                                 const protocol::Secrets& secrets,
                                 const SurroundingsLimits& limits) {
    auto sources = transcripts_by_label(context);
    // Per transcript: the examples that point into it and every line they need.
    std::map<TranscriptSource, std::pair<std::vector<report::Example*>, std::set<std::uint64_t>>>
        needs;
    for (auto& check : result.checks) {
        for (auto& example : check.examples) {
            auto source = sources.find(example.run);
            if (example.line == 0 || source == sources.end() || source->second.empty()) {
                continue;
            }
            auto& [examples, wanted] = needs[source->second];
            examples.push_back(&example);
            for (auto number = first_around(example.line, limits);
                 number <= example.line + limits.lines_each_side; ++number) {
                wanted.insert(number);
            }
        }
    }
    for (const auto& [source, need] : needs) {
        auto lines = read_lines(source, need.second, secrets, limits);
        for (auto* example : need.first) {
            for (auto at = lines.lower_bound(first_around(example->line, limits));
                 at != lines.end() && at->first <= example->line + limits.lines_each_side; ++at) {
                example->context.push_back({at->first, at->second});
            }
        }
    }
}

}  // namespace conform::suite
