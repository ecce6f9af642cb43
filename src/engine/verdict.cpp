#include "engine/verdict.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace conform::engine {

void Verdict::keep(std::string message, Where where, std::uint64_t findings) {
    if (m_examples.size() < k_examples) {
        report::Example example{std::move(message), std::move(where.run), where.line,
                                std::move(where.excerpt)};
        example.findings = findings;
        m_examples.push_back(std::move(example));
    }
}

void Verdict::fail(std::string message, Where where, std::uint64_t findings) {
    m_failures += findings;
    keep(std::move(message), std::move(where), findings);
}

void Verdict::advise(std::string message, Where where) {
    ++m_advisories;
    keep("(SHOULD) " + std::move(message), std::move(where));
}

void Verdict::count_more(std::uint64_t failures, std::uint64_t advisories) {
    m_failures += failures;
    m_advisories += advisories;
}

void Verdict::judged(std::uint64_t count) {
    m_judged += count;
}

void Verdict::skip(std::string reason) {
    if (!m_skipped) {
        m_skipped = std::move(reason);
    }
}

void Verdict::note(const std::string& text) {
    if (!text.empty()) {
        m_note += (m_note.empty() ? "" : "; ") + text;
    }
}

namespace {

report::CheckResult described(const CheckInfo& info) {
    report::CheckResult result;
    result.id = std::string(info.id);
    for (auto clause : info.clauses) {
        result.clauses.emplace_back(clause);
    }
    result.level = info.level;
    result.title = std::string(info.title);
    return result;
}

}  // namespace

report::CheckResult conclude(const CheckInfo& info, const Verdict& verdict,
                             const Circumstances& circumstances) {
    auto result = described(info);
    result.examples = verdict.examples();
    result.occurrences = verdict.failures() + verdict.advisories();
    result.advisories = verdict.advisories();
    const auto& incomplete = circumstances.not_run ? circumstances.not_run : verdict.skipped();
    if (result.occurrences > 0) {
        bool breaks_must = verdict.failures() > 0 && info.level == report::Level::must;
        result.status =
            breaks_must || circumstances.strict ? report::Status::failed : report::Status::warned;
        result.note = incomplete ? fmt::format("{}{}(incomplete: {})", verdict.notes(),
                                               verdict.notes().empty() ? "" : " ", *incomplete)
                                 : verdict.notes();
        return result;
    }
    if (!incomplete && verdict.judged_count() > 0) {
        result.status = report::Status::passed;
        result.note = verdict.notes();
        return result;
    }
    auto reason = incomplete ? *incomplete : std::string(circumstances.nothing_judged);
    if (circumstances.strict && !circumstances.claimed_extension.empty()) {
        result.status = report::Status::failed;
        result.occurrences = 1;
        result.examples.push_back(
            {fmt::format("the connector claims '{}' but this check did not "
                         "run (--strict): {}",
                         circumstances.claimed_extension, reason)});
        return result;
    }
    result.status = report::Status::skipped;
    result.note = reason;
    return result;
}

namespace {

// How much a check's status weighs in its scenario's: the heaviest wins.
int weight(report::Status status) {
    switch (status) {
        case report::Status::skipped:
            return 0;
        case report::Status::passed:
            return 1;
        case report::Status::warned:
            return 2;
        case report::Status::flaky:
            return 3;
        case report::Status::expected_failure:
            return 4;
        case report::Status::failed:
            return 5;
    }
    return 0;
}

}  // namespace

report::Status scenario_status(const std::vector<report::CheckResult>& checks) {
    // Under --only, a scenario may keep none of the checks it exists for: then all of them count.
    bool any_purpose = std::any_of(checks.begin(), checks.end(),
                                   [](const report::CheckResult& check) { return check.purpose; });
    bool purpose_ran = false;
    report::Status status = report::Status::passed;
    for (const auto& check : checks) {
        if (check.status == report::Status::skipped) {
            continue;
        }
        if (weight(check.status) > weight(status)) {
            status = check.status;
        }
        purpose_ran = purpose_ran || check.purpose || !any_purpose;
    }
    return purpose_ran || status != report::Status::passed ? status : report::Status::skipped;
}

}  // namespace conform::engine
