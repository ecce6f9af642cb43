#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/test_config.hpp"
#include "protocol/catalog.hpp"
#include "protocol/observation.hpp"
#include "protocol/secrets.hpp"
#include "report/model.hpp"
#include "suite/plan.hpp"
#include "suite/scenario.hpp"

namespace conform::suite {

// What a step produced: its runs, or why it could not run.
struct StepResult {
    const Step* step = nullptr;
    std::vector<RunPlan> plans;
    std::vector<protocol::Observation> runs;
    std::string why_not;
    std::string note;  // how the runs were chosen, when that took runs of its own
};

// Everything a check may look at once its scenario has run.
struct ScenarioContext {
    const Scenario* scenario = nullptr;
    const config::TestConfig* test_config = nullptr;
    const protocol::Catalog* catalog = nullptr;
    const protocol::Secrets* secrets = nullptr;
    std::string main_config;  // the rendered main config, for spec.config_valid
    std::vector<StepResult> steps;

    const StepResult* step(const std::string& id) const;
    // Steps whose `run` is `command`.
    std::vector<const StepResult*> steps_running(Command command) const;
    // Steps that provide `role` (Step::roles), in scenario order.
    std::vector<const StepResult*> steps_with(Role role) const;
    // The first step that provides `role` and has runs, or nullptr.
    const StepResult* first_run_with(Role role) const;
};

// What one check concluded. Findings added with add() break the check's own level (a MUST check
// fails); those added with advise() are SHOULD-level inside it and only warn.
struct CheckOutcome {
    std::vector<report::Example> examples;
    std::uint64_t occurrences = 0;  // every finding, advisories included
    std::uint64_t advisories = 0;
    std::string note;
    std::optional<std::string> not_applicable;  // skipped, with the reason
    // What each resumed checkpoint lost or repeated, keyed by the run resumed from: the data of
    // the report's checkpoint timeline (suite/timeline.hpp), not findings.
    std::vector<std::pair<const protocol::Observation*, report::ResumedCheckpoint>> resumes;

    void add(std::string message, std::string run = {}, std::uint64_t line = 0,
             std::string excerpt = {});
    void advise(std::string message, std::string run = {}, std::uint64_t line = 0,
                std::string excerpt = {});
    // Skipped with `reason` unless something was found (then the findings stand).
    void skip(std::string reason);
};

// Evaluates the check `id` on a finished scenario.
CheckOutcome evaluate_check(const std::string& id, const ScenarioContext& context);

// The reported result of check `id`: MUST findings fail, SHOULD findings warn (fail if `strict`).
// Not yet redacted: report::redact masks the whole scenario result.
report::CheckResult to_check_result(const std::string& id, const CheckOutcome& outcome,
                                    bool strict);

// failed if any check failed, else warned if any warned, skipped if all were skipped.
report::Status scenario_status(const std::vector<report::CheckResult>& checks);

}  // namespace conform::suite
