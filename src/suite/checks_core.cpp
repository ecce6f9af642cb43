// The core Airbyte checks (AP-*): per-run findings, command exits, spec and discover.
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "checks/registry.hpp"
#include "json/parse.hpp"
#include "schema/schema.hpp"
#include "suite/check_helpers.hpp"
#include "suite/compare.hpp"
#include "suite/field_diff.hpp"
#include "util/error.hpp"

namespace conform::suite {

namespace ids = checks::ids;

void collect_findings(const std::string& id, const ScenarioContext& context,
                      CheckOutcome& outcome) {
    for (const auto& step : context.steps) {
        for (const auto& run : step.runs) {
            auto counted = run.finding_counts.find(id);
            if (counted == run.finding_counts.end()) {
                continue;
            }
            std::uint64_t shown = 0;
            std::uint64_t shown_advisories = 0;
            for (const auto& finding : run.findings) {
                if (finding.check != id) {
                    continue;
                }
                ++shown;
                if (finding.advisory) {
                    ++shown_advisories;
                    outcome.advise(finding.message, run.label, finding.line, finding.excerpt);
                } else {
                    outcome.add(finding.message, run.label, finding.line, finding.excerpt);
                }
            }
            auto advised = run.advisory_counts.find(id);
            auto advisories = advised == run.advisory_counts.end() ? 0 : advised->second;
            outcome.occurrences += counted->second - shown;
            outcome.advisories += advisories - shown_advisories;
        }
    }
}

namespace {

std::string exit_text(const protocol::Observation& run) {
    if (run.process.stop_reason == process::StopReason::timeout) {
        return fmt::format("did not finish within its timeout ({} ms) and was stopped",
                           run.process.elapsed.count());
    }
    return run.process.exit.describe();
}

// Exactly one `type` message and exit 0, for spec, check and discover.
void expect_single(Command command, const std::string& type, const ScenarioContext& context,
                   CheckOutcome& outcome) {
    for (const auto* step : context.steps_running(command)) {
        for (const auto& run : step->runs) {
            auto count = run.count(type);
            if (count != 1) {
                outcome.add(fmt::format("expected exactly one {} message, got {}", type, count),
                            run.label);
            }
            if (!exited_cleanly(run)) {
                outcome.add(fmt::format("expected exit code 0, got {}", exit_text(run)), run.label,
                            0, run.process.stderr_text.substr(0, 300));
            }
        }
    }
}

void check_spec_command(const ScenarioContext& context, CheckOutcome& outcome) {
    expect_single(Command::spec, "SPEC", context, outcome);
}

void check_discover_command(const ScenarioContext& context, CheckOutcome& outcome) {
    expect_single(Command::discover, "CATALOG", context, outcome);
}

void check_check_command(const ScenarioContext& context, CheckOutcome& outcome) {
    expect_single(Command::check, "CONNECTION_STATUS", context, outcome);
    for (const auto* step : context.steps_running(Command::check)) {
        if (step->step->config == ConfigChoice::minimal) {
            continue;
        }
        std::string expected = step->step->config == ConfigChoice::invalid ? "FAILED" : "SUCCEEDED";
        for (const auto& run : step->runs) {
            const auto* kept = run.first_kept("CONNECTION_STATUS");
            if (kept == nullptr) {
                continue;
            }
            auto message = json::parse_json_text(kept->json, "CONNECTION_STATUS");
            const auto& status = message["connectionStatus"];
            std::string seen = status.HasMember("status") && status["status"].IsString()
                                   ? status["status"].GetString()
                                   : "?";
            if (seen != expected) {
                outcome.add(fmt::format("with the {} config expected status {}, got {}",
                                        to_string(step->step->config), expected, seen),
                            run.label, kept->line, kept->json);
            } else if (seen == "FAILED" &&
                       (!status.HasMember("message") || !status["message"].IsString() ||
                        status["message"].GetStringLength() == 0)) {
                outcome.add("status FAILED carries no message explaining why", run.label,
                            kept->line, kept->json);
            }
        }
    }
}

bool has_trace_error(const protocol::Observation& run) {
    for (const auto& kept : run.kept) {
        if (kept.type == "TRACE" && kept.json.find("\"ERROR\"") != std::string::npos) {
            return true;
        }
    }
    return false;
}

void check_read_command(const ScenarioContext& context, CheckOutcome& outcome) {
    for (const auto* step : context.steps_running(Command::read)) {
        if (step->step->range.kind == RangeChoice::Kind::malformed ||
            step->step->inject_while_running || step->step->config == ConfigChoice::invalid) {
            continue;
        }
        for (const auto& run : step->runs) {
            if (exited_cleanly(run)) {
                continue;
            }
            std::string trace = has_trace_error(run) ? "" : "; no TRACE error message came first";
            outcome.add(fmt::format("read failed: {}{}", exit_text(run), trace), run.label, 0,
                        run.process.stderr_text.size() > 300
                            ? run.process.stderr_text.substr(run.process.stderr_text.size() - 300)
                            : run.process.stderr_text);
        }
    }
}

// AP-CLI-4 read the other way round: a read that cannot work (invalid config) must say so.
void check_read_invalid_config(const ScenarioContext& context, CheckOutcome& outcome) {
    outcome.skip("no read with the invalid config in this scenario");
    for (const auto* step : context.steps_with(Role::invalid_read)) {
        for (const auto& run : step->runs) {
            outcome.not_applicable.reset();
            if (run.process.stop_reason == process::StopReason::timeout) {
                outcome.add(fmt::format("with the invalid config the read {}", exit_text(run)),
                            run.label);
            } else if (exited_cleanly(run) && !has_trace_error(run)) {
                outcome.add(fmt::format("with the invalid config the read succeeded (exit 0, {} "
                                        "record(s)) and emitted no TRACE error",
                                        run.count("RECORD")),
                            run.label);
            }
        }
    }
}

// A config with only the spec's required properties (and its defaults) is still a config: check
// may call it FAILED, but must answer.
void check_minimal_config(const ScenarioContext& context, CheckOutcome& outcome) {
    outcome.skip("no check with the minimal config in this scenario");
    for (const auto* step : context.steps_with(Role::check_minimal)) {
        for (const auto& run : step->runs) {
            outcome.not_applicable.reset();
            if (run.count("CONNECTION_STATUS") != 1) {
                outcome.add(fmt::format("with only the required properties and defaults, check "
                                        "emitted {} CONNECTION_STATUS messages",
                                        run.count("CONNECTION_STATUS")),
                            run.label, 0, run.process.stderr_text.substr(0, 300));
            }
            if (!exited_cleanly(run)) {
                outcome.add(fmt::format("with only the required properties and defaults, check "
                                        "ended with {}",
                                        exit_text(run)),
                            run.label, 0, run.process.stderr_text.substr(0, 300));
            }
        }
    }
}

// The connectionSpecification of the scenario's SPEC message, or null (with a finding).
const protocol::Observation::Kept* spec_message(const ScenarioContext& context,
                                                CheckOutcome& outcome) {
    for (const auto* step : context.steps_running(Command::spec)) {
        for (const auto& run : step->runs) {
            if (const auto* kept = run.first_kept("SPEC")) {
                return kept;
            }
        }
    }
    outcome.not_applicable = "spec emitted no SPEC message (see cli.spec)";
    return nullptr;
}

void check_spec_schema(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto* kept = spec_message(context, outcome);
    if (kept == nullptr) {
        return;
    }
    auto message = json::parse_json_text(kept->json, "SPEC");
    const auto& specification = message["spec"]["connectionSpecification"];
    std::vector<schema::Violation> violations;
    if (!schema::draft7_metaschema().validate(specification, &violations)) {
        for (const auto& violation : violations) {
            outcome.add(fmt::format("connectionSpecification is not a valid draft-07 schema: at "
                                    "'{}': {}",
                                    violation.instance_path, violation.message),
                        "spec", kept->line);
        }
        return;
    }
    if (!specification.IsObject() || !specification.HasMember("type") ||
        !specification["type"].IsString() ||
        std::string_view(specification["type"].GetString()) != "object") {
        outcome.add("connectionSpecification must describe an object (\"type\": \"object\")",
                    "spec", kept->line);
    }
    try {
        schema::Schema::compile(specification);
    } catch (const Error& error) {
        outcome.add(fmt::format("connectionSpecification cannot be used: {}", error.what()), "spec",
                    kept->line);
    }
}

void check_spec_config(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto* kept = spec_message(context, outcome);
    if (kept == nullptr) {
        return;
    }
    auto message = json::parse_json_text(kept->json, "SPEC");
    auto config = json::parse_json_text(context.main_config, context.test_config->origin.string());
    try {
        auto compiled = schema::Schema::compile(message["spec"]["connectionSpecification"]);
        std::vector<schema::Violation> violations;
        if (!compiled.validate(config, &violations)) {
            for (const auto& violation : violations) {
                outcome.add(fmt::format("the test config's connector config does not match the "
                                        "spec: at '{}': {} (fix the test setup or the spec)",
                                        violation.instance_path, violation.message),
                            "spec", kept->line);
            }
        }
    } catch (const Error& error) {
        outcome.not_applicable =
            fmt::format("the spec's schema does not compile: {}", error.what());
    }
}

// The streams of the scenario's CATALOG message, or null.
std::optional<rapidjson::Document> discovered(const ScenarioContext& context, CheckOutcome& outcome,
                                              std::uint64_t& line) {
    for (const auto* step : context.steps_running(Command::discover)) {
        for (const auto& run : step->runs) {
            if (const auto* kept = run.first_kept("CATALOG")) {
                line = kept->line;
                return json::parse_json_text(kept->json, "CATALOG");
            }
        }
    }
    outcome.not_applicable = "discover emitted no CATALOG message (see cli.discover)";
    return std::nullopt;
}

std::string stream_name(const rapidjson::Value& stream) {
    std::string name =
        stream.HasMember("name") && stream["name"].IsString() ? stream["name"].GetString() : "?";
    if (stream.HasMember("namespace") && stream["namespace"].IsString()) {
        return std::string(stream["namespace"].GetString()) + "." + name;
    }
    return name;
}

void check_discover_streams(const ScenarioContext& context, CheckOutcome& outcome) {
    std::uint64_t line = 0;
    auto message = discovered(context, outcome, line);
    if (!message) {
        return;
    }
    std::set<std::string> seen;
    for (const auto& stream : (*message)["catalog"]["streams"].GetArray()) {
        auto name = stream_name(stream);
        if (!seen.insert(name).second) {
            outcome.add(fmt::format("stream '{}' is listed more than once", name), "discover",
                        line);
        }
        if (!stream.HasMember("supported_sync_modes") ||
            !stream["supported_sync_modes"].IsArray() || stream["supported_sync_modes"].Empty()) {
            outcome.add(fmt::format("stream '{}' lists no supported_sync_modes", name), "discover",
                        line);
        }
        std::vector<schema::Violation> violations;
        if (!stream.HasMember("json_schema") ||
            !schema::draft7_metaschema().validate(stream["json_schema"], &violations)) {
            outcome.add(fmt::format("stream '{}' json_schema is not a valid draft-07 schema{}",
                                    name, violations.empty() ? "" : ": " + violations[0].message),
                        "discover", line);
        }
    }
}

// True when `path` names a property chain declared in `schema`'s properties.
bool path_in_schema(const rapidjson::Value& schema, const rapidjson::Value& path) {
    const rapidjson::Value* current = &schema;
    for (const auto& part : path.GetArray()) {
        if (!part.IsString() || !current->IsObject() || !current->HasMember("properties") ||
            !(*current)["properties"].IsObject() ||
            !(*current)["properties"].HasMember(part.GetString())) {
            return false;
        }
        current = &(*current)["properties"][part.GetString()];
    }
    return true;
}

void check_discover_keys(const ScenarioContext& context, CheckOutcome& outcome) {
    std::uint64_t line = 0;
    auto message = discovered(context, outcome, line);
    if (!message) {
        return;
    }
    bool any_declared = false;
    for (const auto& stream : (*message)["catalog"]["streams"].GetArray()) {
        if (!stream.HasMember("json_schema")) {
            continue;
        }
        any_declared =
            any_declared ||
            (stream.HasMember("source_defined_primary_key") &&
             stream["source_defined_primary_key"].IsArray() &&
             !stream["source_defined_primary_key"].Empty()) ||
            (stream.HasMember("default_cursor_field") && stream["default_cursor_field"].IsArray() &&
             !stream["default_cursor_field"].Empty());
        const auto& schema = stream["json_schema"];
        auto name = stream_name(stream);
        if (stream.HasMember("source_defined_primary_key") &&
            stream["source_defined_primary_key"].IsArray()) {
            for (const auto& path : stream["source_defined_primary_key"].GetArray()) {
                if (path.IsArray() && !path_in_schema(schema, path)) {
                    outcome.add(fmt::format("stream '{}': primary key {} is not a property of its "
                                            "schema",
                                            name, json_text(path)),
                                "discover", line);
                }
            }
        }
        if (stream.HasMember("default_cursor_field") && stream["default_cursor_field"].IsArray() &&
            !stream["default_cursor_field"].Empty() &&
            !path_in_schema(schema, stream["default_cursor_field"])) {
            outcome.add(fmt::format("stream '{}': default cursor {} is not a property of its "
                                    "schema",
                                    name, json_text(stream["default_cursor_field"])),
                        "discover", line);
        }
    }
    if (!any_declared) {
        outcome.skip("no discovered stream declares a primary key or a default cursor");
    }
}

void check_deterministic(const ScenarioContext& context, CheckOutcome& outcome) {
    auto reads = context.steps_running(Command::read);
    if (reads.size() < 2 || reads[0]->runs.empty() || reads[1]->runs.empty()) {
        outcome.not_applicable = "needs two completed reads";
        return;
    }
    const auto& first = reads[0]->runs.front();
    const auto& second = reads[1]->runs.front();
    bool as_full_refresh = reads[0]->step->as_full_refresh && reads[1]->step->as_full_refresh;
    auto full_refresh = [&context, as_full_refresh](const protocol::RecordEntry& entry) {
        const auto& stream = context.catalog->streams[entry.stream];
        return !stream.incremental() || (as_full_refresh && stream.supports_full_refresh);
    };
    RecordSet first_records(first, full_refresh);
    RecordSet second_records(second, full_refresh);
    auto names = stream_names(context);
    auto changed = changed_records(first_records, second_records);
    for (const auto& [before, after] : changed.examples) {
        auto fields = describe_changes(
            before, after, context.catalog->streams[before.entry.stream].volatile_pointers);
        outcome.add(fmt::format("same key, other content in the second read: {} became {}{}",
                                describe_record(before, names), describe_record(after, names),
                                fields.empty() ? "" : " (" + fields + ")"));
    }
    outcome.occurrences += changed.count - changed.examples.size();
    auto is_changed = [&changed](const RecordRef& record, bool first_read) {
        return std::any_of(changed.examples.begin(), changed.examples.end(), [&](const auto& pair) {
            return (first_read ? pair.first : pair.second).position == record.position;
        });
    };
    auto diff = diff_records(first_records, second_records, CompareBy::content, CompareBy::content);
    for (const auto& record : diff.examples.missing) {
        if (!is_changed(record, true)) {
            outcome.add("emitted by the first read but not the second: " +
                        describe_record(record, names));
        }
    }
    for (const auto& record : diff.examples.extra) {
        if (!is_changed(record, false)) {
            outcome.add("emitted by the second read but not the first: " +
                        describe_record(record, names));
        }
    }
    auto shown = static_cast<std::uint64_t>(
        std::count_if(diff.examples.missing.begin(), diff.examples.missing.end(),
                      [&](const RecordRef& record) { return !is_changed(record, true); }) +
        std::count_if(diff.examples.extra.begin(), diff.examples.extra.end(),
                      [&](const RecordRef& record) { return !is_changed(record, false); }));
    auto unexplained = diff.missing_count + diff.extra_count - 2 * changed.count;
    outcome.occurrences += unexplained > shown ? unexplained - shown : 0;
    outcome.note = "full-refresh streams compared by content, volatile fields ignored";
}

void check_expected_records(const ScenarioContext& context, CheckOutcome& outcome) {
    const auto& config = *context.test_config;
    auto reads = context.steps_running(Command::read);
    if (reads.empty() || reads[0]->runs.empty()) {
        outcome.not_applicable = "no read ran";
        return;
    }
    const auto& run = reads[0]->runs.front();
    std::set<std::uint32_t> streams_with_expectations;
    protocol::Observation expected_run;
    expected_run.label = config.expected_origin;
    expected_run.records.set_folder(run.records.folder());
    std::vector<json::Digester> digesters;
    for (const auto& stream : context.catalog->streams) {
        digesters.emplace_back(stream.volatile_pointers);
    }
    for (const auto& expected : config.expected_records) {
        auto index = context.catalog->find(expected.stream, std::nullopt);
        if (!index) {
            outcome.add(
                fmt::format("{}:{}: expected record of stream '{}', which is not in the "
                            "configured catalog",
                            config.expected_origin, expected.line, expected.stream));
            continue;
        }
        auto data = json::parse_json_text(expected.data_json, config.expected_origin);
        protocol::RecordEntry entry;
        entry.stream = static_cast<std::uint32_t>(*index);
        entry.content = digesters[*index].digest(data);
        entry.line = expected.line;
        entry.key = expected.data_json.substr(0, 80);
        expected_run.records.push_back(entry);
        streams_with_expectations.insert(entry.stream);
    }
    RecordSet expected_refs(expected_run);
    RecordSet actual(run, [&](const protocol::RecordEntry& entry) {
        return streams_with_expectations.count(entry.stream) > 0;
    });
    auto diff = diff_records(expected_refs, actual, CompareBy::content, CompareBy::content);
    auto names = stream_names(context);
    for (const auto& record : diff.examples.missing) {
        outcome.add(fmt::format("expected record not emitted: {}", describe_record(record, names)));
    }
    outcome.occurrences += diff.missing_count - diff.examples.missing.size();
    if (config.expected_exact) {
        for (const auto& record : diff.examples.extra) {
            outcome.add("emitted but not expected (mode exact): " + describe_record(record, names));
        }
        outcome.occurrences += diff.extra_count - diff.examples.extra.size();
    }
    outcome.note = fmt::format("{} expected records, mode {}", expected_run.records.size(),
                               config.expected_exact ? "exact" : "subset");
}

void check_final_state(const ScenarioContext& context, CheckOutcome& outcome) {
    outcome.skip("no read exited 0 after emitting records");
    for (const auto* step : context.steps_running(Command::read)) {
        for (const auto& run : step->runs) {
            if (exited_cleanly(run) && !run.records.empty()) {
                outcome.not_applicable.reset();
            }
            if (exited_cleanly(run) && run.last_record_line > run.last_state_line) {
                outcome.add(fmt::format("the read exited 0 but its last record (line {}) comes "
                                        "after its last STATE ({}): those records are never "
                                        "committed",
                                        run.last_record_line,
                                        run.last_state_line == 0
                                            ? std::string("none")
                                            : fmt::format("line {}", run.last_state_line)),
                            run.label, run.last_record_line);
            }
        }
    }
}

}  // namespace

std::vector<CheckDefinition> core_checks() {
    using enum checks::Level;
    using enum Role;
    constexpr auto across = CheckKind::across_runs;
    return {
        {{ids::cli_spec, {"AP-CLI-1"}, must, "spec emits exactly one SPEC and exits 0"},
         across,
         {spec},
         check_spec_command},
        {{ids::cli_check,
          {"AP-CLI-2"},
          must,
          "check reports SUCCEEDED for a valid config and FAILED for an invalid one, exit 0"},
         across,
         {check},
         check_check_command},
        {{ids::cli_discover, {"AP-CLI-3"}, must, "discover emits exactly one CATALOG and exits 0"},
         across,
         {discover},
         check_discover_command},
        {{ids::cli_read,
          {"AP-CLI-4"},
          must,
          "read exits 0; a failing read exits non-zero after a TRACE error"},
         across,
         {read},
         check_read_command},
        {{ids::read_invalid_config,
          {"AP-CLI-4"},
          must,
          "read with the invalid config fails: non-zero exit or a TRACE error, no records"},
         across,
         {invalid_read},
         check_read_invalid_config},
        {{ids::check_minimal_config,
          {"AP-CLI-2"},
          must,
          "check with only the spec's required properties and defaults reports a status, exit 0"},
         across,
         {check_minimal},
         check_minimal_config},
        {{ids::spec_schema,
          {"AP-SPEC-1"},
          must,
          "connectionSpecification is a valid draft-07 schema of an object"},
         across,
         {spec},
         check_spec_schema},
        {{ids::spec_config, {"AP-SPEC-2"}, must, "the test config validates against the spec"},
         across,
         {spec},
         check_spec_config},
        {{ids::discover_streams,
          {"AP-DISC-1"},
          must,
          "streams are unique, schemas valid, sync modes listed"},
         across,
         {discover},
         check_discover_streams},
        {{ids::discover_keys,
          {"AP-DISC-2"},
          must,
          "primary-key and cursor paths exist in the stream schema"},
         across,
         {discover},
         check_discover_keys},
        {{ids::read_deterministic,
          {"AP-READ-6"},
          should,
          "two full-refresh reads emit the same records"},
         across,
         {read},
         check_deterministic},
        {{ids::read_expected, {"AP-READ-7"}, must, "the expected records are emitted"},
         across,
         {read},
         check_expected_records},
        {{ids::state_final, {"X-STATE-4"}, should, "a successful read ends with a STATE"},
         across,
         {read},
         check_final_state},
    };
}

}  // namespace conform::suite
