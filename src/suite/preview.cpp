#include "suite/preview.hpp"

#include <fmt/format.h>

#include "suite/plan.hpp"

namespace conform::suite {

RunCount runs_per_step(const Step& step, const config::ResumeSampling& sampling) {
    using Split = SplitChoice::Kind;
    RunCount count;
    switch (step.split.kind) {
        case Split::halves:
        case Split::one_key_at_end:
        case Split::one_key_at_start:
            count.runs = 2;
            break;
        case Split::equal:
            count.runs = step.split.parts;
            break;
        case Split::cuts:
            count.runs = step.split.cuts.size() + 1;
            break;
        case Split::around_key:
            count.runs = 3;  // the ranges around one key, after reads that bisect for it
            count.exact = false;
            break;
        case Split::none:
            if (step.range.kind == RangeChoice::Kind::malformed) {
                count.runs = 3;
            }
            break;
    }
    if (step.config == ConfigChoice::without_each_required) {
        count.exact = false;  // one run per required property of the spec
    }
    if (step.resumes()) {
        count.exact = false;  // fewer when the base run emitted fewer checkpoints
        if (step.state_checkpoint.kind == CheckpointChoice::Kind::sample) {
            count.runs *= most_sampled_checkpoints(sampling);
        }
    }
    return count;
}

namespace {

std::string range_text(const RangeChoice& range) {
    switch (range.kind) {
        case RangeChoice::Kind::full:
            return "full";
        case RangeChoice::Kind::malformed:
            return "malformed";
        case RangeChoice::Kind::given:
            return range.begin + "-" + range.end;
        case RangeChoice::Kind::absent:
            break;
    }
    return "absent";
}

}  // namespace

std::string describe_step(const Step& step) {
    std::vector<std::string> parts{std::string(to_string(step.run))};
    if (step.config != ConfigChoice::main) {
        parts.push_back(fmt::format("config {}", to_string(step.config)));
    }
    if (step.tail != TailFlag::absent) {
        parts.push_back(fmt::format("tail {}", to_string(step.tail)));
    }
    if (step.splits()) {
        parts.push_back("split " + to_string(step.split));
    } else if (step.range.kind != RangeChoice::Kind::absent) {
        parts.push_back("range " + range_text(step.range));
    }
    if (step.resumes()) {
        parts.push_back(fmt::format("resume from {} ({} checkpoint)", step.state_from,
                                    to_string(step.state_checkpoint)));
    }
    if (step.projections != ProjectionChoice::none) {
        parts.emplace_back(step.projections == ProjectionChoice::configured
                               ? "projections configured"
                               : "projections identity");
    }
    return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace conform::suite
