#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/check.hpp"
#include "report/model.hpp"

namespace conform::engine {

// Where a finding was seen: the connector run, its stdout line (0: none) and an excerpt.
struct Where {
    std::string run = {};
    std::uint64_t line = 0;
    std::string excerpt = {};
};

// What a check's code tells the framework; the framework, not the check, turns it into a status
// (conclude). A check that judged nothing and found nothing is skipped with a reason, never passed.
class Verdict {
public:
    static constexpr std::size_t k_examples = 5;

    // A finding that breaks the check's clause: fails a MUST check, warns in a SHOULD check.
    // `findings` > 1: one example standing for that many findings of the same thing.
    void fail(std::string message, Where where = {}, std::uint64_t findings = 1);
    // A SHOULD-level finding inside a MUST check: warns, fails only under --strict.
    void advise(std::string message, Where where = {});
    // Findings beyond the examples given, counted where they were seen.
    void count_more(std::uint64_t failures, std::uint64_t advisories = 0);
    // `count` things were looked at (records compared, runs whose exit was judged, lines read).
    void judged(std::uint64_t count = 1);
    // Something could not be judged, and why, in the user's terms: without findings the check is
    // skipped; with findings they stand and the note says the check was incomplete.
    void skip(std::string reason);
    // What was compared or how, for the report (appended, "; " between notes).
    void note(const std::string& text);

    std::uint64_t failures() const { return m_failures; }
    std::uint64_t advisories() const { return m_advisories; }
    std::uint64_t judged_count() const { return m_judged; }
    const std::optional<std::string>& skipped() const { return m_skipped; }
    const std::vector<report::Example>& examples() const { return m_examples; }
    const std::string& notes() const { return m_note; }

private:
    void keep(std::string message, Where where, std::uint64_t findings = 1);

    std::vector<report::Example> m_examples;
    std::uint64_t m_failures = 0;
    std::uint64_t m_advisories = 0;
    std::uint64_t m_judged = 0;
    std::optional<std::string> m_skipped;
    std::string m_note;
};

// The circumstances of one verdict that the status rules weigh.
struct Circumstances {
    bool strict = false;
    // The check's own reason for a skip when its code judged nothing.
    std::string_view nothing_judged = "nothing to judge";
    // Set when the check could not run at all, or when a step it reads did not run.
    std::optional<std::string> not_run = std::nullopt;
    // The extension the scenario certifies, when the test config claims it: under --strict, a
    // check of a claimed extension that did not run fails.
    std::string claimed_extension = {};
};

// The status rules, in one place: findings at a MUST check's level fail, other findings warn
// (everything fails under --strict); without findings, a check that judged nothing or could not
// judge everything is skipped with the reason; otherwise it passed.
report::CheckResult conclude(const CheckInfo& info, const Verdict& verdict,
                             const Circumstances& circumstances);

// failed if any check failed, else expected-failure, flaky or warned if any check is (in that
// order), skipped if all were skipped or every check the scenario exists for (CheckResult::
// purpose) was, else passed: a scenario never passes on what every run is judged on alone.
report::Status scenario_status(const std::vector<report::CheckResult>& checks);

// Whether `scenario` (of any protocol: a `purpose` list, empty for all) exists for the check `id`.
template <typename ScenarioT>
bool exists_for(const ScenarioT& scenario, std::string_view id) {
    return scenario.purpose.empty() || std::find(scenario.purpose.begin(), scenario.purpose.end(),
                                                 id) != scenario.purpose.end();
}

}  // namespace conform::engine
