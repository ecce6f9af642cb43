#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

#include "report/json_read.hpp"
#include "util/error.hpp"

namespace conform::report {

namespace {

struct ShardId {
    std::size_t index = 0;
    std::size_t count = 0;
};

std::optional<ShardId> parse_shard(const std::string& text) {
    ShardId shard;
    char slash = 0;
    if (std::sscanf(text.c_str(), "%zu%c%zu", &shard.index, &slash, &shard.count) != 3 ||
        slash != '/' || shard.index == 0 || shard.index > shard.count) {
        return std::nullopt;
    }
    return shard;
}

// The inputs are exactly the N shards of one run, or none of them is a shard; throws otherwise
// (a shard missing, given twice, or of another split).
void require_all_shards_or_none(const std::vector<RunReport>& reports,
                                const std::vector<std::string>& names) {
    std::map<std::size_t, std::string> seen;
    std::size_t count = 0;
    for (std::size_t i = 0; i < reports.size(); ++i) {
        if (reports[i].shard.empty()) {
            if (!seen.empty()) {
                throw_input_error(
                    fmt::format("{} is a whole run and {} a shard: merge the shards "
                                "of one run, or whole runs",
                                names[i], seen.begin()->second));
            }
            continue;
        }
        auto shard = parse_shard(reports[i].shard);
        if (!shard || (count != 0 && shard->count != count)) {
            throw_input_error(fmt::format("{}: shard '{}' is not one of {} shards", names[i],
                                          reports[i].shard, count));
        }
        count = shard->count;
        if (auto [at, added] = seen.emplace(shard->index, names[i]); !added) {
            throw_input_error(fmt::format("shard {} given twice: {} and {}", reports[i].shard,
                                          at->second, names[i]));
        }
    }
    if (!seen.empty() && seen.size() != count) {
        for (std::size_t index = 1; index <= count; ++index) {
            if (seen.count(index) == 0) {
                throw_input_error(fmt::format("shard {}/{} is missing (merged: {})", index, count,
                                              fmt::join(names, ", ")));
            }
        }
    }
}

void require_same_run(const RunReport& first, const RunReport& other, const std::string& first_name,
                      const std::string& name) {
    auto differ = [&](std::string_view what, const std::string& a, const std::string& b) {
        if (a != b) {
            throw_input_error(fmt::format("{} and {} are not reports of one run: {} '{}' vs '{}'",
                                          first_name, name, what, a, b));
        }
    };
    differ("connector", first.connector, other.connector);
    differ("connector version", first.connector_version, other.connector_version);
    differ("test config", first.test_config, other.test_config);
    differ("strict", first.strict ? "true" : "false", other.strict ? "true" : "false");
    differ("claimed extensions", fmt::format("{}", fmt::join(first.claimed_extensions, ",")),
           fmt::format("{}", fmt::join(other.claimed_extensions, ",")));
}

// Coverage is kept only when every part has it: a part without it (an older conform's report)
// would make the union claim too little.
std::optional<Coverage> merged_coverage_of(const std::optional<Coverage>& merged,
                                           const std::optional<Coverage>& part) {
    if (!merged || !part) {
        return std::nullopt;
    }
    return merged_coverage(*merged, *part);
}

}  // namespace

RunReport merge_reports(const std::vector<RunReport>& reports,
                        const std::vector<std::string>& names) {
    if (reports.empty()) {
        throw_input_error("no report to merge");
    }
    RunReport merged = reports.front();
    merged.scenarios.clear();
    require_all_shards_or_none(reports, names);
    merged.shard.clear();
    std::map<std::string, std::string> owner;  // scenario id -> file
    for (std::size_t i = 0; i < reports.size(); ++i) {
        const auto& report = reports[i];
        require_same_run(reports.front(), report, names.front(), names[i]);
        merged.started_at = std::min(merged.started_at, report.started_at);
        // Shards run side by side: the whole took as long as the slowest.
        merged.duration_ms = std::max(merged.duration_ms, report.duration_ms);
        merged.interrupted = merged.interrupted || report.interrupted;
        merged.recorded_transcript = merged.recorded_transcript || report.recorded_transcript;
        merged.filtered = merged.filtered || report.filtered;
        if (merged.untested.empty()) {
            merged.untested = report.untested;
        }
        for (const auto& scenario : report.scenarios) {
            if (auto [at, added] = owner.emplace(scenario.id, names[i]); !added) {
                throw_input_error(fmt::format("scenario '{}' is in both {} and {}", scenario.id,
                                              at->second, names[i]));
            }
            merged.scenarios.push_back(scenario);
        }
        if (i > 0) {
            merged.coverage = merged_coverage_of(merged.coverage, report.coverage);
        }
    }
    std::stable_sort(merged.scenarios.begin(), merged.scenarios.end(),
                     [](const auto& a, const auto& b) { return a.position < b.position; });
    return merged;
}

}  // namespace conform::report
