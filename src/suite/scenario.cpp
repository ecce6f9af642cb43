#include "suite/scenario.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "checks/registry.hpp"
#include "config/positions.hpp"
#include "config/test_config.hpp"
#include "json/parse.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::suite {

namespace {

const schema::Schema& suite_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("suite.schema.json"));
    return k_schema;
}

std::string string_or(const rapidjson::Value& object, const char* name, std::string fallback) {
    return object.HasMember(name) ? std::string(object[name].GetString()) : fallback;
}

std::string range_text(const rapidjson::Value& range) {
    if (range.IsString()) {
        return range.GetString();
    }
    return fmt::format("{}-{}", range["begin"].GetString(), range["end"].GetString());
}

std::string split_text(const rapidjson::Value& split) {
    if (split.IsString()) {
        return split.GetString();
    }
    if (split.HasMember("equal")) {
        return fmt::format("equal:{}", split["equal"].GetInt());
    }
    std::string cuts = "cuts:";
    for (const auto& cut : split["cuts"].GetArray()) {
        cuts += std::string(cut.GetString()) + ",";
    }
    cuts.pop_back();
    return cuts;
}

Step read_step(const rapidjson::Value& value) {
    Step step;
    step.id = value["id"].GetString();
    step.run = value["run"].GetString();
    step.config = string_or(value, "config", "main");
    if (value.HasMember("tail")) {
        const auto& tail = value["tail"];
        step.tail = tail.IsBool() ? (tail.GetBool() ? "true" : "false") : tail.GetString();
    }
    if (value.HasMember("range")) {
        step.range = range_text(value["range"]);
    }
    if (value.HasMember("split")) {
        step.split = split_text(value["split"]);
    }
    step.projections = string_or(value, "projections", "none");
    step.neutral_extension_keys =
        value.HasMember("neutral_extension_keys") && value["neutral_extension_keys"].GetBool();
    step.apply_projections =
        value.HasMember("apply_projections") && value["apply_projections"].GetBool();
    if (value.HasMember("state")) {
        step.state_from = value["state"]["from"].GetString();
        const auto& checkpoint = value["state"]["checkpoint"];
        step.state_checkpoint =
            checkpoint.IsString() ? checkpoint.GetString() : std::to_string(checkpoint.GetInt());
    }
    step.cursor_floor_from = string_or(value, "cursor_floor_from", "");
    step.inject_while_running =
        value.HasMember("inject_while_running") && value["inject_while_running"].GetBool();
    step.inject_after = value.HasMember("inject_after") && value["inject_after"].GetBool();
    step.backlog_from = string_or(value, "backlog_from", "");
    step.key_from = string_or(value, "key_from", "");
    step.as_full_refresh = string_or(value, "sync_mode", "") == "full_refresh";
    step.timeout_seconds =
        value.HasMember("timeout_seconds") ? value["timeout_seconds"].GetDouble() : 0;
    return step;
}

std::vector<std::string> known_check_ids() {
    std::vector<std::string> ids;
    for (const auto& check : checks::all_checks()) {
        ids.emplace_back(check.id);
    }
    return ids;
}

// Semantic problems the schema cannot express, as "pointer: message".
std::vector<std::pair<std::string, std::string>> find_problems(
    const std::vector<Scenario>& scenarios) {
    std::vector<std::pair<std::string, std::string>> problems;
    auto known = known_check_ids();
    std::set<std::string> scenario_ids;
    for (std::size_t s = 0; s < scenarios.size(); ++s) {
        const auto& scenario = scenarios[s];
        if (!scenario_ids.insert(scenario.id).second) {
            problems.emplace_back(fmt::format("/scenarios/{}/id", s),
                                  fmt::format("duplicate scenario id '{}'", scenario.id));
        }
        for (std::size_t c = 0; c < scenario.checks.size(); ++c) {
            const auto& id = scenario.checks[c];
            if (checks::find_check(id) == nullptr) {
                auto nearest = nearest_name(id, known);
                problems.emplace_back(
                    fmt::format("/scenarios/{}/checks/{}", s, c),
                    fmt::format(
                        "unknown check '{}'{}", id,
                        nearest.empty() ? "" : fmt::format(", did you mean '{}'?", nearest)));
            }
        }
        std::set<std::string> earlier;
        for (std::size_t t = 0; t < scenario.steps.size(); ++t) {
            const auto& step = scenario.steps[t];
            for (const auto& reference :
                 {step.state_from, step.cursor_floor_from, step.backlog_from, step.key_from}) {
                if (!reference.empty() && earlier.count(reference) == 0) {
                    problems.emplace_back(
                        fmt::format("/scenarios/{}/steps/{}", s, t),
                        fmt::format("step '{}' refers to '{}', which is not an earlier step of "
                                    "this scenario",
                                    step.id, reference));
                }
            }
            if (!earlier.insert(step.id).second) {
                problems.emplace_back(fmt::format("/scenarios/{}/steps/{}/id", s, t),
                                      fmt::format("duplicate step id '{}'", step.id));
            }
        }
    }
    return problems;
}

[[noreturn]] void throw_problems(std::string_view origin, std::string_view text,
                                 const std::vector<std::pair<std::string, std::string>>& problems) {
    auto lines = config::pointer_lines(text);
    std::string message = fmt::format("{}: invalid suite:", origin);
    for (const auto& [pointer, problem] : problems) {
        message += fmt::format("\n  {}:{}: {}: {}", origin, config::line_of(lines, pointer),
                               pointer.empty() ? "(top level)" : pointer, problem);
    }
    message += "\n  (schema: schemas/suite.schema.json)";
    throw_input_error(message);
}

}  // namespace

std::vector<Scenario> load_suite_text(std::string_view text, std::string_view origin) {
    auto document = json::parse_json_text(text, origin);
    std::vector<schema::Violation> violations;
    if (!suite_schema().validate(document, &violations, 20)) {
        std::vector<std::pair<std::string, std::string>> problems;
        for (const auto& violation : violations) {
            problems.emplace_back(violation.instance_path, violation.message);
        }
        throw_problems(origin, text, problems);
    }
    auto lines = config::pointer_lines(text);
    std::vector<Scenario> scenarios;
    std::string suite_name = document["suite"].GetString();
    std::size_t index = 0;
    for (const auto& value : document["scenarios"].GetArray()) {
        Scenario scenario;
        scenario.id = value["id"].GetString();
        scenario.suite = suite_name;
        scenario.title = value["title"].GetString();
        if (value.HasMember("requires")) {
            for (const auto& requirement : value["requires"].GetArray()) {
                scenario.requires_.emplace_back(requirement.GetString());
            }
        }
        for (const auto& step : value["steps"].GetArray()) {
            scenario.steps.push_back(read_step(step));
        }
        for (const auto& check : value["checks"].GetArray()) {
            scenario.checks.emplace_back(check.GetString());
        }
        scenario.origin = fmt::format(
            "{}:{}", origin, config::line_of(lines, fmt::format("/scenarios/{}", index++)));
        scenarios.push_back(std::move(scenario));
    }
    if (auto problems = find_problems(scenarios); !problems.empty()) {
        throw_problems(origin, text, problems);
    }
    return scenarios;
}

std::vector<Scenario> load_suite_file(const std::filesystem::path& path) {
    return load_suite_text(config::read_text_file(path), path.string());
}

std::vector<Scenario> load_builtin_suites() {
    std::vector<std::pair<std::string_view, std::string_view>> suites;
    for (const auto& [name, content] : resources::all()) {
        if (!name.ends_with(".schema.json")) {
            suites.emplace_back(name, content);
        }
    }
    std::sort(suites.begin(), suites.end());
    std::vector<Scenario> scenarios;
    for (const auto& [name, content] : suites) {
        auto loaded = load_suite_text(content, fmt::format("suites/{}", name));
        scenarios.insert(scenarios.end(), loaded.begin(), loaded.end());
    }
    return scenarios;
}

}  // namespace conform::suite
