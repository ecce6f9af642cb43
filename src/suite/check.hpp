#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/test_config.hpp"
#include "engine/check.hpp"
#include "engine/judge.hpp"
#include "engine/needs.hpp"
#include "engine/verdict.hpp"
#include "protocol/catalog.hpp"
#include "protocol/line_judge.hpp"
#include "protocol/observation.hpp"
#include "protocol/secrets.hpp"
#include "suite/plan.hpp"
#include "suite/scenario.hpp"
#include "suite/timeline.hpp"

// What an Airbyte-protocol check is, and what its code receives. The checks themselves are
// defined beside their code in src/checks/airbyte/.
namespace conform::suite {

// What a step produced: its runs, or why it could not run.
struct StepResult {
    const Step* step = nullptr;
    std::vector<RunPlan> plans;
    std::vector<protocol::Observation> runs;
    std::string why_not;
    std::string note;  // how the runs were chosen, when that took runs of its own
    // How the inject command failed, for a tailing step or one that injects after it ran.
    std::string inject_problem;
    std::string checkpoints_used;  // which checkpoints a resuming step started from, for the report

    bool ran() const { return !runs.empty(); }
};

// What a scenario's steps produced, and the settings every check may read.
struct ScenarioRun {
    const Scenario* scenario = nullptr;
    const config::TestConfig* test_config = nullptr;
    const protocol::Catalog* catalog = nullptr;
    const protocol::Secrets* secrets = nullptr;
    std::string main_config;  // the rendered main config, for spec.config_valid
    std::vector<StepResult> steps;
    ResumeNotes* resumes = nullptr;  // what resumed checkpoints lost or repeated, for the timeline
    // Why no secret is known, from what the setup spec run showed ("" when secrets are known or
    // nothing was looked at).
    std::string no_secret_reason;
    // Whether its runs digest every record as it arrives: a step's records may be read by
    // another step (a backlog, a key to split around) or by a check comparing them. When not, a
    // keyless record's content stands for its line, and a keyed one's is read on demand.
    bool all_contents = true;

    const StepResult* step(const std::string& id) const;
};

class Inputs;
using CheckCode = void (*)(const Inputs&, engine::Verdict&);
using Need = engine::Need<Role>;

struct Check {
    engine::CheckInfo info;
    std::vector<Need> needs;
    // Why the check is skipped when its code judged nothing, in the user's terms.
    std::string_view nothing_judged;
    CheckCode code = nullptr;
    // A per-message check: its per-line code, which the analyzer runs on every stdout line.
    const protocol::LineJudge* judge = nullptr;
    // Requirements (a scenario's "requires") the check reads from the test config: a scenario
    // listing the check must require them.
    std::vector<std::string_view> requires_ = {};
    // The check may compare records by content (RecordEntry::content) other than keyed records
    // whose identity repeats within a run, which RecordSet reads on demand: a one-step scenario
    // whose checks all say no digests no keyless record and defers the keyed ones' digests
    // (protocol::DeferredContents).
    bool reads_contents = true;
};

using Checks = std::vector<Check>;

// Whether any of the checks `ids` names reads records' contents (unknown ids do).
bool any_reads_contents(const Checks& checks, const std::vector<std::string>& ids);

// Exactly the steps a check's needs matched that ran, and the settings of the run.
class Inputs : public engine::MatchedSteps<StepResult> {
public:
    Inputs(const ScenarioRun& run, const engine::Matching& matching);

    // The step `step` refers to (the one it resumes from, or its backlog); null when none.
    const StepResult* base_of(const StepResult& step,
                              engine::Reference reference = engine::Reference::state) const;

    // A recorded transcript (`conform validate`) comes without one.
    bool has_test_config() const { return m_run.test_config != nullptr; }
    const config::TestConfig& test_config() const { return *m_run.test_config; }
    const protocol::Catalog& catalog() const { return *m_run.catalog; }
    const protocol::Secrets& secrets() const { return *m_run.secrets; }
    const std::string& no_secret_reason() const { return m_run.no_secret_reason; }
    const std::string& main_config() const { return m_run.main_config; }
    std::vector<std::string> stream_names() const;
    // Keeps what resuming from a checkpoint of `base` lost or repeated, for the timeline.
    void note_resume(const protocol::Observation& base, report::ResumedCheckpoint resume) const;

private:
    const ScenarioRun& m_run;
};

// How the steps of `scenario` look to the needs matcher.
std::vector<engine::StepShape<Role>> step_shapes(const Scenario& scenario);

// Matches the needs of `check` to the steps of `scenario`.
engine::Matching match(const Check& check, const Scenario& scenario);

// Judges `check` on the steps `matching` gives it (engine::judge).
report::CheckResult judge(const Check& check, const engine::Matching& matching,
                          const ScenarioRun& run, const engine::Circumstances& circumstances);

// The judges of the per-message checks among `ids`.
std::vector<const protocol::LineJudge*> judges_of(const Checks& checks,
                                                  const std::vector<std::string>& ids);

using engine::find_check;

}  // namespace conform::suite
