#include "report/model.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace conform::report {

std::string location_of(const Example& example) {
    std::string location = example.run.empty() ? "" : "run " + example.run;
    if (example.line > 0) {
        location += (location.empty() ? "" : ", ") + std::string("stdout line ") +
                    std::to_string(example.line);
    }
    return location;
}

std::string_view status_name(Status status) {
    switch (status) {
        case Status::passed:
            return "passed";
        case Status::warned:
            return "warned";
        case Status::failed:
            return "failed";
        case Status::skipped:
            return "skipped";
        case Status::expected_failure:
            return "expected-failure";
        case Status::flaky:
            return "flaky";
    }
    return "?";
}

std::string_view level_name(Level level) {
    return level == Level::must ? "MUST" : "SHOULD";
}

void redact(ScenarioResult& result, const Mask& mask) {
    for (auto& check : result.checks) {
        check.note = mask(check.note);
        for (auto& example : check.examples) {
            example.message = mask(example.message);
            example.excerpt = mask(example.excerpt);
            for (auto& line : example.context) {
                line.text = mask(line.text);
            }
        }
    }
    for (auto& run : result.runs) {
        run.label = mask(run.label);
        run.command = mask(run.command);
        run.stderr_tail = mask(run.stderr_tail);
        run.cleanup_problem = mask(run.cleanup_problem);
        for (auto& resume : run.timeline.resumes) {
            resume.run = mask(resume.run);
            resume.lost_example = mask(resume.lost_example);
            resume.repeated_example = mask(resume.repeated_example);
        }
    }
    result.rerun = mask(result.rerun);
    for (auto& check : result.checks) {
        check.flaky_first_failure = mask(check.flaky_first_failure);
    }
}

std::size_t Differences::unaccepted_breaking() const {
    return static_cast<std::size_t>(
        std::count_if(changes.begin(), changes.end(), [](const Difference& change) {
            return change.breaking && change.accepted_reason.empty();
        }));
}

std::string version_or_unknown(const RunReport& report) {
    return report.connector_version.empty() ? "unknown" : report.connector_version;
}

std::string more_findings(const CheckResult& check) {
    std::uint64_t shown_should = 0;
    std::uint64_t shown_own = 0;
    for (const auto& example : check.examples) {
        (example.message.starts_with("(SHOULD) ") ? shown_should : shown_own) += example.findings;
    }
    auto own = check.occurrences - std::min(check.advisories, check.occurrences);
    auto more_own = own - std::min<std::uint64_t>(shown_own, own);
    auto more_should = check.advisories - std::min(shown_should, check.advisories);
    if (more_own > 0 && more_should > 0) {
        return fmt::format("{} more, and {} more (SHOULD)", more_own, more_should);
    }
    if (more_should > 0) {
        return fmt::format("{} more (SHOULD)", more_should);
    }
    return more_own > 0 ? fmt::format("{} more", more_own) : "";
}

std::string counted_apart(const Totals& totals) {
    std::string text;
    if (totals.expected_failures > 0) {
        text += fmt::format(", {} expected failure(s)", totals.expected_failures);
    }
    if (totals.flaky > 0) {
        text += fmt::format(", {} flaky", totals.flaky);
    }
    return text;
}

Totals RunReport::check_totals() const {
    Totals totals;
    for (const auto& scenario : scenarios) {
        for (const auto& check : scenario.checks) {
            switch (check.status) {
                case Status::passed:
                    ++totals.passed;
                    break;
                case Status::warned:
                    ++totals.warned;
                    break;
                case Status::failed:
                    ++totals.failed;
                    break;
                case Status::skipped:
                    ++totals.skipped;
                    break;
                case Status::expected_failure:
                    ++totals.expected_failures;
                    break;
                case Status::flaky:
                    ++totals.flaky;
                    break;
            }
        }
    }
    return totals;
}

}  // namespace conform::report
