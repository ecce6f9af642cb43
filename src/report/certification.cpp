#include "report/certification.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace conform::report {

namespace {

struct AreaChecks {
    std::size_t scenarios = 0;
    std::size_t judged = 0;  // passed or warned
    std::vector<std::string> failed;
    std::vector<std::string> skipped;
};

AreaChecks collect(const RunReport& report, std::string_view extension) {
    AreaChecks area;
    for (const auto& scenario : report.scenarios) {
        if (scenario.extension != extension) {
            continue;
        }
        ++area.scenarios;
        for (const auto& check : scenario.checks) {
            auto where = fmt::format("{}:{}", scenario.id, check.id);
            // A known failure or a flaky check does not fail the run, but certifies nothing.
            if (check.status == Status::failed || check.status == Status::expected_failure ||
                check.status == Status::flaky) {
                area.failed.push_back(where);
            } else if (check.status == Status::skipped) {
                area.skipped.push_back(where);
            } else {
                ++area.judged;
            }
        }
    }
    return area;
}

std::string listing(const std::vector<std::string>& items) {
    constexpr std::size_t k_shown = 5;
    std::vector<std::string> shown(
        items.begin(),
        items.begin() + static_cast<std::ptrdiff_t>(std::min(items.size(), k_shown)));
    auto text = fmt::format("{}", fmt::join(shown, ", "));
    if (items.size() > k_shown) {
        text += fmt::format(" and {} more", items.size() - k_shown);
    }
    return text;
}

// Failures decide first; then whatever keeps the run from being the whole suite.
AreaVerdict judge(const RunReport& report, std::string area_name, const AreaChecks& area,
                  bool skips_allowed) {
    AreaVerdict verdict{std::move(area_name), Certified::certified, {}};
    if (!area.failed.empty()) {
        verdict.level = Certified::failed;
        verdict.reason =
            fmt::format("{} check(s) failed: {}", area.failed.size(), listing(area.failed));
    } else if (area.scenarios == 0 || area.judged == 0) {
        verdict.level = Certified::not_tested;
        verdict.reason = area.scenarios == 0 ? "no scenario of it ran" : "every check was skipped";
    } else if (report.interrupted) {
        verdict.level = Certified::incomplete;
        verdict.reason = "the run was interrupted";
    } else if (report.recorded_transcript) {
        verdict.level = Certified::incomplete;
        verdict.reason =
            "a recorded transcript shows the messages of one read only: `conform run` certifies";
    } else if (!report.shard.empty()) {
        verdict.level = Certified::incomplete;
        verdict.reason =
            fmt::format("shard {} of a run; `conform report` merges the shards into the whole run",
                        report.shard);
    } else if (report.filtered) {
        verdict.level = Certified::incomplete;
        verdict.reason = "--only/--skip left part of the suite out";
    } else if (!report.untested.empty()) {
        verdict.level = Certified::incomplete;
        verdict.reason = report.untested;
    } else if (!skips_allowed && !area.skipped.empty()) {
        verdict.level = Certified::incomplete;
        verdict.reason =
            fmt::format("{} check(s) skipped: {}", area.skipped.size(), listing(area.skipped));
    }
    return verdict;
}

}  // namespace

std::string_view certified_name(Certified level) {
    switch (level) {
        case Certified::certified:
            return "certified";
        case Certified::failed:
            return "failed";
        case Certified::incomplete:
            return "incomplete";
        case Certified::not_claimed:
            return "not claimed";
        case Certified::not_tested:
            return "not tested";
    }
    return "?";
}

const std::vector<std::string>& known_extensions() {
    static const std::vector<std::string> k_extensions{"tail", "range", "merge", "projections"};
    return k_extensions;
}

namespace {

bool is_claimed(const std::vector<std::string>& claimed, std::string_view extension) {
    return std::find(claimed.begin(), claimed.end(), extension) != claimed.end();
}

// The area of a check id ("merge" of merge.reduction_valid) when it is an extension's.
std::string extension_area_of(std::string_view check_id) {
    auto area = std::string(check_id.substr(0, check_id.find('.')));
    const auto& known = known_extensions();
    return std::find(known.begin(), known.end(), area) != known.end() ? area : std::string();
}

// How a connector claims `extensions`, in the terms the run was given in.
std::string how_to_claim(const RunReport& report, const std::vector<std::string>& extensions) {
    if (report.recorded_transcript) {
        return "conform run tests the extensions a connector claims";
    }
    if (report.test_config == k_command_line_origin) {
        return fmt::format("a connector that supports one claims it with --extensions {}",
                           fmt::join(extensions, ","));
    }
    return fmt::format(
        "a connector that supports one claims it in its test config: "
        "\"extensions\": [\"{}\"]",
        fmt::join(extensions, "\", \""));
}

}  // namespace

std::string unclaimed_extension_of(const ScenarioResult& scenario, const CheckResult& check,
                                   const std::vector<std::string>& claimed) {
    if (check.status != Status::skipped) {
        return {};
    }
    auto extension = scenario.extension.empty() ? extension_area_of(check.id) : scenario.extension;
    return extension.empty() || is_claimed(claimed, extension) ? std::string() : extension;
}

UnclaimedSkips unclaimed_skips(const RunReport& report, const std::vector<std::string>& claimed) {
    UnclaimedSkips skips;
    std::vector<std::string> seen;
    for (const auto& scenario : report.scenarios) {
        for (const auto& check : scenario.checks) {
            auto extension = unclaimed_extension_of(scenario, check, claimed);
            if (extension.empty()) {
                continue;
            }
            ++skips.checks;
            if (!is_claimed(seen, extension)) {
                seen.push_back(extension);
            }
        }
    }
    for (const auto& extension : known_extensions()) {
        if (is_claimed(seen, extension)) {
            skips.extensions.push_back(extension);
        }
    }
    return skips;
}

std::string unclaimed_summary(const RunReport& report, const UnclaimedSkips& skips) {
    if (skips.checks == 0) {
        return {};
    }
    return fmt::format("{} check(s) of extensions the connector does not claim: {}; {}",
                       skips.checks, fmt::join(skips.extensions, ", "),
                       how_to_claim(report, skips.extensions));
}

std::vector<AreaVerdict> certify(const RunReport& report) {
    if (report.protocol == k_meltano_extension) {
        return {judge(report, "extension", collect(report, ""), true)};
    }
    // A destination's skipped check is one conform could not look at (no verify command, a mode
    // that serves it not): the destination is not certified without it.
    if (report.protocol == k_airbyte_destination) {
        return {judge(report, "destination", collect(report, ""), false)};
    }
    // A Singer tap: one area, named for it; checks skip when the tap offers less (no state, one
    // stream), as core checks do.
    if (report.protocol == k_singer) {
        return {judge(report, "singer", collect(report, ""), true)};
    }
    // Core checks skip when there is nothing to judge (no incremental stream, say): the
    // connector offers less, and what it offers conforms. A claimed extension promises it all.
    std::vector<AreaVerdict> verdicts{judge(report, "core", collect(report, ""), true)};
    for (const auto& extension : known_extensions()) {
        bool claimed = std::find(report.claimed_extensions.begin(), report.claimed_extensions.end(),
                                 extension) != report.claimed_extensions.end();
        if (!claimed) {
            verdicts.push_back(
                {extension, Certified::not_claimed, "the connector does not claim it"});
            continue;
        }
        verdicts.push_back(judge(report, extension, collect(report, extension), false));
    }
    return verdicts;
}

}  // namespace conform::report
