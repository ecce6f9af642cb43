#include "suite/scenario.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "json/parse.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "schema/user_document.hpp"
#include "suite/check.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/text.hpp"

namespace conform::suite {

namespace {

const schema::Schema& suite_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("suite.schema.json"));
    return k_schema;
}

std::string string_or(const rapidjson::Value& object, const char* name, std::string_view fallback) {
    return object.HasMember(name) ? std::string(object[name].GetString()) : std::string(fallback);
}

bool flag(const rapidjson::Value& object, const char* name) {
    return object.HasMember(name) && object[name].GetBool();
}

// The schema has already checked every value read below.
template <typename Enum, std::size_t N>
Enum enum_of(std::string_view text, const std::pair<std::string_view, Enum> (&names)[N]) {
    for (const auto& [name, value] : names) {
        if (name == text) {
            return value;
        }
    }
    throw_internal_error(fmt::format("suite value '{}' passed the schema but is not known", text));
}

constexpr std::pair<std::string_view, Command> k_commands[] = {{"spec", Command::spec},
                                                               {"check", Command::check},
                                                               {"discover", Command::discover},
                                                               {"read", Command::read}};
constexpr std::pair<std::string_view, ConfigChoice> k_configs[] = {
    {"main", ConfigChoice::main},
    {"invalid", ConfigChoice::invalid},
    {"merge", ConfigChoice::merge},
    {"full_state", ConfigChoice::full_state},
    {"minimal", ConfigChoice::minimal},
    {"required_only", ConfigChoice::required_only},
    {"without_each_required", ConfigChoice::without_each_required}};
constexpr std::pair<std::string_view, ProjectionChoice> k_projections[] = {
    {"none", ProjectionChoice::none},
    {"configured", ProjectionChoice::configured},
    {"identity", ProjectionChoice::identity}};
constexpr std::pair<std::string_view, SplitChoice::Kind> k_splits[] = {
    {"halves", SplitChoice::Kind::halves},
    {"one_key_at_end", SplitChoice::Kind::one_key_at_end},
    {"one_key_at_start", SplitChoice::Kind::one_key_at_start},
    {"around_key", SplitChoice::Kind::around_key}};
constexpr std::pair<std::string_view, CheckpointChoice::Kind> k_checkpoints[] = {
    {"first", CheckpointChoice::Kind::first},
    {"middle", CheckpointChoice::Kind::middle},
    {"last", CheckpointChoice::Kind::last},
    {"sample", CheckpointChoice::Kind::sample}};
constexpr std::pair<std::string_view, CatalogProbe> k_catalog_probes[] = {
    {"unknown_stream", CatalogProbe::unknown_stream},
    {"invalid_sync_mode", CatalogProbe::invalid_sync_mode}};
constexpr std::pair<std::string_view, RangeChoice::Kind> k_ranges[] = {
    {"absent", RangeChoice::Kind::absent},
    {"full", RangeChoice::Kind::full},
    {"malformed", RangeChoice::Kind::malformed}};

template <typename Enum, std::size_t N>
std::string_view name_of(Enum value, const std::pair<std::string_view, Enum> (&names)[N]) {
    for (const auto& [name, known] : names) {
        if (known == value) {
            return name;
        }
    }
    return "?";
}

TailFlag read_tail(const rapidjson::Value& tail) {
    if (tail.IsBool()) {
        return tail.GetBool() ? TailFlag::on : TailFlag::off;
    }
    return TailFlag::absent;
}

RangeChoice read_range(const rapidjson::Value& range) {
    if (range.IsString()) {
        return {enum_of(range.GetString(), k_ranges), "", ""};
    }
    return {RangeChoice::Kind::given, range["begin"].GetString(), range["end"].GetString()};
}

SplitChoice read_split(const rapidjson::Value& split) {
    SplitChoice choice;
    if (split.IsString()) {
        choice.kind = enum_of(split.GetString(), k_splits);
    } else if (split.HasMember("equal")) {
        choice.kind = SplitChoice::Kind::equal;
        choice.parts = split["equal"].GetUint();
    } else {
        choice.kind = SplitChoice::Kind::cuts;
        for (const auto& cut : split["cuts"].GetArray()) {
            choice.cuts.push_back(
                static_cast<std::uint32_t>(std::stoul(cut.GetString(), nullptr, 16)));
        }
    }
    return choice;
}

CheckpointChoice read_checkpoint(const rapidjson::Value& checkpoint) {
    if (checkpoint.IsString()) {
        return {enum_of(checkpoint.GetString(), k_checkpoints), 0};
    }
    return {CheckpointChoice::Kind::number, checkpoint.GetUint()};
}

Step read_step(const rapidjson::Value& value) {
    Step step;
    step.id = value["id"].GetString();
    step.run = enum_of(value["run"].GetString(), k_commands);
    step.config = enum_of(string_or(value, "config", "main"), k_configs);
    if (value.HasMember("tail")) {
        step.tail = read_tail(value["tail"]);
    }
    if (value.HasMember("range")) {
        step.range = read_range(value["range"]);
    }
    if (value.HasMember("split")) {
        step.split = read_split(value["split"]);
    }
    step.projections = enum_of(string_or(value, "projections", "none"), k_projections);
    step.neutral_extension_keys = flag(value, "neutral_extension_keys");
    step.apply_projections = flag(value, "apply_projections");
    if (value.HasMember("state")) {
        step.state_from = value["state"]["from"].GetString();
        step.state_checkpoint = read_checkpoint(value["state"]["checkpoint"]);
        step.future_cursors = flag(value["state"], "future_cursors");
        step.compares_with_base = flag(value["state"], "compares_with_base");
    }
    if (value.HasMember("catalog")) {
        step.catalog_probe = enum_of(value["catalog"].GetString(), k_catalog_probes);
    }
    step.cursor_floor_from = string_or(value, "cursor_floor_from", "");
    step.inject_while_running = flag(value, "inject_while_running");
    step.inject_after = flag(value, "inject_after");
    step.backlog_from = string_or(value, "backlog_from", "");
    step.key_from = string_or(value, "key_from", "");
    step.as_full_refresh = string_or(value, "sync_mode", "") == "full_refresh";
    step.timeout_seconds =
        value.HasMember("timeout_seconds") ? value["timeout_seconds"].GetDouble() : 0;
    return step;
}

std::vector<std::string> known_check_ids(const Checks& checks) {
    std::vector<std::string> ids;
    for (const auto& check : checks) {
        ids.emplace_back(check.info.id);
    }
    return ids;
}

// The check `id` listed at `where`: unknown ids, needs the steps cannot meet and requirements the
// scenario does not state are problems.
void bind_check(const std::string& id, const std::string& where, const Checks& checks,
                Scenario& scenario, std::vector<schema::Problem>& problems) {
    const auto* check = find_check(checks, id);
    if (check == nullptr) {
        auto nearest = nearest_name(id, known_check_ids(checks));
        problems.emplace_back(
            where,
            fmt::format("unknown check '{}'{}", id,
                        nearest.empty() ? "" : fmt::format(", did you mean '{}'?", nearest)));
        scenario.inputs.emplace_back();
        return;
    }
    auto matching = match(*check, scenario);
    for (const auto& problem : matching.problems) {
        problems.emplace_back(where, fmt::format("check '{}' {}", id, problem));
    }
    for (auto requirement : check->requires_) {
        if (std::find(scenario.requires_.begin(), scenario.requires_.end(), requirement) ==
            scenario.requires_.end()) {
            problems.emplace_back(
                where, fmt::format("check '{}' reads the test config's {}: the scenario must "
                                   "require \"{}\"",
                                   id, requirement, requirement));
        }
    }
    scenario.inputs.push_back(std::move(matching));
}

// Semantic problems the schema cannot express, as "pointer: message"; binds each scenario's checks
// to the steps their needs read.
std::vector<schema::Problem> find_problems(std::vector<Scenario>& scenarios, const Checks& checks) {
    std::vector<schema::Problem> problems;
    std::set<std::string> scenario_ids;
    for (std::size_t s = 0; s < scenarios.size(); ++s) {
        auto& scenario = scenarios[s];
        if (!scenario_ids.insert(scenario.id).second) {
            problems.emplace_back(fmt::format("/scenarios/{}/id", s),
                                  fmt::format("duplicate scenario id '{}'", scenario.id));
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
        for (std::size_t p = 0; p < scenario.purpose.size(); ++p) {
            const auto& id = scenario.purpose[p];
            if (std::find(scenario.checks.begin(), scenario.checks.end(), id) ==
                scenario.checks.end()) {
                problems.emplace_back(fmt::format("/scenarios/{}/purpose/{}", s, p),
                                      fmt::format("'{}' is not one of the scenario's checks", id));
            }
        }
        scenario.inputs.clear();
        for (std::size_t c = 0; c < scenario.checks.size(); ++c) {
            bind_check(scenario.checks[c], fmt::format("/scenarios/{}/checks/{}", s, c), checks,
                       scenario, problems);
        }
    }
    return problems;
}

}  // namespace

std::string_view to_string(Command command) {
    return name_of(command, k_commands);
}

std::string_view to_string(ConfigChoice config) {
    return name_of(config, k_configs);
}

std::string_view to_string(TailFlag tail) {
    switch (tail) {
        case TailFlag::on:
            return "true";
        case TailFlag::off:
            return "false";
        case TailFlag::absent:
            break;
    }
    return "absent";
}

std::string to_string(const SplitChoice& split) {
    switch (split.kind) {
        case SplitChoice::Kind::none:
            return "";
        case SplitChoice::Kind::equal:
            return fmt::format("equal:{}", split.parts);
        case SplitChoice::Kind::cuts: {
            std::string text = "cuts:";
            for (auto cut : split.cuts) {
                text += fmt::format("{:08x},", cut);
            }
            text.pop_back();
            return text;
        }
        default:
            return std::string(name_of(split.kind, k_splits));
    }
}

std::string to_string(const CheckpointChoice& checkpoint) {
    return checkpoint.kind == CheckpointChoice::Kind::number
               ? std::to_string(checkpoint.number)
               : std::string(name_of(checkpoint.kind, k_checkpoints));
}

std::string_view to_string(Role role) {
    static constexpr std::pair<std::string_view, Role> k_roles[] = {
        {"a step", Role::run},
        {"a live run of the connector", Role::live_run},
        {"a spec run", Role::spec},
        {"a check run", Role::check},
        {"a check with the main config", Role::check_valid},
        {"a check with the invalid config", Role::check_invalid},
        {"a check with the minimal config", Role::check_minimal},
        {"a check with the required properties alone or one removed (\"config\": "
         "\"required_only\" or \"without_each_required\")",
         Role::check_probe},
        {"a discover run", Role::discover},
        {"a read", Role::read},
        {"a read expected to end on its own (no \"tail\": true, malformed range or invalid "
         "config)",
         Role::finite_read},
        {"a plain read (no state, range, split or projections)", Role::plain_read},
        {"a read not split into shards", Role::unsplit_read},
        {"a read with the invalid config", Role::invalid_read},
        {"a read resumed from an earlier step (\"state\")", Role::resumed_read},
        {"range shards resumed from an earlier step (\"split\" and \"state\")",
         Role::resumed_shards},
        {"a read held to an earlier step's cursor (\"cursor_floor_from\")", Role::cursor_floor},
        {"a read with the full range (\"range\": \"full\")", Role::full_range_read},
        {"a read split into shards (\"split\")", Role::shard_reads},
        {"a read with malformed ranges (\"range\": \"malformed\")", Role::malformed_range},
        {"a tailing read (\"inject_while_running\")", Role::tailing_read},
        {"a read with the merge config (\"config\": \"merge\")", Role::merge_read},
        {"a read with the full-state config (\"config\": \"full_state\")", Role::full_state_read},
        {"a read with neutral extension keys", Role::neutral_keys},
        {"a read with projections (\"projections\")", Role::projected_read},
        {"a read to which conform applies the projections (\"apply_projections\")",
         Role::projections_applied},
        {"a full-refresh read (\"sync_mode\": \"full_refresh\")", Role::full_refresh},
        {"data injected after a step (\"inject_after\")", Role::inject_after},
        {"a read of an invalid catalog (\"catalog\")", Role::invalid_catalog},
        {"a read from a far-future state (\"future_cursors\")", Role::future_state_read}};
    return name_of(role, k_roles);
}

bool Step::is_plain_read() const {
    return run == Command::read && !splits() && !resumes() &&
           range.kind == RangeChoice::Kind::absent && !neutral_extension_keys &&
           projections == ProjectionChoice::none && catalog_probe == CatalogProbe::none;
}

std::vector<Role> Step::roles() const {
    std::vector<Role> roles{Role::run};
    auto add_if = [&roles](bool condition, Role role) {
        if (condition) {
            roles.push_back(role);
        }
    };
    add_if(!recorded, Role::live_run);
    add_if(run == Command::spec, Role::spec);
    add_if(run == Command::discover, Role::discover);
    if (run == Command::check) {
        roles.push_back(Role::check);
        add_if(config == ConfigChoice::invalid, Role::check_invalid);
        add_if(config == ConfigChoice::minimal, Role::check_minimal);
        bool probe =
            config == ConfigChoice::required_only || config == ConfigChoice::without_each_required;
        add_if(probe, Role::check_probe);
        add_if(config != ConfigChoice::invalid && config != ConfigChoice::minimal && !probe,
               Role::check_valid);
    }
    add_if(inject_after, Role::inject_after);
    if (run != Command::read) {
        return roles;
    }
    roles.push_back(Role::read);
    add_if(!recorded && tail != TailFlag::on && range.kind != RangeChoice::Kind::malformed &&
               config != ConfigChoice::invalid && !inject_while_running &&
               catalog_probe == CatalogProbe::none,
           Role::finite_read);
    add_if(is_plain_read(), Role::plain_read);
    add_if(!splits(), Role::unsplit_read);
    add_if(config == ConfigChoice::invalid, Role::invalid_read);
    add_if(config == ConfigChoice::merge, Role::merge_read);
    add_if(config == ConfigChoice::full_state, Role::full_state_read);
    add_if(resumes() && !splits(), Role::resumed_read);
    add_if(resumes() && splits(), Role::resumed_shards);
    add_if(!cursor_floor_from.empty(), Role::cursor_floor);
    add_if(range.kind == RangeChoice::Kind::full && !splits() && !resumes(), Role::full_range_read);
    add_if(range.kind == RangeChoice::Kind::malformed, Role::malformed_range);
    add_if(splits(), Role::shard_reads);
    add_if(inject_while_running, Role::tailing_read);
    add_if(neutral_extension_keys, Role::neutral_keys);
    add_if(projections != ProjectionChoice::none, Role::projected_read);
    add_if(apply_projections, Role::projections_applied);
    add_if(as_full_refresh, Role::full_refresh);
    add_if(catalog_probe != CatalogProbe::none, Role::invalid_catalog);
    add_if(future_cursors, Role::future_state_read);
    return roles;
}

std::vector<Scenario> load_suite_text(std::string_view text, std::string_view origin,
                                      const Checks& checks) {
    schema::UserDocument file(std::string(text), std::string(origin), suite_schema(),
                              {"suite", "CONTRIBUTING.md (\"Add a scenario\")"});
    const auto& document = file.root();
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
        if (value.HasMember("purpose")) {
            for (const auto& check : value["purpose"].GetArray()) {
                scenario.purpose.emplace_back(check.GetString());
            }
        }
        scenario.origin =
            fmt::format("{}:{}", origin, file.line_of(fmt::format("/scenarios/{}", index++)));
        scenarios.push_back(std::move(scenario));
    }
    if (auto problems = find_problems(scenarios, checks); !problems.empty()) {
        file.fail(problems);
    }
    return scenarios;
}

std::vector<Scenario> load_suite_file(const std::filesystem::path& path, const Checks& checks) {
    return load_suite_text(read_text_file(path), path.string(), checks);
}

std::vector<Scenario> load_builtin_suites(const Checks& checks) {
    std::vector<std::pair<std::string_view, std::string_view>> suites;
    for (const auto& [name, content] : resources::all()) {
        if (!name.ends_with(".schema.json")) {
            suites.emplace_back(name, content);
        }
    }
    std::sort(suites.begin(), suites.end());
    std::vector<Scenario> scenarios;
    for (const auto& [name, content] : suites) {
        auto loaded = load_suite_text(content, fmt::format("suites/{}", name), checks);
        scenarios.insert(scenarios.end(), loaded.begin(), loaded.end());
    }
    return scenarios;
}

}  // namespace conform::suite
