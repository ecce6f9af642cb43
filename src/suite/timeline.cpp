#include "suite/timeline.hpp"

#include <algorithm>
#include <tuple>

namespace conform::suite {

namespace {

report::CheckpointMark mark_of(const protocol::Checkpoint& checkpoint,
                               const std::vector<std::string>& stream_names) {
    report::CheckpointMark mark;
    mark.line = checkpoint.line;
    mark.records_before = checkpoint.records_before;
    mark.all_streams = checkpoint.all_streams;
    for (auto stream : checkpoint.streams) {
        mark.streams.push_back(stream < stream_names.size() ? stream_names[stream]
                                                            : std::to_string(stream));
    }
    return mark;
}

}  // namespace

report::CheckpointTimeline checkpoint_timeline(const protocol::Observation& run,
                                               const std::vector<std::string>& stream_names,
                                               const ResumeNotes& resumes) {
    report::CheckpointTimeline timeline;
    timeline.total = run.checkpoints.size();
    auto shown = std::min(run.checkpoints.size(), report::k_timeline_checkpoints);
    for (std::size_t i = 0; i < shown; ++i) {
        timeline.checkpoints.push_back(mark_of(run.checkpoints[i], stream_names));
    }
    for (const auto& [base, resume] : resumes) {
        if (base != &run) {
            continue;
        }
        bool known = std::any_of(
            timeline.resumes.begin(), timeline.resumes.end(), [&resume = resume](const auto& seen) {
                return seen.checkpoint == resume.checkpoint && seen.run == resume.run;
            });
        if (!known) {
            timeline.resumes.push_back(resume);
        }
    }
    std::stable_sort(timeline.resumes.begin(), timeline.resumes.end(),
                     [](const auto& a, const auto& b) {
                         return std::tie(a.checkpoint, a.run) < std::tie(b.checkpoint, b.run);
                     });
    return timeline;
}

}  // namespace conform::suite
