#include "report/coverage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "report/clauses.hpp"
#include "report/model.hpp"

namespace conform::report {

namespace {

// The contract's clause families each protocol answers to (docs/CONTRACT.md).
std::vector<std::string_view> families_of(std::string_view protocol) {
    if (protocol == k_meltano_extension) {
        return {"MX-"};
    }
    if (protocol == k_singer) {
        return {"SG-"};
    }
    if (protocol == k_airbyte_destination) {
        return {"DST-"};
    }
    return {"AP-", "X-"};
}

bool judged(Status status) {
    return status != Status::skipped;
}

template <typename T>
void add_once(std::vector<T>& items, const T& item) {
    if (std::find(items.begin(), items.end(), item) == items.end()) {
        items.push_back(item);
    }
}

void record_check(ClauseCoverage& clause, const CheckResult& check) {
    if (judged(check.status)) {
        add_once(clause.judged_by, check.id);
    } else {
        add_once(clause.skipped_by, SkippedBy{check.id, check.note});
    }
}

// In one order whatever order the scenarios ran in, so that merged shards equal the whole run.
void sort_checks(ClauseCoverage& clause) {
    std::sort(clause.judged_by.begin(), clause.judged_by.end());
    std::sort(clause.skipped_by.begin(), clause.skipped_by.end(),
              [](const SkippedBy& a, const SkippedBy& b) {
                  return std::tie(a.check, a.reason) < std::tie(b.check, b.reason);
              });
}

ClauseCoverage merged_clause(ClauseCoverage into, const ClauseCoverage& other) {
    for (const auto& check : other.checks) {
        add_once(into.checks, check);
    }
    for (const auto& check : other.judged_by) {
        add_once(into.judged_by, check);
    }
    for (const auto& skip : other.skipped_by) {
        add_once(into.skipped_by, skip);
    }
    sort_checks(into);
    return into;
}

void add_mode(std::vector<SyncModeCount>& modes, const SyncModeCount& count) {
    auto found = std::find_if(modes.begin(), modes.end(),
                              [&count](const SyncModeCount& m) { return m.mode == count.mode; });
    if (found == modes.end()) {
        modes.push_back(count);
        return;
    }
    found->runs += count.runs;
    found->records += count.records;
}

StreamCoverage merged_stream(StreamCoverage into, const StreamCoverage& other) {
    into.available = into.available || other.available;
    into.configured = into.configured || other.configured;
    for (const auto& mode : other.configured_modes) {
        add_once(into.configured_modes, mode);
    }
    for (const auto& mode : other.modes) {
        add_mode(into.modes, mode);
    }
    for (const auto& difference : other.catalog_differences) {
        add_once(into.catalog_differences, difference);
    }
    std::sort(into.modes.begin(), into.modes.end(),
              [](const SyncModeCount& a, const SyncModeCount& b) { return a.mode < b.mode; });
    return into;
}

StreamsCoverage merged_streams(const StreamsCoverage& first, const StreamsCoverage& second) {
    StreamsCoverage merged = first;
    merged.applicable = first.applicable && second.applicable;
    // A shard that ran discover knows what the target offers for the whole run.
    merged.available_known = first.available_known || second.available_known;
    if (merged.available_known && !first.available_known) {
        merged.note = second.note;
    }
    for (const auto& stream : second.streams) {
        auto found =
            std::find_if(merged.streams.begin(), merged.streams.end(),
                         [&stream](const StreamCoverage& s) { return s.stream == stream.stream; });
        if (found == merged.streams.end()) {
            merged.streams.push_back(stream);
        } else {
            *found = merged_stream(*found, stream);
        }
    }
    return merged;
}

}  // namespace

std::uint64_t StreamCoverage::records() const {
    std::uint64_t total = 0;
    for (const auto& mode : modes) {
        total += mode.records;
    }
    return total;
}

std::string_view clause_state_name(ClauseState state) {
    switch (state) {
        case ClauseState::judged:
            return "judged";
        case ClauseState::skipped:
            return "skipped";
        case ClauseState::not_selected:
            return "not-selected";
        case ClauseState::no_check:
            return "no-check";
    }
    return "no-check";
}

ClauseState ClauseCoverage::state() const {
    if (!judged_by.empty()) {
        return ClauseState::judged;
    }
    if (!skipped_by.empty()) {
        return ClauseState::skipped;
    }
    return checks.empty() ? ClauseState::no_check : ClauseState::not_selected;
}

std::vector<ClauseCoverage> clause_coverage(std::string_view protocol,
                                            const std::vector<CheckClauses>& checks,
                                            const std::vector<ScenarioResult>& scenarios) {
    std::vector<ClauseCoverage> clauses;
    std::map<std::string, std::size_t, std::less<>> index;
    for (auto family : families_of(protocol)) {
        for (auto& id : clause_ids(family)) {
            index.emplace(id, clauses.size());
            clauses.push_back({std::move(id), {}, {}, {}});
        }
    }
    for (const auto& check : checks) {
        for (const auto& clause : check.clauses) {
            if (auto found = index.find(clause); found != index.end()) {
                add_once(clauses[found->second].checks, check.id);
            }
        }
    }
    for (const auto& scenario : scenarios) {
        for (const auto& check : scenario.checks) {
            for (const auto& clause : check.clauses) {
                if (auto found = index.find(clause); found != index.end()) {
                    record_check(clauses[found->second], check);
                }
            }
        }
    }
    std::for_each(clauses.begin(), clauses.end(), sort_checks);
    return clauses;
}

Coverage merged_coverage(const Coverage& first, const Coverage& second) {
    Coverage merged;
    merged.streams = merged_streams(first.streams, second.streams);
    merged.clauses = first.clauses;
    for (const auto& clause : second.clauses) {
        auto found =
            std::find_if(merged.clauses.begin(), merged.clauses.end(),
                         [&clause](const ClauseCoverage& c) { return c.clause == clause.clause; });
        if (found == merged.clauses.end()) {
            merged.clauses.push_back(clause);
        } else {
            *found = merged_clause(*found, clause);
        }
    }
    return merged;
}

std::string clause_counts(const std::vector<ClauseCoverage>& clauses) {
    std::map<ClauseState, std::size_t> counts;
    for (const auto& clause : clauses) {
        ++counts[clause.state()];
    }
    return fmt::format("{} judged, {} skipped, {} not selected, {} without a check",
                       counts[ClauseState::judged], counts[ClauseState::skipped],
                       counts[ClauseState::not_selected], counts[ClauseState::no_check]);
}

std::string streams_summary(const StreamsCoverage& streams) {
    if (!streams.applicable) {
        return streams.note;
    }
    std::size_t available = 0;
    std::size_t configured = 0;
    std::size_t with_data = 0;
    std::set<std::string> modes;
    for (const auto& stream : streams.streams) {
        available += stream.available ? 1 : 0;
        configured += stream.configured ? 1 : 0;
        with_data += stream.records() > 0 ? 1 : 0;
        for (const auto& mode : stream.modes) {
            if (mode.records > 0) {
                modes.insert(mode.mode);
            }
        }
    }
    return fmt::format("{}, {} configured, {} with data{}",
                       streams.available_known ? fmt::format("{} available", available)
                                               : std::string("available not known"),
                       configured, with_data,
                       modes.empty() ? "" : fmt::format(" ({})", fmt::join(modes, ", ")));
}

std::string modes_read(const StreamCoverage& stream) {
    std::vector<std::string> parts;
    for (const auto& mode : stream.modes) {
        parts.push_back(
            fmt::format("{}: {} run(s), {} records", mode.mode, mode.runs, mode.records));
    }
    return parts.empty() ? std::string("not read") : fmt::format("{}", fmt::join(parts, "; "));
}

CatalogDifferenceLines catalog_difference_lines(const StreamsCoverage& streams, std::size_t limit) {
    CatalogDifferenceLines lines;
    for (const auto& stream : streams.streams) {
        if (stream.catalog_differences.empty()) {
            continue;
        }
        if (lines.shown.size() == limit) {
            ++lines.more;
            continue;
        }
        lines.shown.emplace_back(stream.stream,
                                 fmt::format("{}", fmt::join(stream.catalog_differences, "; ")));
    }
    return lines;
}

std::string why_not_judged(const ClauseCoverage& clause) {
    switch (clause.state()) {
        case ClauseState::judged:
            return {};
        case ClauseState::skipped: {
            std::vector<std::string> reasons;
            for (const auto& skip : clause.skipped_by) {
                reasons.push_back(fmt::format("{}: {}", skip.check, skip.reason));
            }
            return fmt::format("{}", fmt::join(reasons, "; "));
        }
        case ClauseState::not_selected:
            return fmt::format("not run: {}", fmt::join(clause.checks, ", "));
        case ClauseState::no_check:
            break;
    }
    return "conform has no check for it";
}

}  // namespace conform::report
