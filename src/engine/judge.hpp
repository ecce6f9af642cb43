#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "engine/needs.hpp"
#include "engine/verdict.hpp"

// What every protocol's check receives and how it is judged: exactly the steps its needs matched
// (those that ran), then the status rules of conclude().
namespace conform::engine {

// The steps a check's needs matched, in scenario order, keeping those that ran. `Result` is a
// protocol's step result: `ran()`, `why_not` and `step->id`.
template <typename Result>
class MatchedSteps {
public:
    MatchedSteps(const std::vector<Result>& results, const Matching& matching) {
        for (const auto& indexes : matching.steps) {
            auto& kept = m_steps.emplace_back();
            m_matched.push_back(indexes.size());
            for (auto index : indexes) {
                if (index < results.size()) {
                    keep(results[index], kept);
                }
            }
        }
    }

    // The steps need `need` matched that ran, in scenario order.
    const std::vector<const Result*>& steps(std::size_t need) const { return m_steps.at(need); }
    // The first step need `need` matched that ran (a need of count one or two has it).
    const Result& first(std::size_t need) const { return *m_steps.at(need).at(0); }
    // Every step that ran for any need, each once, in scenario order.
    std::vector<const Result*> all_steps() const {
        std::vector<const Result*> all;
        for (const auto& steps : m_steps) {
            all.insert(all.end(), steps.begin(), steps.end());
        }
        std::sort(all.begin(), all.end());  // one vector of results: address order is step order
        all.erase(std::unique(all.begin(), all.end()), all.end());
        return all;
    }
    // Why a matched step did not run (the first such step); nothing when all ran.
    const std::optional<std::string>& not_run() const { return m_not_run; }
    // True when every need of count one or two kept all its steps: only then can the check's
    // code compare what it needs.
    template <typename Role>
    bool complete_for(const std::vector<Need<Role>>& needs) const {
        for (std::size_t i = 0; i < needs.size() && i < m_steps.size(); ++i) {
            bool exact = needs[i].count == Count::one || needs[i].count == Count::two;
            if (exact && m_steps[i].size() != m_matched[i]) {
                return false;
            }
        }
        return true;
    }

private:
    void keep(const Result& result, std::vector<const Result*>& kept) {
        if (result.ran()) {
            kept.push_back(&result);
        } else if (!m_not_run) {
            m_not_run = fmt::format("step '{}' did not run: {}", result.step->id,
                                    result.why_not.empty() ? "nothing to run" : result.why_not);
        }
    }

    std::vector<std::vector<const Result*>> m_steps;
    std::vector<std::size_t> m_matched;
    std::optional<std::string> m_not_run;
};

// Runs `check`'s code on `inputs` and concludes. A step it reads that did not run makes the
// verdict incomplete; a need of count one or two that lost its step keeps the code from running.
// `circumstances.not_run` already set (an unmet requirement) means the code does not run at all.
template <typename CheckT, typename Inputs>
report::CheckResult judge(const CheckT& check, const Inputs& inputs, Circumstances circumstances) {
    circumstances.nothing_judged = check.nothing_judged;
    Verdict verdict;
    if (!circumstances.not_run) {
        circumstances.not_run = inputs.not_run();
        if (inputs.complete_for(check.needs)) {
            check.code(inputs, verdict);
        }
    }
    return conclude(check.info, verdict, circumstances);
}

}  // namespace conform::engine
