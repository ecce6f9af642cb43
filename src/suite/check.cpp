#include "suite/check.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace conform::suite {

namespace {

std::optional<std::size_t> index_of(const Scenario& scenario, const std::string& id) {
    for (std::size_t i = 0; i < scenario.steps.size(); ++i) {
        if (!id.empty() && scenario.steps[i].id == id) {
            return i;
        }
    }
    return std::nullopt;
}

// Says in the check's note which checkpoints the resuming steps it judged started from.
void add_checkpoints_used(const Inputs& inputs, report::CheckResult& result) {
    for (const auto* step : inputs.all_steps()) {
        if (step->checkpoints_used.empty()) {
            continue;
        }
        auto used = fmt::format("step '{}' {}", step->step->id, step->checkpoints_used);
        result.note = result.note.empty() ? used : result.note + "; " + used;
    }
}

}  // namespace

const StepResult* ScenarioRun::step(const std::string& id) const {
    for (const auto& result : steps) {
        if (result.step->id == id) {
            return &result;
        }
    }
    return nullptr;
}

Inputs::Inputs(const ScenarioRun& run, const engine::Matching& matching)
    : MatchedSteps(run.steps, matching), m_run(run) {}

const StepResult* Inputs::base_of(const StepResult& step, engine::Reference reference) const {
    const auto& id =
        reference == engine::Reference::state ? step.step->state_from : step.step->backlog_from;
    return id.empty() ? nullptr : m_run.step(id);
}

std::vector<std::string> Inputs::stream_names() const {
    std::vector<std::string> names;
    for (const auto& stream : m_run.catalog->streams) {
        names.push_back(stream.display_name());
    }
    return names;
}

void Inputs::note_resume(const protocol::Observation& base,
                         report::ResumedCheckpoint resume) const {
    if (m_run.resumes != nullptr) {
        m_run.resumes->emplace_back(&base, std::move(resume));
    }
}

std::vector<engine::StepShape<Role>> step_shapes(const Scenario& scenario) {
    std::vector<engine::StepShape<Role>> shapes;
    for (const auto& step : scenario.steps) {
        shapes.push_back({step.id, step.roles(), index_of(scenario, step.state_from),
                          index_of(scenario, step.backlog_from)});
    }
    return shapes;
}

engine::Matching match(const Check& check, const Scenario& scenario) {
    return engine::match_needs(check.needs, step_shapes(scenario),
                               [](Role role) { return to_string(role); });
}

report::CheckResult judge(const Check& check, const engine::Matching& matching,
                          const ScenarioRun& run, const engine::Circumstances& circumstances) {
    Inputs inputs(run, matching);
    auto result = engine::judge(check, inputs, circumstances);
    if (result.status != report::Status::skipped) {
        add_checkpoints_used(inputs, result);
    }
    return result;
}

bool any_reads_contents(const Checks& checks, const std::vector<std::string>& ids) {
    return std::any_of(ids.begin(), ids.end(), [&checks](const std::string& id) {
        const auto* check = find_check(checks, id);
        return check == nullptr || check->reads_contents;
    });
}

std::vector<const protocol::LineJudge*> judges_of(const Checks& checks,
                                                  const std::vector<std::string>& ids) {
    std::vector<const protocol::LineJudge*> judges;
    for (const auto& id : ids) {
        if (const auto* check = find_check(checks, id); check != nullptr && check->judge) {
            judges.push_back(check->judge);
        }
    }
    return judges;
}

}  // namespace conform::suite
