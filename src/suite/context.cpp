#include "suite/context.hpp"

#include <rapidjson/document.h>

#include "checks/registry.hpp"
#include "json/write.hpp"
#include "suite/check_helpers.hpp"

namespace conform::suite {

const StepResult* ScenarioContext::step(const std::string& id) const {
    for (const auto& result : steps) {
        if (result.step->id == id) {
            return &result;
        }
    }
    return nullptr;
}

std::vector<const StepResult*> ScenarioContext::steps_running(const std::string& command) const {
    std::vector<const StepResult*> found;
    for (const auto& result : steps) {
        if (result.step->run == command) {
            found.push_back(&result);
        }
    }
    return found;
}

void CheckOutcome::add(std::string message, std::string run, std::uint64_t line,
                       std::string excerpt) {
    ++occurrences;
    if (examples.size() < 5) {
        examples.push_back({std::move(message), std::move(run), line, std::move(excerpt)});
    }
}

bool exited_cleanly(const protocol::Observation& run) {
    return run.process.exit.succeeded() && run.process.stop_reason == process::StopReason::none;
}

std::vector<std::string> stream_names(const ScenarioContext& context) {
    std::vector<std::string> names;
    for (const auto& stream : context.catalog->streams) {
        names.push_back(stream.display_name());
    }
    return names;
}

std::string json_text(const rapidjson::Value& value) {
    return json::to_json(value);
}

CheckOutcome evaluate_check(const std::string& id, const ScenarioContext& context) {
    CheckOutcome outcome;
    for (const auto* table : {&core_checks(), &extension_checks()}) {
        if (auto found = table->find(id); found != table->end()) {
            found->second(context, outcome);
            return outcome;
        }
    }
    collect_findings(id, context, outcome);
    return outcome;
}

report::CheckResult to_check_result(const std::string& id, const CheckOutcome& outcome, bool strict,
                                    const protocol::Secrets& secrets) {
    const auto* info = checks::find_check(id);
    report::CheckResult result;
    result.id = id;
    for (auto clause : info->clauses) {
        result.clauses.emplace_back(clause);
    }
    result.level = info->level;
    result.title = std::string(info->title);
    if (outcome.not_applicable) {
        result.status = report::Status::skipped;
    } else if (outcome.occurrences == 0) {
        result.status = report::Status::passed;
    } else {
        result.status = info->level == checks::Level::must || strict ? report::Status::failed
                                                                     : report::Status::warned;
    }
    result.examples = outcome.examples;
    for (auto& example : result.examples) {
        example.message = secrets.redact(example.message);
        example.excerpt = secrets.redact(example.excerpt);
    }
    result.occurrences = outcome.occurrences;
    result.note = secrets.redact(outcome.not_applicable.value_or(outcome.note));
    return result;
}

report::Status scenario_status(const std::vector<report::CheckResult>& checks) {
    bool any_ran = false;
    report::Status status = report::Status::passed;
    for (const auto& check : checks) {
        if (check.status == report::Status::failed) {
            return report::Status::failed;
        }
        if (check.status == report::Status::warned) {
            status = report::Status::warned;
        }
        any_ran = any_ran || check.status != report::Status::skipped;
    }
    return any_ran ? status : report::Status::skipped;
}

}  // namespace conform::suite
