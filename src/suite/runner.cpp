#include "suite/runner.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <fstream>

#include "estuary/projection.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "process/workdir.hpp"
#include "protocol/analyzer.hpp"
#include "suite/bisect.hpp"
#include "suite/coverage.hpp"
#include "suite/preview.hpp"
#include "suite/probes.hpp"
#include "suite/surroundings.hpp"
#include "suite/tail.hpp"
#include "suite/timeline.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::suite {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// The properties of a JSON schema (at any depth) marked "airbyte_secret": true.
std::size_t count_marked_secrets(const rapidjson::Value& schema) {
    std::size_t marked = 0;
    std::vector<const rapidjson::Value*> pending{&schema};
    while (!pending.empty()) {
        const auto* value = pending.back();
        pending.pop_back();
        if (value->IsArray()) {
            for (const auto& item : value->GetArray()) {
                pending.push_back(&item);
            }
        } else if (value->IsObject()) {
            auto flag = value->FindMember("airbyte_secret");
            marked += flag != value->MemberEnd() && flag->value.IsBool() && flag->value.GetBool();
            for (const auto& member : value->GetObject()) {
                pending.push_back(&member.value);
            }
        }
    }
    return marked;
}

// Why a SPEC's `spec` object gave no secret value for the config.
std::string secrets_absent_reason(const rapidjson::Value& specification) {
    auto schema = specification.FindMember("connectionSpecification");
    auto marked = schema == specification.MemberEnd() ? 0 : count_marked_secrets(schema->value);
    if (marked == 0) {
        return "the spec marks no config property airbyte_secret: no secret to look for";
    }
    return fmt::format(
        "the spec marks {} propert{} airbyte_secret, but the config sets none of "
        "them: no secret value to look for",
        marked, marked == 1 ? "y" : "ies");
}

constexpr milliseconds k_inject_timeout{30'000};
constexpr milliseconds k_progress_interval{250};

std::string replace_all(std::string text, std::string_view from, std::string_view to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

// The config with only the properties `spec` requires (their values from `config`) and the
// defaults the spec gives for the others.
std::string minimal_config(const rapidjson::Value& spec, const rapidjson::Value& config) {
    rapidjson::Document minimal(rapidjson::kObjectType);
    auto& allocator = minimal.GetAllocator();
    if (spec.IsObject() && spec.HasMember("properties") && spec["properties"].IsObject()) {
        for (const auto& property : spec["properties"].GetObject()) {
            if (property.value.IsObject() && property.value.HasMember("default")) {
                minimal.AddMember(rapidjson::Value(property.name, allocator),
                                  rapidjson::Value(property.value["default"], allocator),
                                  allocator);
            }
        }
    }
    if (spec.IsObject() && spec.HasMember("required") && spec["required"].IsArray() &&
        config.IsObject()) {
        for (const auto& name : spec["required"].GetArray()) {
            if (!name.IsString() || !config.HasMember(name)) {
                continue;
            }
            minimal.RemoveMember(name);
            minimal.AddMember(rapidjson::Value(name, allocator),
                              rapidjson::Value(config[name], allocator), allocator);
        }
    }
    return json::to_json(minimal);
}

// A run with nothing but its label: no range, state or replaced input.
RunPlan labelled_plan(std::string label) {
    RunPlan plan;
    plan.label = std::move(label);
    return plan;
}

// A plain read of `range`, labelled with `label_format` around the range's text.
RunPlan range_plan(fmt::format_string<std::string> label_format, const estuary::KeyRange& range) {
    RunPlan plan;
    plan.label = fmt::format(label_format, range.to_string());
    plan.range_json = range.to_json();
    return plan;
}

class Discard : public process::Observer {
public:
    process::Decision on_stdout_line(std::string_view, std::uint64_t, bool) override {
        return process::Decision::keep_going;
    }
};

report::RunSummary summarize(const protocol::Observation& observation) {
    report::RunSummary summary;
    summary.label = observation.label;
    summary.command = observation.command_line;
    summary.exit = observation.process.exit.describe();
    if (observation.process.stop_reason == process::StopReason::timeout) {
        summary.exit += " (stopped: timeout)";
    } else if (observation.process.stop_reason == process::StopReason::requested) {
        summary.exit += " (stopped by conform)";
    }
    summary.duration_ms = observation.process.elapsed.count();
    summary.records = observation.count("RECORD");
    summary.states = observation.count("STATE");
    summary.lines = observation.lines;
    summary.cleanup_problem = observation.process.cleanup_problem;
    summary.stderr_tail = excerpt(
        observation.process.stderr_text.size() > 2000
            ? observation.process.stderr_text.substr(observation.process.stderr_text.size() - 2000)
            : observation.process.stderr_text,
        2000);
    return summary;
}

}  // namespace

std::string certified_extension(const Scenario& scenario) {
    for (const auto& requirement : scenario.requires_) {
        if (requirement.starts_with("claims:")) {
            return requirement.substr(7);
        }
    }
    return {};
}

std::vector<engine::ScenarioHeader> headers_of(const std::vector<Scenario>& scenarios) {
    std::vector<engine::ScenarioHeader> headers;
    for (const auto& scenario : scenarios) {
        headers.push_back({scenario.id, scenario.suite, scenario.title, scenario.checks});
    }
    return headers;
}

namespace {

// The Airbyte-protocol scenarios against one connector: it sets up (spec for the secrets, the
// catalog), runs each scenario's steps, judges the checks with the steps their needs matched, and
// reports progress as runs go. Only this file sees it: the header gives out make_airbyte_source.
struct AirbyteSource final : engine::ScenarioSource {
    const config::TestConfig& config;
    std::vector<Scenario> suite_scenarios;
    std::vector<engine::ScenarioHeader> headers;
    const Checks& checks;
    SourceOptions options;
    report::Reporter& reporter;
    std::unique_ptr<container::Launcher> launcher;
    process::PrivateDir scratch_root;
    protocol::Catalog catalog;
    protocol::Catalog full_refresh_catalog;  // the streams that support it in full refresh
    protocol::Secrets secrets;
    std::string no_secret_reason;
    std::optional<std::string> minimal_config_text;  // required properties and defaults only
    std::optional<std::string> required_only_text;   // required properties alone
    std::vector<ConfigWithout> configs_without_required;
    std::size_t scenario_counter = 0;
    std::size_t run_counter = 0;
    StreamTally stream_tally;

    AirbyteSource(const config::TestConfig& test_config, std::vector<Scenario> all,
                  const Checks& table, SourceOptions source_options, report::Reporter& sink)
        : config(test_config),
          suite_scenarios(std::move(all)),
          headers(headers_of(suite_scenarios)),
          checks(table),
          options(std::move(source_options)),
          reporter(sink) {}

    const std::vector<engine::ScenarioHeader>& scenarios() const override { return headers; }

    engine::Target target() const override {
        auto version = launcher->version();
        return {launcher->describe(), version.value, version.source};
    }

    std::string mask(std::string_view text) const override { return secrets.redact(text); }

    report::StreamsCoverage stream_coverage() const override {
        return stream_tally.coverage(catalog);
    }

    void prepare() override {
        if (config.image) {
            auto image = *config.image;
            image.env.insert(config.env.begin(), config.env.end());
            image.shared_dirs.push_back(scratch_root.path());
            launcher = container::make_image_launcher(std::move(image));
        } else {
            launcher =
                container::make_native_launcher(config.command, config.env, config.working_dir);
        }
        learn_secrets();
        if (!config.no_config || config.catalog_text) {
            load_or_discover_catalog();
        }
    }

    // The SPEC message the setup learns from: of a manifest-only connector its manifest's spec
    // section; otherwise what spec emits (run once before any scenario), or nothing.
    std::optional<std::string> setup_spec_message() {
        if (config.manifest) {
            return config.manifest->spec_message;
        }
        Step spec_step;
        spec_step.id = "spec";
        spec_step.run = Command::spec;
        auto observation =
            execute(spec_step, labelled_plan("spec (setup)"), scratch_root.path(), nullptr, {});
        const auto* spec = observation.first_kept("SPEC");
        return spec == nullptr ? std::nullopt : std::optional(spec->json);
    }

    // Secrets are known from the spec.
    void learn_secrets() {
        auto spec = setup_spec_message();
        auto config_document = json::parse_json_text(config.config_text, config.origin.string());
        if (!spec) {
            no_secret_reason =
                "the setup spec run emitted no SPEC (no spec): conform cannot tell which config "
                "values are secret, so it looks for none and masks every config string in reports "
                "(see cli.spec)";
            mask_every_config_string(config_document);
            return;
        }
        auto message = json::parse_json_text(*spec, "SPEC message");
        const auto& specification = message["spec"];
        if (!specification.HasMember("connectionSpecification")) {
            no_secret_reason =
                "the SPEC has no connectionSpecification (no spec): conform cannot tell which "
                "config values are secret, so it looks for none and masks every config string in "
                "reports";
            mask_every_config_string(config_document);
            return;
        }
        const auto& connection = specification["connectionSpecification"];
        auto values = protocol::collect_secrets(connection, config_document);
        learn_invalid_config_secrets(connection, values);
        minimal_config_text = minimal_config(connection, config_document);
        required_only_text = required_only_config(connection, config_document);
        configs_without_required = configs_without_each_required(connection, config_document);
        if (config.no_config) {
            no_secret_reason = *config.no_config + ": no config value to look for";
        } else if (values.empty()) {
            no_secret_reason = secrets_absent_reason(specification);
        }
        secrets = protocol::Secrets(std::move(values));
    }

    // No spec says which config values are secret: every string of the configs is masked.
    void mask_every_config_string(const rapidjson::Value& config_document) {
        auto values = protocol::config_strings(config_document);
        if (config.invalid_config_text) {
            try {
                auto invalid = json::parse_json_text(*config.invalid_config_text, "invalid config");
                auto more = protocol::config_strings(invalid);
                values.insert(values.end(), more.begin(), more.end());
            } catch (const Error&) {
                // Not JSON: masked as it is.
                values.push_back(*config.invalid_config_text);
            }
        }
        secrets = protocol::Secrets::without_spec(std::move(values));
    }

    // check-invalid runs with the invalid config: its secrets must not leak either.
    void learn_invalid_config_secrets(const rapidjson::Value& specification,
                                      std::vector<std::string>& values) {
        if (!config.invalid_config_text) {
            return;
        }
        try {
            auto invalid = json::parse_json_text(*config.invalid_config_text, "invalid config");
            auto more = protocol::collect_secrets(specification, invalid);
            values.insert(values.end(), more.begin(), more.end());
        } catch (const Error&) {
            // Not JSON: it holds no property the spec could mark secret.
        }
    }

    // Runs discover once (setup): the catalog it configures, or why there is none, with what the
    // connector printed.
    std::optional<std::string> discovered_catalog(std::string& why_not) {
        Step discover;
        discover.id = "discover";
        discover.run = Command::discover;
        auto observation =
            execute(discover, labelled_plan("discover (setup)"), scratch_root.path(), nullptr, {});
        stream_tally.add_discovered(observation);
        const auto* found = observation.first_kept("CATALOG");
        if (found == nullptr) {
            // Masked: the connector's stderr may print a secret of its config.
            auto said = last_lines(secrets.redact(observation.process.stderr_text), 600);
            why_not = fmt::format("discover emitted no CATALOG ({}){}",
                                  observation.process.exit.describe(),
                                  said.empty() ? "" : "; its stderr ends with:\n" + said);
            return std::nullopt;
        }
        auto message = json::parse_json_text(found->json, "CATALOG message");
        return protocol::configure_discovered(message["catalog"]);
    }

    void load_or_discover_catalog() {
        std::string text;
        std::string origin;
        if (config.catalog_text) {
            text = *config.catalog_text;
            origin = "catalog of " + config.origin.string();
        } else {
            std::string why_not;
            auto discovered = discovered_catalog(why_not);
            if (!discovered) {
                throw_input_error(fmt::format("{}: no catalog given ({}), and {}",
                                              config.origin.string(), catalog_hint(), why_not));
            }
            text = *discovered;
            origin = "catalog built from discover";
        }
        auto document = json::parse_json_text(text, origin);
        catalog = protocol::load_catalog(document, origin, config.volatile_fields);
        if (config.catalog_text) {
            replace_empty_schemas();
        }
        full_refresh_catalog = protocol::as_full_refresh(catalog);
    }

    std::string catalog_hint() const {
        return config.from_flags() ? "--catalog FILE" : "the test config's \"catalog\"";
    }

    // A configured stream whose json_schema is empty ({}) is validated against discover's schema
    // of the stream, as Airbyte's acceptance tests do; without one, read.records_match_schema
    // warns.
    void replace_empty_schemas() {
        if (std::none_of(catalog.streams.begin(), catalog.streams.end(),
                         [](const auto& stream) { return stream.schema_empty; })) {
            return;
        }
        std::string why_not;
        auto discovered = discovered_catalog(why_not);
        if (!discovered) {
            return;
        }
        auto document = json::parse_json_text(*discovered, "catalog built from discover");
        auto found = protocol::load_catalog(document, "catalog built from discover", {});
        for (auto& stream : catalog.streams) {
            auto index =
                stream.schema_empty ? found.find(stream.name, stream.name_space) : std::nullopt;
            if (!index || found.streams[*index].schema_empty) {
                continue;
            }
            stream.schema = found.streams[*index].schema;
            stream.json_schema = found.streams[*index].json_schema;
            stream.schema_empty = false;
            stream.schema_source = "discover";
        }
    }

    const protocol::Catalog& catalog_for(const Step& step) const {
        return step.as_full_refresh ? full_refresh_catalog : catalog;
    }

    std::string config_text_for(ConfigChoice variant) const {
        if (variant == ConfigChoice::invalid && config.invalid_config_text) {
            return *config.invalid_config_text;
        }
        if (variant == ConfigChoice::merge && config.merge_config_text) {
            return *config.merge_config_text;
        }
        if (variant == ConfigChoice::full_state && config.full_state_config_text) {
            return *config.full_state_config_text;
        }
        if (variant == ConfigChoice::minimal && minimal_config_text) {
            return *minimal_config_text;
        }
        if (variant == ConfigChoice::required_only && required_only_text) {
            return *required_only_text;
        }
        return config.config_text;
    }

    protocol::CatalogExtensions extensions_for(const Step& step, const RunPlan& plan) const {
        protocol::CatalogExtensions extensions;
        if (step.tail != TailFlag::absent) {
            extensions.tail = step.tail == TailFlag::on;
        }
        extensions.range_json = plan.range_json;
        auto projections = step.projections;
        if (step.neutral_extension_keys) {
            extensions.tail = false;
            extensions.range_json = R"({"begin":"00000000","end":"ffffffff"})";
            projections = ProjectionChoice::identity;
        }
        for (const auto& stream : catalog.streams) {
            if (projections == ProjectionChoice::configured) {
                if (auto found = config.projections.find(stream.name);
                    found != config.projections.end()) {
                    extensions.projections[stream.name] = found->second;
                }
            } else if (projections == ProjectionChoice::identity) {
                auto schema = json::parse_json_text(stream.json_schema, stream.name);
                extensions.projections[stream.name] = estuary::identity_projections(schema);
            }
        }
        return extensions;
    }

    milliseconds timeout_for(const Step& step) const {
        if (step.timeout_seconds > 0) {
            return milliseconds(static_cast<long long>(step.timeout_seconds * 1000));
        }
        if (step.run == Command::spec) {
            return config.spec_timeout;
        }
        if (step.run == Command::check) {
            return config.check_timeout;
        }
        return step.run == Command::discover ? config.discover_timeout : config.read_timeout;
    }

    container::Call make_call(const Step& step, const RunPlan& plan,
                              const std::filesystem::path& scenario_dir,
                              const process::PrivateDir& inputs) const {
        container::Call call;
        call.args = {std::string(to_string(step.run))};
        call.timeout = timeout_for(step);
        call.grace = config.grace;
        if (step.run == Command::spec) {
            return call;
        }
        std::string rendered = replace_all(plan.config_text.value_or(config_text_for(step.config)),
                                           "${CONFORM_SCRATCH}", scenario_dir.string());
        call.file_args.emplace_back(
            "--config", inputs.write_file("config.json", config.for_connector(rendered)));
        if (step.run != Command::read) {
            return call;
        }
        auto catalog_json = plan.catalog_text.value_or(protocol::write_catalog(
            catalog_for(step), extensions_for(step, plan), options.spelling));
        call.file_args.emplace_back("--catalog", inputs.write_file("catalog.json", catalog_json));
        if (!plan.state_text.empty()) {
            call.file_args.emplace_back("--state",
                                        inputs.write_file("state.json", plan.state_text));
        }
        return call;
    }

    std::vector<std::vector<std::pair<std::string, std::string>>> projections_to_apply() const {
        std::vector<std::vector<std::pair<std::string, std::string>>> result;
        for (const auto& stream : catalog.streams) {
            auto found = config.projections.find(stream.name);
            result.push_back(found == config.projections.end() ? config::Projections{}
                                                               : found->second);
        }
        return result;
    }

    // Runs the tail inject command; returns a problem description, or "" when it worked.
    std::string inject(const std::filesystem::path& scenario_dir) const {
        if (config.inject_command.empty()) {
            return config.lacks("inject_command");
        }
        process::LaunchSpec spec;
        auto rendered_config = scenario_dir / "config.json";
        if (!std::filesystem::exists(rendered_config)) {
            // Inside the 0700 scratch root: the secrets in it stay private.
            std::ofstream(rendered_config)
                << replace_all(config.config_text, "${CONFORM_SCRATCH}", scenario_dir.string());
        }
        for (const auto& word : config.inject_command) {
            spec.argv.push_back(
                replace_all(replace_all(word, "${CONFORM_SCRATCH}", scenario_dir.string()),
                            "${CONFORM_CONFIG}", rendered_config.string()));
        }
        spec.timeout = k_inject_timeout;
        spec.grace = milliseconds(1000);
        Discard discard;
        auto result = start(spec, discard);
        if (result.exit.succeeded()) {
            return "";
        }
        auto said = last_lines(secrets.redact(result.stderr_text), 300);
        return fmt::format("the inject command failed: {}{}", result.exit.describe(),
                           said.empty() ? "" : "; its stderr ends with: " + said);
    }

    process::RunResult start(const process::LaunchSpec& spec, process::Observer& observer) const {
        return process::run_with(options.executor, spec, observer);
    }

    // The records a tailing step must deliver before new data is injected: the first run of the
    // step it names as its backlog.
    static const protocol::RecordStore& backlog_for(const Step& step, const ScenarioRun* context) {
        static const protocol::RecordStore none;
        const auto* backlog = context == nullptr || step.backlog_from.empty()
                                  ? nullptr
                                  : context->step(step.backlog_from);
        return backlog == nullptr || backlog->runs.empty() ? none : backlog->runs.front().records;
    }

    TailDriver::Settings tail_settings(std::function<void()> inject_and_mark) const {
        TailDriver::Settings settings;
        settings.inject_not_before = config.inject_after;
        settings.observe = config.observe;
        // Each wait ends well before the read timeout, so a connector that misses an event is
        // judged on what it did rather than stopped as hung.
        settings.wait_limit = std::min(config.tail_wait, config.read_timeout / 3);
        if (!config.inject_command.empty()) {
            settings.inject = std::move(inject_and_mark);
        }
        return settings;
    }

    struct Floors {
        std::vector<std::optional<protocol::CursorFloor>> by_stream;
        std::vector<std::string> gaps;  // the incremental streams without one, and why
    };

    // The floors of a read from a state: each stream's cursor as the state records it (the oldest
    // partition's for a state kept per partition; state_cursor_floors), not the newest record of
    // the earlier read, which a connector's state may lag behind. Where conform cannot read the
    // state's cursor, the newest record of `newest` (the read that emitted the state), a SHOULD.
    // After data was added (inject_after) a partition may be new and read from its start: a
    // per-partition stream, and one held only to the newest record, gets no floor.
    Floors state_floors(const Step& step, const RunPlan& plan, const ScenarioRun& context,
                        const std::vector<std::optional<protocol::CursorValue>>& newest) {
        const auto& steps = context.scenario->steps;
        auto base = std::find_if(steps.begin(), steps.end(),
                                 [&step](const Step& one) { return one.id == step.state_from; });
        bool data_added = base != steps.end() && base->inject_after;
        using Origin = protocol::CursorFloor::Origin;
        const auto& streams = catalog_for(step).streams;
        Floors floors;
        floors.by_stream.resize(newest.size());
        std::vector<std::string_view> why_none(newest.size());
        for (std::size_t index = 0; index < newest.size(); ++index) {
            if (!newest[index]) {
                why_none[index] =
                    "the read that emitted the state emitted no record of it, and its state "
                    "holds no cursor conform can read";
            } else if (data_added) {
                why_none[index] =
                    "conform cannot read a cursor in its state, and data was added since: the "
                    "newest record read before is no floor for new data";
            } else {
                floors.by_stream[index] =
                    protocol::CursorFloor{*newest[index], Origin::newest_record};
            }
        }
        for (const auto& [index, recorded] :
             state_cursor_floors(plan.state_text, catalog_for(step))) {
            if (index >= floors.by_stream.size()) {
                continue;
            }
            floors.by_stream[index].reset();
            if (!recorded.floor) {
                why_none[index] =
                    "its stream state holds no cursor (empty, or partitions without one)";
            } else if (data_added && recorded.per_partition) {
                why_none[index] =
                    "its state is kept per partition and data was added since: a new partition "
                    "is read from its start";
            } else {
                floors.by_stream[index] = protocol::CursorFloor{
                    *recorded.floor,
                    recorded.guessed ? Origin::state_date_time : Origin::state_cursor};
            }
        }
        for (std::size_t index = 0; index < floors.by_stream.size(); ++index) {
            if (!floors.by_stream[index] && index < streams.size() &&
                streams[index].incremental()) {
                floors.gaps.push_back(
                    fmt::format("'{}': {}", streams[index].display_name(), why_none[index]));
            }
        }
        return floors;
    }

    protocol::Observation execute(const Step& step, const RunPlan& plan,
                                  const std::filesystem::path& scenario_dir,
                                  const ScenarioRun* context,
                                  const std::vector<const protocol::LineJudge*>& judges,
                                  std::string* inject_problem = nullptr) {
        process::PrivateDir inputs;
        auto call = make_call(step, plan, scenario_dir, inputs);
        auto launch = launcher->prepare(call);

        protocol::AnalyzerSetup setup;
        setup.catalog = step.run == Command::read ? &catalog_for(step) : nullptr;
        setup.secrets = &secrets;
        setup.judges = judges;
        setup.states_are_patches = config.states_are_patches;
        setup.transcript_path = scenario_dir / fmt::format("run-{}.jsonl", ++run_counter);
        setup.keyless_contents = context == nullptr || context->all_contents;
        setup.defer_keyed_contents = !setup.keyless_contents;
        setup.prepare_on_worker = protocol::prepare_on_worker_by_default();
        std::vector<std::string> floor_gaps;
        if (context != nullptr && !step.cursor_floor_from.empty()) {
            if (const auto* floor_step = context->step(step.cursor_floor_from);
                floor_step != nullptr && !floor_step->runs.empty()) {
                auto floors =
                    state_floors(step, plan, *context, floor_step->runs.front().max_cursor);
                setup.cursor_floor = std::move(floors.by_stream);
                floor_gaps = std::move(floors.gaps);
            }
        }
        if (step.apply_projections) {
            setup.apply_projections = projections_to_apply();
        }
        if (step.projections == ProjectionChoice::configured && !step.neutral_extension_keys) {
            setup.expect_projections = projections_to_apply();
        }
        protocol::Analyzer* analyzer_ptr = nullptr;
        std::optional<TailDriver> tail_driver;
        if (step.inject_while_running) {
            tail_driver.emplace(backlog_for(step, context), tail_settings([&] {
                                    auto problem = inject(scenario_dir);
                                    if (inject_problem != nullptr) {
                                        *inject_problem = problem;
                                    }
                                    analyzer_ptr->set_mark();
                                }));
            setup.on_tick = [&](milliseconds elapsed) {
                return tail_driver->on_tick(analyzer_ptr->observation(), elapsed);
            };
        }
        auto last_progress = Clock::now();
        auto started = Clock::now();
        setup.on_progress = [&](const protocol::Observation& seen) {
            auto now = Clock::now();
            if (now - last_progress >= k_progress_interval) {
                last_progress = now;
                reporter.run_progress(plan.label, seen.count("RECORD"),
                                      std::chrono::duration_cast<milliseconds>(now - started));
            }
        };
        protocol::Analyzer analyzer(std::move(setup));
        analyzer_ptr = &analyzer;
        auto result = start(launch, analyzer);
        auto observation = analyzer.finish(std::move(result));
        // Two steps of one scenario may run the same command: the step's id tells them apart.
        observation.label =
            step.id == to_string(step.run) ? plan.label : step.id + ": " + plan.label;
        observation.command_line =
            launcher->describe() + " " + fmt::format("{}", fmt::join(call.args, " "));
        if (tail_driver) {
            observation.tail_events = tail_driver->events();
        }
        observation.floor_gaps = std::move(floor_gaps);
        return observation;
    }

    // Bisects the range space for the key of the middle record of step.key_from, then plans the
    // ranges with boundaries on both sides of it (X-RANGE-1 at a real record's key).
    void plan_around_key(const Step& step, const ScenarioRun& context,
                         const std::filesystem::path& scenario_dir,
                         const std::vector<const protocol::LineJudge*>& judges,
                         StepResult& result) {
        const auto* from = context.step(step.key_from);
        if (from == nullptr || from->runs.empty() || from->runs.front().records.empty()) {
            result.why_not =
                fmt::format("step '{}' emitted no record whose key to isolate", step.key_from);
            return;
        }
        const auto& records = from->runs.front().records;
        const auto& target = records[records.size() / 2];
        auto isolation = isolate_key(target, [&](const estuary::KeyRange& range) {
            return execute(step, range_plan("read [bisect range {}]", range), scenario_dir,
                           &context, judges);
        });
        if (!isolation.key) {
            result.why_not = isolation.why_not;
            return;
        }
        result.note = fmt::format(
            "the record at line {} of '{}' has range key {:08x} (found in {} "
            "narrowing reads)",
            target.line, step.key_from, *isolation.key, isolation.reads);
        for (const auto& range : ranges_around(*isolation.key)) {
            result.plans.push_back(range_plan("read [range {}]", range));
        }
    }

    // One run per required property, the main config without it.
    std::vector<RunPlan> plans_without_each_required(const RunPlan& plan) const {
        std::vector<RunPlan> plans;
        for (const auto& without : configs_without_required) {
            auto one = plan;
            one.config_text = without.text;
            one.label += fmt::format(" [without '{}']", without.property);
            plans.push_back(std::move(one));
        }
        return plans;
    }

    std::optional<std::string> invalid_catalog(const Step& step, const RunPlan& plan) const {
        auto written = protocol::write_catalog(catalog_for(step), extensions_for(step, plan),
                                               options.spelling);
        return step.catalog_probe == CatalogProbe::unknown_stream
                   ? catalog_with_unknown_stream(written)
                   : catalog_with_invalid_sync_modes(written);
    }

    // The inputs a probing step makes wrong on purpose (its config, catalog or state), in its
    // planned runs; no runs, and why, when there is nothing to make wrong.
    void apply_probes(const Step& step, const BaseStep& base, StepResult& result) const {
        if (step.config == ConfigChoice::without_each_required && !result.plans.empty()) {
            result.plans = plans_without_each_required(result.plans.front());
            if (result.plans.empty()) {
                result.why_not = "the spec requires no property that the main config sets";
            }
        }
        for (auto& plan : result.plans) {
            if (step.catalog_probe != CatalogProbe::none) {
                plan.catalog_text = invalid_catalog(step, plan);
            }
            if (step.future_cursors && config.future_state_text) {
                plan.state_text = *config.future_state_text;
                plan.checkpoint = std::nullopt;
                plan.label =
                    fmt::format("{} [the test config's future state]", to_string(step.run));
            } else if (step.future_cursors && plan.base_run < base.runs.size()) {
                if (auto moved = state_with_future_cursors(plan.state_text,
                                                           base.runs[plan.base_run], catalog)) {
                    plan.state_text = *moved;
                    plan.label += " [cursors moved far ahead]";
                } else {
                    result.why_not = fmt::format(
                        "the state of step '{}' holds no cursor value of an incremental stream "
                        "that conform can find (an encoded state hides it) to move into the "
                        "future; a test config's \"future_state\" gives one",
                        step.state_from);
                }
            }
        }
        if (!result.why_not.empty()) {
            result.plans.clear();
        }
    }

    void run_steps(const Scenario& scenario, const std::filesystem::path& scenario_dir,
                   const std::vector<const protocol::LineJudge*>& judges, ScenarioRun& context) {
        context.main_config =
            replace_all(config.config_text, "${CONFORM_SCRATCH}", scenario_dir.string());
        context.steps.reserve(scenario.steps.size());
        for (const auto& step : scenario.steps) {
            StepResult result;
            result.step = &step;
            if (step.split.kind == SplitChoice::Kind::around_key) {
                plan_around_key(step, context, scenario_dir, judges, result);
            } else {
                BaseStep base;
                if (const auto* from = context.step(step.state_from)) {
                    base.runs = from->runs;
                    base.plans = from->plans;
                }
                result.plans = expand_step(step, base, config.resume, result.why_not);
                apply_probes(step, base, result);
                result.checkpoints_used = describe_checkpoints_used(result.plans, base);
            }
            for (const auto& plan : result.plans) {
                result.runs.push_back(
                    execute(step, plan, scenario_dir, &context, judges, &result.inject_problem));
            }
            if (step.inject_after) {
                result.inject_problem = inject(scenario_dir);
            }
            context.steps.push_back(std::move(result));
        }
    }

    static bool has_stream(const protocol::Catalog& streams, bool incremental) {
        return std::any_of(
            streams.streams.begin(), streams.streams.end(),
            [incremental](const auto& stream) { return stream.incremental() == incremental; });
    }

    // Why the scenario cannot run, in the test config's own terms; nullopt when it can.
    std::optional<std::string> unmet_requirement(const Scenario& scenario) const {
        return unmet_requirement(scenario, catalog, true);
    }

    // The same with `streams` as the catalog; `setup_ran`: spec ran (false in a dry run, where
    // what depends on spec or discover is taken as met).
    std::optional<std::string> unmet_requirement(const Scenario& scenario,
                                                 const protocol::Catalog& streams,
                                                 bool setup_ran) const {
        bool streams_known = setup_ran || config.catalog_text.has_value();
        if (config.no_config &&
            std::any_of(scenario.steps.begin(), scenario.steps.end(),
                        [](const Step& step) { return step.run != Command::spec; })) {
            return *config.no_config;
        }
        for (const auto& requirement : scenario.requires_) {
            if (requirement.starts_with("claims:")) {
                auto extension = requirement.substr(7);
                if (!config.claims(extension)) {
                    return config.lacks(requirement);
                }
                continue;
            }
            struct Requirement {
                std::string_view requirement;
                bool met;
                std::string missing;
            };
            const Requirement needs[] = {
                {"invalid_config", config.invalid_config_text.has_value(),
                 config.lacks("invalid_config")},
                {"expected_records", !config.expected_records.empty(),
                 config.lacks("expected_records")},
                {"merge_config", config.merge_config_text.has_value(),
                 config.lacks("merge_config")},
                {"full_state_config", config.full_state_config_text.has_value(),
                 config.lacks("full_state_config")},
                {"inject_command", !config.inject_command.empty(), config.lacks("inject_command")},
                {"projections", !config.projections.empty(), config.lacks("projections")},
                {"minimal_config", !setup_ran || minimal_config_text.has_value(),
                 "spec emitted no connectionSpecification to take the required properties from"},
                {"incremental_stream", !streams_known || has_stream(streams, true),
                 "no incremental stream in the configured catalog"},
                {"full_refresh_stream", !streams_known || has_stream(streams, false),
                 "no full-refresh stream in the configured catalog"},
                {"incremental_full_refresh",
                 !streams_known || std::any_of(streams.streams.begin(), streams.streams.end(),
                                               [](const auto& stream) {
                                                   return stream.incremental() &&
                                                          stream.supports_full_refresh;
                                               }),
                 "no incremental stream of the configured catalog supports full refresh"},
            };
            for (const auto& need : needs) {
                if (need.requirement == requirement && !need.met) {
                    return need.missing;
                }
            }
        }
        return std::nullopt;
    }

    // The extension the scenario tests, when the connector claims it.
    std::optional<std::string> claimed_extension(const Scenario& scenario) const {
        for (const auto& requirement : scenario.requires_) {
            if (requirement.starts_with("claims:") && config.claims(requirement.substr(7))) {
                return requirement.substr(7);
            }
        }
        return std::nullopt;
    }

    report::ScenarioResult run(std::size_t index, const std::vector<std::string>& selected,
                               bool strict) override {
        const auto& scenario = suite_scenarios[index];
        report::ScenarioResult result;
        result.id = scenario.id;
        result.suite = scenario.suite;
        result.title = scenario.title;
        result.extension = certified_extension(scenario);
        auto unmet = unmet_requirement(scenario);
        ResumeNotes resumes;
        ScenarioRun run{&scenario, &config, &catalog, &secrets, {}, {}, &resumes, no_secret_reason};
        auto scenario_dir = scratch_root.path() / fmt::format("scenario-{}", ++scenario_counter);
        if (!unmet) {
            std::filesystem::create_directories(scenario_dir);
            run.all_contents = scenario.steps.size() > 1 || any_reads_contents(checks, selected);
            run_steps(scenario, scenario_dir, judges_of(checks, selected), run);
        }
        for (std::size_t c = 0; c < scenario.checks.size(); ++c) {
            const auto& id = scenario.checks[c];
            if (std::find(selected.begin(), selected.end(), id) == selected.end()) {
                continue;
            }
            auto judging = Clock::now();
            engine::Circumstances circumstances;
            circumstances.strict = strict;
            circumstances.not_run = unmet;
            circumstances.claimed_extension = claimed_extension(scenario).value_or("");
            result.checks.push_back(
                judge(*find_check(checks, id), scenario.inputs[c], run, circumstances));
            result.checks.back().purpose = engine::exists_for(scenario, id);
            result.checks.back().duration_ms =
                std::chrono::duration_cast<milliseconds>(Clock::now() - judging).count();
        }
        auto names = catalog_stream_names();
        for (const auto& step : run.steps) {
            tally_streams(step);
            for (const auto& observation : step.runs) {
                result.runs.push_back(summarize(observation));
                result.runs.back().timeline = checkpoint_timeline(observation, names, resumes);
            }
        }
        result.status = engine::scenario_status(result.checks);
        add_transcript_surroundings(result, run, secrets);
        std::error_code ignored;  // the scratch folder goes with the private root at worst
        std::filesystem::remove_all(scenario_dir, ignored);
        return result;
    }

    // A probe's catalog is wrong on purpose: its reads say nothing of the streams.
    void tally_streams(const StepResult& step) {
        for (const auto& observation : step.runs) {
            if (step.step->run == Command::discover) {
                stream_tally.add_discovered(observation);
            } else if (step.step->run == Command::read &&
                       step.step->catalog_probe == CatalogProbe::none) {
                stream_tally.add_read(catalog_for(*step.step), observation);
            }
        }
    }

    std::vector<std::string> catalog_stream_names() const {
        std::vector<std::string> names;
        for (const auto& stream : catalog.streams) {
            names.push_back(stream.display_name());
        }
        return names;
    }

    // The configured catalog a dry run can know: the test config's, read without running anything.
    protocol::Catalog given_catalog() const {
        if (!config.catalog_text) {
            return {};
        }
        auto origin = "catalog of " + config.origin.string();
        auto document = json::parse_json_text(*config.catalog_text, origin);
        return protocol::load_catalog(document, origin, config.volatile_fields);
    }

    engine::PlannedScenario plan(std::size_t index) const override {
        const auto& scenario = suite_scenarios[index];
        engine::PlannedScenario planned;
        if (auto unmet = unmet_requirement(scenario, given_catalog(), false)) {
            planned.unmet = *unmet;
            return planned;
        }
        for (const auto& step : scenario.steps) {
            auto count = runs_per_step(step, config.resume);
            planned.runs += count.runs;
            planned.exact = planned.exact && count.exact;
            planned.lines.push_back(fmt::format("step {:<22} {} -> {}{} run(s)", step.id,
                                                describe_step(step), count.exact ? "" : "~",
                                                count.runs));
        }
        return planned;
    }
};

}  // namespace

std::unique_ptr<engine::ScenarioSource> make_airbyte_source(const config::TestConfig& test_config,
                                                            std::vector<Scenario> scenarios,
                                                            const Checks& checks,
                                                            SourceOptions options,
                                                            report::Reporter& progress) {
    return std::make_unique<AirbyteSource>(test_config, std::move(scenarios), checks,
                                           std::move(options), progress);
}

report::RunReport run_suites(const config::TestConfig& test_config, std::vector<Scenario> scenarios,
                             const Checks& checks, const engine::RunOptions& options,
                             SourceOptions source_options, report::Reporter& reporter) {
    auto source = make_airbyte_source(test_config, std::move(scenarios), checks,
                                      std::move(source_options), reporter);
    auto report = engine::run(*source, options, reporter);
    report.test_config = test_config.origin.string();
    report.claimed_extensions = test_config.extensions;
    return report;
}

}  // namespace conform::suite
