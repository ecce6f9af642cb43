#include "suite/plan.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "estuary/range.hpp"

namespace conform::suite {

namespace {

std::vector<estuary::KeyRange> split_ranges(const SplitChoice& split) {
    auto full = estuary::KeyRange::full();
    switch (split.kind) {
        case SplitChoice::Kind::halves: {
            auto [low, high] = full.split_halves();
            return {low, high};
        }
        case SplitChoice::Kind::one_key_at_end:
            return {estuary::KeyRange{0, 0xfffffffe}, estuary::KeyRange{0xffffffff, 0xffffffff}};
        case SplitChoice::Kind::one_key_at_start:
            return {estuary::KeyRange{0, 0}, estuary::KeyRange{1, 0xffffffff}};
        case SplitChoice::Kind::equal:
            return full.split_equal(split.parts);
        case SplitChoice::Kind::cuts:
            return full.split_at(split.cuts);
        case SplitChoice::Kind::none:
        case SplitChoice::Kind::around_key:
            break;
    }
    return {full};
}

std::vector<std::optional<std::string>> range_variants(const Step& step) {
    if (step.splits()) {
        std::vector<std::optional<std::string>> ranges;
        for (const auto& range : split_ranges(step.split)) {
            ranges.emplace_back(range.to_json());
        }
        return ranges;
    }
    switch (step.range.kind) {
        case RangeChoice::Kind::absent:
            return {std::nullopt};
        case RangeChoice::Kind::full:
            return {estuary::KeyRange::full().to_json()};
        case RangeChoice::Kind::malformed:
            return {R"({"begin":"0000000","end":"ffffffff"})",
                    R"({"begin":"zzzzzzzz","end":"ffffffff"})",
                    R"({"begin":"80000000","end":"7fffffff"})"};
        case RangeChoice::Kind::given:
            break;
    }
    return {fmt::format(R"({{"begin":"{}","end":"{}"}})", step.range.begin, step.range.end)};
}

std::string describe_range(const std::optional<std::string>& range_json) {
    if (!range_json) {
        return "";
    }
    // {"begin":"00000000","end":"7fffffff"} reads as 00000000-7fffffff; anything else as is.
    auto value_of = [&text = *range_json](std::string_view key) -> std::optional<std::string> {
        auto at = text.find(fmt::format("\"{}\":\"", key));
        if (at == std::string::npos) {
            return std::nullopt;
        }
        at += key.size() + 4;
        auto close = text.find('"', at);
        return close == std::string::npos ? std::nullopt
                                          : std::optional(text.substr(at, close - at));
    };
    auto begin = value_of("begin");
    auto end = value_of("end");
    return begin && end ? *begin + "-" + *end : *range_json;
}

}  // namespace

namespace {

// First, middle, last and `sample` evenly spaced checkpoints of `count` (the older "sample" key).
std::vector<std::size_t> first_middle_last_and(std::size_t sample, std::size_t count) {
    std::set<std::size_t> picked{0, count / 2, count - 1};
    for (std::size_t i = 1; i <= sample; ++i) {
        picked.insert(i * count / (sample + 1));
    }
    return {picked.begin(), picked.end()};
}

// `max` of `from` (at least two), evenly spaced from its first to its last.
std::vector<std::size_t> evenly_spaced(const std::vector<std::size_t>& from, std::size_t max) {
    if (from.size() <= max) {
        return from;
    }
    std::vector<std::size_t> picked;
    for (std::size_t i = 0; i < max; ++i) {
        picked.push_back(from[(i * (from.size() - 1) + (max - 1) / 2) / (max - 1)]);
    }
    return picked;
}

// Every checkpoint of `count`, or `max` of them: first and last, the preferred ones evenly
// spaced, then the others evenly spaced from the first to the last.
std::vector<std::size_t> every_or_evenly_spaced(std::size_t max, std::size_t count,
                                                const std::vector<std::size_t>& preferred) {
    std::vector<std::size_t> all(count);
    for (std::size_t i = 0; i < count; ++i) {
        all[i] = i;
    }
    if (count <= max) {
        return all;
    }
    if (max <= 1) {
        return {count - 1};
    }
    std::set<std::size_t> picked{0, count - 1};
    auto add = [&picked, max](const std::vector<std::size_t>& candidates) {
        for (auto index : candidates) {
            if (picked.size() == max) {
                return;
            }
            picked.insert(index);
        }
    };
    if (preferred.size() >= 2) {
        add(evenly_spaced(preferred, std::min(preferred.size(), max - 2)));
    } else {
        add(preferred);
    }
    add(evenly_spaced(all, max));
    add(all);
    return {picked.begin(), picked.end()};
}

}  // namespace

std::vector<std::size_t> pick_checkpoints(const CheckpointChoice& which, std::size_t count,
                                          const config::ResumeSampling& sampling,
                                          const std::vector<std::size_t>& preferred) {
    if (count == 0) {
        return {};
    }
    switch (which.kind) {
        case CheckpointChoice::Kind::first:
            return {0};
        case CheckpointChoice::Kind::middle:
            return {count / 2};
        case CheckpointChoice::Kind::last:
            return {count - 1};
        case CheckpointChoice::Kind::sample:
            return sampling.sample ? first_middle_last_and(*sampling.sample, count)
                                   : every_or_evenly_spaced(sampling.max, count, preferred);
        case CheckpointChoice::Kind::number:
            break;
    }
    if (which.number == 0 || which.number > count) {
        return {};
    }
    return {which.number - 1};
}

std::vector<std::size_t> mid_stream_checkpoints(const protocol::Observation& run) {
    auto count = run.checkpoints.size();
    // The stream of the first record after each checkpoint, when one comes before the next STATE.
    std::vector<std::optional<std::uint32_t>> next_stream(count);
    run.records.scan([&](std::size_t, const protocol::RecordEntry& entry) {
        if (entry.checkpoint >= 1 && entry.checkpoint <= count &&
            !next_stream[entry.checkpoint - 1]) {
            next_stream[entry.checkpoint - 1] = entry.stream;
        }
    });
    std::vector<std::size_t> found;
    for (std::size_t i = 0; i < count; ++i) {
        if (!next_stream[i]) {
            continue;
        }
        auto checkpoint = run.checkpoints[i];
        if (checkpoint.all_streams ||
            std::find(checkpoint.streams.begin(), checkpoint.streams.end(), *next_stream[i]) !=
                checkpoint.streams.end()) {
            found.push_back(i);
        }
    }
    return found;
}

std::size_t most_sampled_checkpoints(const config::ResumeSampling& sampling) {
    return sampling.sample ? *sampling.sample + 3 : sampling.max;
}

namespace {

// The 1-based checkpoints of base run `index` that `plans` resume from.
std::set<std::size_t> checkpoints_resumed(const std::vector<RunPlan>& plans, std::size_t index) {
    std::set<std::size_t> used;
    for (const auto& plan : plans) {
        if (plan.checkpoint && plan.base_run == index) {
            used.insert(*plan.checkpoint + 1);
        }
    }
    return used;
}

std::string describe_used(const std::set<std::size_t>& used, std::size_t total) {
    if (total == 1) {
        return "its only checkpoint";
    }
    if (used.size() == total) {
        return fmt::format("every checkpoint (1-{} of {})", total, total);
    }
    return fmt::format("{} of {} checkpoints: {}", used.size(), total, fmt::join(used, ", "));
}

}  // namespace

std::string describe_checkpoints_used(const std::vector<RunPlan>& plans, const BaseStep& base) {
    std::vector<std::string> parts;
    for (std::size_t index = 0; index < base.runs.size(); ++index) {
        auto used = checkpoints_resumed(plans, index);
        if (used.empty()) {
            continue;
        }
        auto which = describe_used(used, base.runs[index].checkpoints.size());
        parts.push_back(base.runs.size() > 1 ? fmt::format("{}: {}", base.runs[index].label, which)
                                             : which);
    }
    return parts.empty() ? "" : fmt::format("resumed from {}", fmt::join(parts, "; "));
}

namespace {

bool has_own_range(const Step& step) {
    return step.splits() || step.range.kind != RangeChoice::Kind::absent;
}

void add_plans(const Step& step, const protocol::Observation* base, std::size_t base_run,
               const std::vector<std::optional<std::size_t>>& checkpoints,
               const std::vector<std::optional<std::string>>& ranges, std::vector<RunPlan>& plans) {
    for (const auto& checkpoint : checkpoints) {
        for (const auto& range : ranges) {
            RunPlan plan;
            plan.range_json = range;
            plan.checkpoint = checkpoint;
            plan.base_run = base_run;
            plan.label = std::string(to_string(step.run));
            if (checkpoint) {
                plan.state_text = base->checkpoints[*checkpoint].state_file;
                plan.label += fmt::format(" [from checkpoint {}/{}]", *checkpoint + 1,
                                          base->checkpoints.size());
            }
            if (range) {
                plan.label += fmt::format(" [range {}]", describe_range(range));
            }
            plans.push_back(std::move(plan));
        }
    }
}

bool failed(const protocol::Observation& run) {
    using process::StopReason;
    return run.process.stop_reason == StopReason::timeout ||
           (run.process.stop_reason == StopReason::none && !run.process.exit.succeeded());
}

// Why a step that only compares with the runs it resumes from is not run: each of them failed.
std::optional<std::string> every_base_failed(const Step& step, const BaseStep& base) {
    if (!step.compares_with_base || base.runs.empty() ||
        !std::all_of(base.runs.begin(), base.runs.end(), failed)) {
        return std::nullopt;
    }
    const auto& first = base.runs.front();
    return fmt::format(
        "the read{} of step '{}' that it resumes from failed ('{}': {}); it is there to be "
        "compared with {}, so nothing was resumed",
        base.runs.size() == 1 ? "" : "s", step.state_from, first.label, first.process.ending(),
        base.runs.size() == 1 ? "that read" : "those reads");
}

}  // namespace

std::vector<RunPlan> expand_step(const Step& step, const BaseStep& base,
                                 const config::ResumeSampling& sampling, std::string& why_not) {
    std::vector<RunPlan> plans;
    if (step.state_from.empty()) {
        add_plans(step, nullptr, 0, {std::nullopt}, range_variants(step), plans);
        return plans;
    }
    if (auto reason = every_base_failed(step, base)) {
        why_not = *reason;
        return plans;
    }
    // A step without its own range resumes every base run in that run's range.
    std::size_t bases =
        has_own_range(step) ? std::min<std::size_t>(base.runs.size(), 1) : base.runs.size();
    std::size_t total_checkpoints = 0;
    for (std::size_t index = 0; index < bases; ++index) {
        const auto& run = base.runs[index];
        total_checkpoints += run.checkpoints.size();
        auto preferred = step.state_checkpoint.kind == CheckpointChoice::Kind::sample &&
                                 run.checkpoints.size() > sampling.max
                             ? mid_stream_checkpoints(run)
                             : std::vector<std::size_t>{};
        auto picked =
            pick_checkpoints(step.state_checkpoint, run.checkpoints.size(), sampling, preferred);
        std::vector<std::optional<std::size_t>> checkpoints(picked.begin(), picked.end());
        auto ranges = has_own_range(step) || index >= base.plans.size()
                          ? range_variants(step)
                          : std::vector<std::optional<std::string>>{base.plans[index].range_json};
        add_plans(step, &run, index, checkpoints, ranges, plans);
    }
    if (plans.empty()) {
        why_not = fmt::format(
            "step '{}' resumes from step '{}', which emitted {} STATE "
            "message(s): no checkpoint '{}' to resume from",
            step.id, step.state_from, total_checkpoints, to_string(step.state_checkpoint));
    }
    return plans;
}

std::vector<RunPlan> expand_step(const Step& step, const protocol::Observation* base,
                                 const config::ResumeSampling& sampling, std::string& why_not) {
    BaseStep one;
    if (base != nullptr) {
        one.runs = std::span<const protocol::Observation>(base, 1);
    }
    return expand_step(step, one, sampling, why_not);
}

}  // namespace conform::suite
