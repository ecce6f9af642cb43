#include "suite/context.hpp"

#include <rapidjson/document.h>

#include <algorithm>

#include <fmt/format.h>

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

void CheckOutcome::advise(std::string message, std::string run, std::uint64_t line,
                          std::string excerpt) {
    ++advisories;
    add("(SHOULD) " + message, std::move(run), line, std::move(excerpt));
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

namespace {

namespace ids = checks::ids;

std::uint64_t total(const ScenarioContext& context, const std::string& type) {
    std::uint64_t count = 0;
    for (const auto& step : context.steps) {
        for (const auto& run : step.runs) {
            count += run.count(type);
        }
    }
    return count;
}

bool any_stream(const ScenarioContext& context, bool (*wanted)(const protocol::CatalogStream&)) {
    return context.catalog != nullptr &&
           std::any_of(context.catalog->streams.begin(), context.catalog->streams.end(), wanted);
}

// Why a per-message check had nothing to look at in this scenario, in the user's terms; nullopt
// when it saw what it judges. A check that saw nothing is skipped, never passed.
std::optional<std::string> nothing_to_judge(std::string_view id, const ScenarioContext& context) {
    bool reads = !context.steps_running("read").empty();
    if (id == ids::read_schema || id == ids::read_emitted_at || id == ids::read_streams) {
        return reads && total(context, "RECORD") == 0
                   ? std::optional<std::string>("the read emitted no RECORD")
                   : std::nullopt;
    }
    if (id == ids::read_primary_key) {
        if (!any_stream(context, [](const auto& s) { return !s.primary_key.empty(); })) {
            return "no stream of the configured catalog has a primary key";
        }
        return total(context, "RECORD") == 0 ? std::optional<std::string>(
                                                   "the read emitted no "
                                                   "RECORD")
                                             : std::nullopt;
    }
    if (id == ids::read_cursor) {
        if (!any_stream(context, [](const auto& s) { return s.incremental(); })) {
            return "no incremental stream in the configured catalog";
        }
        return std::nullopt;
    }
    if (id == ids::state_well_formed) {
        return reads && total(context, "STATE") == 0
                   ? std::optional<std::string>("the read emitted no STATE")
                   : std::nullopt;
    }
    if (id == ids::merge_reduction) {
        std::uint64_t merges = 0;
        for (const auto& step : context.steps) {
            for (const auto& run : step.runs) {
                merges += run.merge_states;
            }
        }
        return merges == 0 ? std::optional<std::string>(
                                 "no STATE was a merge patch (no merge "
                                 "flag, and merge.states_are_patches is "
                                 "not set)")
                           : std::nullopt;
    }
    if (id == ids::secrets) {
        return context.secrets != nullptr && context.secrets->empty()
                   ? std::optional<std::string>(
                         "the spec marks no config property "
                         "airbyte_secret: no secret to look for")
                   : std::nullopt;
    }
    if (id == ids::state_no_older) {
        for (const auto& step : context.steps) {
            if (!step.step->cursor_floor_from.empty() && !step.runs.empty()) {
                return std::nullopt;
            }
        }
        return "no read resumed from a final state in this scenario";
    }
    return std::nullopt;
}

}  // namespace

CheckOutcome evaluate_check(const std::string& id, const ScenarioContext& context) {
    CheckOutcome outcome;
    for (const auto* table : {&core_checks(), &extension_checks()}) {
        if (auto found = table->find(id); found != table->end()) {
            found->second(context, outcome);
            return outcome;
        }
    }
    collect_findings(id, context, outcome);
    if (auto reason = nothing_to_judge(id, context)) {
        outcome.skip(*reason);
    }
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
    bool breaks_level = outcome.occurrences > outcome.advisories;
    if (outcome.occurrences == 0) {
        result.status = outcome.not_applicable ? report::Status::skipped : report::Status::passed;
    } else if (strict || (breaks_level && info->level == checks::Level::must)) {
        result.status = report::Status::failed;
    } else {
        result.status = report::Status::warned;
    }
    result.examples = outcome.examples;
    for (auto& example : result.examples) {
        example.message = secrets.redact(example.message);
        example.excerpt = secrets.redact(example.excerpt);
    }
    result.occurrences = outcome.occurrences;
    result.note = secrets.redact(
        outcome.not_applicable && outcome.occurrences > 0
            ? fmt::format("{} (incomplete: {})", outcome.note, *outcome.not_applicable)
            : outcome.not_applicable.value_or(outcome.note));
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
