#include "suite/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "ext/range.hpp"

namespace conform::suite {

namespace {

std::vector<ext::KeyRange> split_ranges(const std::string& split) {
    auto full = ext::KeyRange::full();
    if (split == "halves") {
        auto [low, high] = full.split_halves();
        return {low, high};
    }
    if (split == "one_key_at_end") {
        return {ext::KeyRange{0, 0xfffffffe}, ext::KeyRange{0xffffffff, 0xffffffff}};
    }
    if (split == "one_key_at_start") {
        return {ext::KeyRange{0, 0}, ext::KeyRange{1, 0xffffffff}};
    }
    if (split.starts_with("equal:")) {
        return full.split_equal(std::stoul(split.substr(6)));
    }
    std::vector<std::uint32_t> cuts;
    std::string list = split.substr(5);
    for (std::size_t start = 0; start < list.size();) {
        auto comma = list.find(',', start);
        auto token =
            list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        cuts.push_back(static_cast<std::uint32_t>(std::stoul(token, nullptr, 16)));
        start = comma == std::string::npos ? list.size() : comma + 1;
    }
    return full.split_at(cuts);
}

std::vector<std::optional<std::string>> range_variants(const Step& step) {
    if (!step.split.empty()) {
        std::vector<std::optional<std::string>> ranges;
        for (const auto& range : split_ranges(step.split)) {
            ranges.push_back(range.to_json());
        }
        return ranges;
    }
    if (step.range == "absent") {
        return {std::nullopt};
    }
    if (step.range == "full") {
        return {ext::KeyRange::full().to_json()};
    }
    if (step.range == "malformed") {
        return {R"({"begin":"0000000","end":"ffffffff"})",
                R"({"begin":"zzzzzzzz","end":"ffffffff"})",
                R"({"begin":"80000000","end":"7fffffff"})"};
    }
    auto dash = step.range.find('-');
    return {fmt::format(R"({{"begin":"{}","end":"{}"}})", step.range.substr(0, dash),
                        step.range.substr(dash + 1))};
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

std::vector<std::size_t> pick_checkpoints(const std::string& which, std::size_t count,
                                          std::size_t sample) {
    if (count == 0) {
        return {};
    }
    if (which == "first") {
        return {0};
    }
    if (which == "middle") {
        return {count / 2};
    }
    if (which == "last") {
        return {count - 1};
    }
    if (which == "sample") {
        std::set<std::size_t> picked{0, count / 2, count - 1};
        for (std::size_t i = 1; i <= sample; ++i) {
            picked.insert(i * count / (sample + 1));
        }
        return {picked.begin(), picked.end()};
    }
    std::size_t number = std::stoul(which);
    if (number == 0 || number > count) {
        return {};
    }
    return {number - 1};
}

namespace {

bool has_own_range(const Step& step) {
    return !step.split.empty() || step.range != "absent";
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
            plan.label = step.run;
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

}  // namespace

std::vector<RunPlan> expand_step(const Step& step, const BaseStep& base, std::size_t resume_sample,
                                 std::string& why_not) {
    std::vector<RunPlan> plans;
    if (step.state_from.empty()) {
        add_plans(step, nullptr, 0, {std::nullopt}, range_variants(step), plans);
        return plans;
    }
    // A step without its own range resumes every base run in that run's range.
    std::size_t bases =
        has_own_range(step) ? std::min<std::size_t>(base.runs.size(), 1) : base.runs.size();
    std::size_t total_checkpoints = 0;
    for (std::size_t index = 0; index < bases; ++index) {
        const auto& run = base.runs[index];
        total_checkpoints += run.checkpoints.size();
        auto picked =
            pick_checkpoints(step.state_checkpoint, run.checkpoints.size(), resume_sample);
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
            step.id, step.state_from, total_checkpoints, step.state_checkpoint);
    }
    return plans;
}

std::vector<RunPlan> expand_step(const Step& step, const protocol::Observation* base,
                                 std::size_t resume_sample, std::string& why_not) {
    BaseStep one;
    if (base != nullptr) {
        one.runs = std::span<const protocol::Observation>(base, 1);
    }
    return expand_step(step, one, resume_sample, why_not);
}

}  // namespace conform::suite
