#include "suite/bisect.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace conform::suite {

namespace {

bool emitted(const protocol::Observation& run, const protocol::RecordEntry& target) {
    return std::any_of(run.records.begin(), run.records.end(), [&](const auto& record) {
        return record.stream == target.stream && record.identity == target.identity;
    });
}

}  // namespace

KeyIsolation isolate_key(
    const protocol::RecordEntry& target,
    const std::function<protocol::Observation(const estuary::KeyRange&)>& read_range) {
    KeyIsolation result;
    auto range = estuary::KeyRange::full();
    while (range.key_count() > 1) {
        auto [lower, upper] = range.split_halves();
        auto run = read_range(lower);
        ++result.reads;
        if (!run.process.exit.succeeded()) {
            result.why_not = fmt::format("the read of range {} failed ({}) while narrowing",
                                         lower.to_string(), run.process.exit.describe());
            return result;
        }
        range = emitted(run, target) ? lower : upper;
    }
    result.key = range.begin;
    return result;
}

std::vector<estuary::KeyRange> ranges_around(std::uint32_t key) {
    std::vector<estuary::KeyRange> ranges;
    if (key > 0) {
        ranges.push_back({0, key - 1});
    }
    ranges.push_back({key, key});
    if (key < 0xffffffff) {
        ranges.push_back({key + 1, 0xffffffff});
    }
    return ranges;
}

}  // namespace conform::suite
