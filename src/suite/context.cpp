#include "suite/context.hpp"

#include <rapidjson/document.h>

#include <algorithm>

#include <fmt/format.h>

#include "checks/registry.hpp"
#include "json/write.hpp"
#include "suite/check_helpers.hpp"
#include "util/error.hpp"

namespace conform::suite {

const StepResult* ScenarioContext::step(const std::string& id) const {
    for (const auto& result : steps) {
        if (result.step->id == id) {
            return &result;
        }
    }
    return nullptr;
}

std::vector<const StepResult*> ScenarioContext::steps_running(Command command) const {
    std::vector<const StepResult*> found;
    for (const auto& result : steps) {
        if (result.step->run == command) {
            found.push_back(&result);
        }
    }
    return found;
}

std::vector<const StepResult*> ScenarioContext::steps_with(Role role) const {
    std::vector<const StepResult*> found;
    for (const auto& result : steps) {
        auto roles = result.step->roles();
        if (std::find(roles.begin(), roles.end(), role) != roles.end()) {
            found.push_back(&result);
        }
    }
    return found;
}

const StepResult* ScenarioContext::first_run_with(Role role) const {
    for (const auto* result : steps_with(role)) {
        if (!result->runs.empty()) {
            return result;
        }
    }
    return nullptr;
}

void CheckOutcome::add(std::string message, std::string run, std::uint64_t line,
                       std::string excerpt) {
    ++occurrences;
    if (examples.size() < 5) {
        examples.push_back({std::move(message), std::move(run), line, std::move(excerpt)});
    }
}

void CheckOutcome::advise(std::string message, std::string run, std::uint64_t line,
                          std::string excerpt) {
    ++advisories;
    add("(SHOULD) " + std::move(message), std::move(run), line, std::move(excerpt));
}

void CheckOutcome::skip(std::string reason) {
    if (!not_applicable) {
        not_applicable = std::move(reason);
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
    const auto* check = find_airbyte_check(id);
    if (check == nullptr) {
        throw_internal_error(fmt::format("no check '{}' is registered", id));
    }
    CheckOutcome outcome;
    check->code(context, outcome);
    return outcome;
}

report::CheckResult to_check_result(const std::string& id, const CheckOutcome& outcome,
                                    bool strict) {
    const auto* info = &find_airbyte_check(id)->info;
    report::CheckResult result;
    result.id = id;
    for (auto clause : info->clauses) {
        result.clauses.emplace_back(clause);
    }
    result.level = info->level;
    result.title = std::string(info->title);
    bool breaks_level = outcome.occurrences > outcome.advisories;
    if (outcome.occurrences == 0) {
        result.status = outcome.not_applicable ? report::Status::skipped : report::Status::passed;
    } else if (strict || (breaks_level && info->level == checks::Level::must)) {
        result.status = report::Status::failed;
    } else {
        result.status = report::Status::warned;
    }
    result.examples = outcome.examples;
    result.occurrences = outcome.occurrences;
    result.note = outcome.not_applicable && outcome.occurrences > 0
                      ? fmt::format("{} (incomplete: {})", outcome.note, *outcome.not_applicable)
                      : outcome.not_applicable.value_or(outcome.note);
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
