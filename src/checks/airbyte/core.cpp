// The core Airbyte checks judged once the runs are over (AP-*): command exits, spec, discover,
// determinism, expected records, the final checkpoint.
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "checks/airbyte/airbyte.hpp"
#include "checks/airbyte/helpers.hpp"
#include "checks/expected_spec.hpp"
#include "json/compare.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "protocol/analyzer.hpp"
#include "schema/schema.hpp"
#include "suite/compare.hpp"
#include "suite/field_diff.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::checks::airbyte {

using suite::CompareBy;
using suite::RecordSet;
using suite::StepResult;

namespace {

// ", and said: <its TRACE error message>" when the failed run emitted one.
std::string said(const protocol::Observation& run) {
    auto message = protocol::trace_error_message(run);
    return message.empty() ? std::string() : fmt::format(", and said: \"{}\"", message);
}

// Exactly one `type` message and exit 0, for the runs of spec, check or discover steps.
void expect_single(const std::vector<const StepResult*>& steps, const std::string& type,
                   Verdict& verdict) {
    for (const auto* step : steps) {
        for (const auto& run : step->runs) {
            verdict.judged();
            auto count = run.count(type);
            if (count != 1) {
                verdict.fail(fmt::format("expected exactly one {} message, got {}", type, count),
                             {run.label});
            }
            if (!exited_cleanly(run)) {
                verdict.fail(
                    fmt::format("expected exit code 0, got {}{}", exit_text(run), said(run)),
                    {run.label, 0, stderr_tail(run)});
            }
        }
    }
}

void check_spec_command(const Inputs& inputs, Verdict& verdict) {
    expect_single(inputs.steps(0), "SPEC", verdict);
}

void check_discover_command(const Inputs& inputs, Verdict& verdict) {
    expect_single(inputs.steps(0), "CATALOG", verdict);
}

void check_check_command(const Inputs& inputs, Verdict& verdict) {
    expect_single(inputs.steps(0), "CONNECTION_STATUS", verdict);
    for (const auto* step : inputs.steps(0)) {
        auto config = step->step->config;
        std::string expected = config == suite::ConfigChoice::invalid ? "FAILED" : "SUCCEEDED";
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
                verdict.fail(fmt::format("with the {} config expected status {}, got {}",
                                         to_string(config), expected, seen),
                             {run.label, kept->line, kept->json});
            } else if (seen == "FAILED" &&
                       (!status.HasMember("message") || !status["message"].IsString() ||
                        status["message"].GetStringLength() == 0)) {
                verdict.fail("status FAILED carries no message explaining why",
                             {run.label, kept->line, kept->json});
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

void check_read_command(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            verdict.judged();
            if (exited_cleanly(run)) {
                continue;
            }
            std::string trace =
                has_trace_error(run) ? said(run) : "; no TRACE error message came first";
            verdict.fail(fmt::format("read failed: {}{}", exit_text(run), trace),
                         {run.label, 0, stderr_tail(run)});
        }
    }
}

// "an ERROR log", "a FATAL log".
std::string log_of_level(std::string_view level) {
    bool vowel =
        !level.empty() && std::string_view("AEIOU").find(level.front()) != std::string_view::npos;
    return fmt::format("{} {} log", vowel ? "an" : "a", level);
}

// What a read says of its own failure without a TRACE error: a FAILED connection status, an ERROR
// or FATAL log; empty when it said nothing.
std::string failure_said(const protocol::Observation& run) {
    if (const auto* status = run.first_kept("CONNECTION_STATUS");
        status != nullptr && status->json.find("\"FAILED\"") != std::string::npos) {
        return "a CONNECTION_STATUS FAILED";
    }
    if (!run.error_logs.empty()) {
        return log_of_level(run.error_logs.front().level);
    }
    return {};
}

// With the invalid config, a read that reported its failure and exited 0 broke AP-CLI-4's "on
// failure it exits non-zero"; one that read anyway only warns: the protocol hands read a config
// already validated against the spec.
void judge_invalid_config_success(const protocol::Observation& run, Verdict& verdict) {
    if (auto said = failure_said(run); !said.empty()) {
        verdict.fail(fmt::format("with the invalid config the read failed ({}) but exited 0, with "
                                 "no TRACE error",
                                 said),
                     {run.label});
        return;
    }
    verdict.advise(fmt::format("with the invalid config the read succeeded (exit 0, {} "
                               "record(s)) and emitted no TRACE error",
                               run.count("RECORD")),
                   {run.label});
}

// AP-CLI-4 read the other way round: a read that cannot work (invalid config) must say so.
void check_read_invalid_config(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            verdict.judged();
            if (run.process.stop_reason == process::StopReason::timeout) {
                verdict.fail(fmt::format("with the invalid config the read {}", exit_text(run)),
                             {run.label});
            } else if (exited_cleanly(run) && !has_trace_error(run)) {
                judge_invalid_config_success(run, verdict);
            }
        }
    }
}

// A config with only the spec's required properties (and its defaults) is still a config: check
// may call it FAILED, but must answer.
void check_minimal_config(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            verdict.judged();
            bool timed_out = run.process.stop_reason == process::StopReason::timeout;
            if (!exited_cleanly(run)) {
                verdict.fail(fmt::format("with only the required properties and defaults, check {}",
                                         ending_text(run)),
                             {run.label, 0, run.process.stderr_text.substr(0, 300)});
            }
            if (run.count("CONNECTION_STATUS") != 1 && !timed_out) {
                verdict.fail(fmt::format("with only the required properties and defaults, check "
                                         "emitted {} CONNECTION_STATUS messages",
                                         run.count("CONNECTION_STATUS")),
                             {run.label, 0, run.process.stderr_text.substr(0, 300)});
            }
        }
    }
}

// The manifest of a manifest-only connector, or null.
const config::Manifest* manifest_of(const Inputs& inputs) {
    return inputs.has_test_config() && inputs.test_config().manifest
               ? &*inputs.test_config().manifest
               : nullptr;
}

// The spec the spec checks judge, and where they read it.
struct JudgedSpec {
    rapidjson::Document message;  // a SPEC message
    engine::Where where;          // its run and stdout line, if a run emitted it
};

// Of a manifest-only connector its manifest's spec section (its runner's `spec` prints the
// runner's own, while the steps ran it all the same); otherwise the first SPEC message of the spec
// steps. Nothing skips the check.
std::optional<JudgedSpec> judged_spec(const Inputs& inputs, Verdict& verdict) {
    if (const auto* manifest = manifest_of(inputs)) {
        verdict.note(
            fmt::format("judged the spec section of {} (line {}): a manifest-only "
                        "connector's runner prints its own generic spec",
                        manifest->as_named, manifest->spec_line));
        // No run and no stdout line to point at: the note says where the spec was read.
        return JudgedSpec{json::parse_json_text(manifest->spec_message, manifest->origin), {}};
    }
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            if (const auto* kept = run.first_kept("SPEC")) {
                return JudgedSpec{json::parse_json_text(kept->json, "SPEC"), {"spec", kept->line}};
            }
        }
    }
    verdict.skip("spec emitted no SPEC message (see cli.spec)");
    return std::nullopt;
}

void check_spec_schema(const Inputs& inputs, Verdict& verdict) {
    auto spec = judged_spec(inputs, verdict);
    if (!spec) {
        return;
    }
    verdict.judged();
    const auto& specification = spec->message["spec"]["connectionSpecification"];
    std::vector<schema::Violation> violations;
    if (!schema::draft7_metaschema().validate(specification, &violations)) {
        for (const auto& violation : violations) {
            verdict.fail(fmt::format("connectionSpecification is not a valid draft-07 schema: at "
                                     "'{}': {}",
                                     violation.instance_path, violation.message),
                         spec->where);
        }
        return;
    }
    if (!specification.IsObject() || !specification.HasMember("type") ||
        !specification["type"].IsString() ||
        std::string_view(specification["type"].GetString()) != "object") {
        verdict.fail("connectionSpecification must describe an object (\"type\": \"object\")",
                     spec->where);
    }
    try {
        schema::Schema::compile(specification);
    } catch (const Error& error) {
        verdict.fail(fmt::format("connectionSpecification cannot be used: {}", error.what()),
                     spec->where);
    }
}

void check_spec_secrets_marked(const Inputs& inputs, Verdict& verdict) {
    if (auto spec = judged_spec(inputs, verdict)) {
        judge_secret_marks(spec->message["spec"], spec->where, verdict);
    }
}

void check_spec_config(const Inputs& inputs, Verdict& verdict) {
    if (const auto& no_config = inputs.test_config().no_config) {
        verdict.skip(*no_config);
        return;
    }
    auto spec = judged_spec(inputs, verdict);
    if (!spec) {
        return;
    }
    auto config = json::parse_json_text(inputs.main_config(), inputs.test_config().origin.string());
    try {
        auto compiled = schema::Schema::compile(spec->message["spec"]["connectionSpecification"]);
        std::vector<schema::Violation> violations;
        verdict.judged();
        if (!compiled.validate(config, &violations)) {
            for (const auto& violation : violations) {
                verdict.fail(fmt::format("the test config's connector config does not match the "
                                         "spec: at '{}': {} (fix the test setup or the spec)",
                                         violation.instance_path, violation.message),
                             spec->where);
            }
        }
    } catch (const Error& error) {
        verdict.skip(fmt::format("the spec's schema does not compile: {}", error.what()));
    }
}

// AP-SPEC-4: the SPEC equals the test config's expected spec, as Airbyte's test_match_expected
// compares spec_path; of a manifest only connectionSpecification.
void check_expected_spec(const Inputs& inputs, Verdict& verdict) {
    const auto& expected_spec = inputs.test_config().expected_spec;
    if (!expected_spec) {
        return;
    }
    const auto* manifest = manifest_of(inputs);
    std::error_code unknown;
    if (manifest != nullptr &&
        std::filesystem::equivalent(manifest->origin, expected_spec->origin, unknown)) {
        verdict.skip(
            fmt::format("the expected spec, {}, is the manifest whose spec section is "
                        "the connector's spec: nothing to compare",
                        expected_spec->as_named));
        return;
    }
    auto spec = judged_spec(inputs, verdict);
    if (!spec) {
        return;
    }
    verdict.judged();
    compare_with_expected_spec(*expected_spec, spec->message["spec"], spec->where, verdict);
}

// The first CATALOG message of the discover steps, or nothing (skipping the check).
std::optional<rapidjson::Document> discovered(const Inputs& inputs, Verdict& verdict,
                                              std::uint64_t& line) {
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            if (const auto* kept = run.first_kept("CATALOG")) {
                line = kept->line;
                return json::parse_json_text(kept->json, "CATALOG");
            }
        }
    }
    verdict.skip("discover emitted no CATALOG message (see cli.discover)");
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

void check_discover_streams(const Inputs& inputs, Verdict& verdict) {
    std::uint64_t line = 0;
    auto message = discovered(inputs, verdict, line);
    if (!message) {
        return;
    }
    std::set<std::string> seen;
    for (const auto& stream : (*message)["catalog"]["streams"].GetArray()) {
        verdict.judged();
        auto name = stream_name(stream);
        if (!seen.insert(name).second) {
            verdict.fail(fmt::format("stream '{}' is listed more than once", name),
                         {"discover", line});
        }
        if (!stream.HasMember("supported_sync_modes") ||
            !stream["supported_sync_modes"].IsArray() || stream["supported_sync_modes"].Empty()) {
            verdict.fail(fmt::format("stream '{}' lists no supported_sync_modes", name),
                         {"discover", line});
        }
        std::vector<schema::Violation> violations;
        if (!stream.HasMember("json_schema") ||
            !schema::draft7_metaschema().validate(stream["json_schema"], &violations)) {
            verdict.fail(fmt::format("stream '{}' json_schema is not a valid draft-07 schema{}",
                                     name, violations.empty() ? "" : ": " + violations[0].message),
                         {"discover", line});
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

void check_discover_keys(const Inputs& inputs, Verdict& verdict) {
    std::uint64_t line = 0;
    auto message = discovered(inputs, verdict, line);
    if (!message) {
        return;
    }
    for (const auto& stream : (*message)["catalog"]["streams"].GetArray()) {
        if (!stream.HasMember("json_schema")) {
            continue;
        }
        const auto& schema = stream["json_schema"];
        auto name = stream_name(stream);
        if (stream.HasMember("source_defined_primary_key") &&
            stream["source_defined_primary_key"].IsArray()) {
            for (const auto& path : stream["source_defined_primary_key"].GetArray()) {
                verdict.judged(path.IsArray() ? 1 : 0);
                if (path.IsArray() && path.Empty()) {
                    verdict.fail(fmt::format("stream '{}': a primary key path is empty ([]): it "
                                             "names no field, so it cannot tell records apart",
                                             name),
                                 {"discover", line});
                } else if (path.IsArray() && !path_in_schema(schema, path)) {
                    verdict.fail(fmt::format("stream '{}': primary key {} is not a property of its "
                                             "schema",
                                             name, json_text(path)),
                                 {"discover", line});
                }
            }
        }
        bool has_cursor = stream.HasMember("default_cursor_field") &&
                          stream["default_cursor_field"].IsArray() &&
                          !stream["default_cursor_field"].Empty();
        verdict.judged(has_cursor ? 1 : 0);
        if (has_cursor && !path_in_schema(schema, stream["default_cursor_field"])) {
            verdict.fail(fmt::format("stream '{}': default cursor {} is not a property of its "
                                     "schema",
                                     name, json_text(stream["default_cursor_field"])),
                         {"discover", line});
        }
    }
}

void check_deterministic(const Inputs& inputs, Verdict& verdict) {
    const auto& first_step = *inputs.steps(0).at(0);
    const auto& second_step = *inputs.steps(0).at(1);
    const auto& first = first_step.runs.front();
    const auto& second = second_step.runs.front();
    for (const auto* run : {&first, &second}) {
        if (!exited_cleanly(*run)) {
            // What a failed read emitted before it ended proves nothing of a whole read.
            verdict.skip(
                fmt::format("the read '{}' failed ({}): no whole reads to compare (see "
                            "cli.read)",
                            run->label, exit_text(*run)));
            return;
        }
    }
    const auto& catalog = inputs.catalog();
    // Plain reads compare the full-refresh streams; reads in full refresh the incremental streams
    // that support it (read-twice-as-full-refresh), so each stream is compared once.
    bool as_full_refresh = first_step.step->as_full_refresh && second_step.step->as_full_refresh;
    auto compared_stream = [as_full_refresh](const protocol::CatalogStream& stream) {
        return as_full_refresh ? stream.incremental() && stream.supports_full_refresh
                               : !stream.incremental();
    };
    auto full_refresh = [&catalog, &compared_stream](const protocol::RecordEntry& entry) {
        return compared_stream(catalog.streams[entry.stream]);
    };
    RecordSet first_records(first, full_refresh);
    RecordSet second_records(second, full_refresh);
    verdict.judged(first_records.size() + second_records.size());
    auto names = inputs.stream_names();
    std::vector<std::string> compared;
    for (std::size_t s = 0; s < catalog.streams.size(); ++s) {
        if (compared_stream(catalog.streams[s])) {
            compared.push_back(names[s]);
        }
    }
    verdict.note(fmt::format("compared: {}{}", fmt::join(compared, ", "),
                             as_full_refresh ? " (incremental, read in full refresh)" : ""));
    auto changed = changed_records(first_records, second_records);
    for (const auto& [before, after] : changed.examples) {
        auto fields = suite::describe_changes(
            before, after, catalog.streams[before.entry.stream].volatile_pointers);
        verdict.fail(fmt::format("same key, other content in the second read: {} became {}{}",
                                 describe_record(before, names), describe_record(after, names),
                                 fields.empty() ? "" : " (" + fields + ")"));
    }
    verdict.count_more(changed.count - changed.examples.size());
    auto is_changed = [&changed](const suite::RecordRef& record, bool first_read) {
        return std::any_of(changed.examples.begin(), changed.examples.end(), [&](const auto& pair) {
            return (first_read ? pair.first : pair.second).position == record.position;
        });
    };
    auto diff = diff_records(first_records, second_records, CompareBy::content, CompareBy::content);
    std::uint64_t shown = 0;
    for (const auto& record : diff.examples.missing) {
        if (!is_changed(record, true)) {
            ++shown;
            verdict.fail("emitted by the first read but not the second: " +
                         describe_record(record, names));
        }
    }
    for (const auto& record : diff.examples.extra) {
        if (!is_changed(record, false)) {
            ++shown;
            verdict.fail("emitted by the second read but not the first: " +
                         describe_record(record, names));
        }
    }
    auto unexplained = diff.missing_count + diff.extra_count - 2 * changed.count;
    verdict.count_more(unexplained > shown ? unexplained - shown : 0);
    verdict.note("full-refresh streams compared by content, volatile fields ignored");
}

// Airbyte's exact_order: the first records a stream emits are its expected records, in the file's
// order, compared by primary key where the stream has one (a record whose fields differ is a
// missing record already, not one out of place) and by content otherwise. Where the stream
// emitted fewer, the missing ones are findings already.
void check_expected_order(const RecordSet& expected, const RecordSet& actual,
                          const protocol::Catalog& catalog, const std::vector<std::string>& names,
                          Verdict& verdict) {
    struct Seen {
        std::uint64_t position;
        json::Digest match;
    };
    auto keyed = [&catalog](std::uint32_t stream) {
        return stream < catalog.streams.size() && !catalog.streams[stream].primary_key.empty();
    };
    auto match_of = [&keyed](const protocol::RecordEntry& entry) {
        return keyed(entry.stream) ? entry.identity : entry.content;
    };
    std::map<std::uint32_t, std::vector<Seen>> expected_records;
    expected.scan([&](std::uint64_t position, const protocol::RecordEntry& entry) {
        expected_records[entry.stream].push_back({position, match_of(entry)});
    });
    // The first record of each stream that breaks the order; none when it keeps it.
    std::map<std::uint32_t, std::pair<std::size_t, std::uint64_t>> breaks;
    std::map<std::uint32_t, std::size_t> compared;
    actual.scan([&](std::uint64_t position, const protocol::RecordEntry& entry) {
        const auto& wanted = expected_records[entry.stream];
        auto& index = compared[entry.stream];
        if (index < wanted.size() && !breaks.contains(entry.stream)) {
            if (wanted[index].match != match_of(entry)) {
                breaks[entry.stream] = {index, position};
            }
            ++index;
        }
    });
    for (const auto& [stream, at] : breaks) {
        const auto [index, position] = at;
        auto expected_record = expected.at(expected_records[stream][index].position);
        verdict.fail(fmt::format(
            "out of order: record {} of stream '{}' is {}, where {}:{} expects {}", index + 1,
            names[stream], describe_record(actual.at(position), names), expected_record.run->label,
            expected_record.entry.line, expected_record.entry.key));
    }
}

// For each missing expected record of a stream with a primary key, by its line in the expected
// file: how the first emitted record with its key differs from it, or that none has its key.
std::map<std::uint64_t, std::string> differences_by_key(
    const std::vector<suite::RecordRef>& missing, const config::TestConfig& config,
    const protocol::Catalog& catalog, const RecordSet& actual) {
    struct Wanted {
        std::uint64_t line;
        json::Digest identity;
        rapidjson::Document data;
        std::optional<std::uint64_t> found;
    };
    std::vector<Wanted> wanted;
    for (const auto& record : missing) {
        auto expected = std::find_if(
            config.expected_records.begin(), config.expected_records.end(),
            [&record](const auto& candidate) { return candidate.line == record.entry.line; });
        if (expected == config.expected_records.end()) {
            continue;
        }
        auto data = json::parse_json_text(expected->data_json, config.expected_origin);
        auto key = protocol::primary_key_of(record.entry.stream,
                                            catalog.streams[record.entry.stream], data);
        if (key) {
            wanted.push_back({record.entry.line, key->identity, std::move(data), std::nullopt});
        }
    }
    if (wanted.empty()) {
        return {};
    }
    actual.scan([&wanted](std::uint64_t position, const protocol::RecordEntry& entry) {
        for (auto& one : wanted) {
            if (!one.found && entry.identity == one.identity) {
                one.found = position;
            }
        }
    });
    std::map<std::uint64_t, std::string> said;
    for (const auto& one : wanted) {
        if (!one.found) {
            said[one.line] = "no record with its primary key was emitted";
            continue;
        }
        auto emitted = actual.at(*one.found);
        auto fields = suite::describe_changes(
            one.data, emitted, catalog.streams[emitted.entry.stream].volatile_pointers);
        if (!fields.empty()) {
            said[one.line] = fmt::format(
                "the read's line {} has its primary key and differs (expected -> "
                "emitted): {}",
                emitted.entry.line, fields);
        }
    }
    return said;
}

void check_expected_records(const Inputs& inputs, Verdict& verdict) {
    const auto& config = inputs.test_config();
    const auto& catalog = inputs.catalog();
    const auto& run = inputs.first(0).runs.front();
    std::set<std::uint32_t> streams_with_expectations;
    protocol::Observation expected_run;
    expected_run.label = config.expected_origin;
    expected_run.records.set_folder(run.records.folder());
    std::vector<json::Digester> digesters;
    for (const auto& stream : catalog.streams) {
        digesters.emplace_back(stream.volatile_pointers);
    }
    for (const auto& expected : config.expected_records) {
        auto index = catalog.find(expected.stream, std::nullopt);
        if (!index) {
            verdict.fail(
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
        // Known by its primary key where the stream has one, as emitted records are; else by
        // the start of its data.
        auto stream = static_cast<std::uint32_t>(*index);
        auto key = protocol::primary_key_of(stream, catalog.streams[*index], data);
        entry.key = key ? "key " + key->text : expected.data_json.substr(0, 80);
        entry.identity = key ? key->identity : entry.content;
        expected_run.records.push_back(entry);
        streams_with_expectations.insert(entry.stream);
    }
    verdict.judged(config.expected_records.size());
    RecordSet expected_refs(expected_run);
    RecordSet actual(run, [&](const protocol::RecordEntry& entry) {
        return streams_with_expectations.count(entry.stream) > 0;
    });
    auto diff = diff_records(expected_refs, actual, CompareBy::content, CompareBy::content);
    auto names = inputs.stream_names();
    auto differences = differences_by_key(diff.examples.missing, config, catalog, actual);
    for (const auto& record : diff.examples.missing) {
        // An expected record is known by its data, which its key holds the start of.
        auto difference = differences.find(record.entry.line);
        verdict.fail(fmt::format("expected record not emitted: {} {} (line {} of {}){}",
                                 names[record.entry.stream], record.entry.key, record.entry.line,
                                 record.run->label,
                                 difference == differences.end() ? "" : ": " + difference->second));
    }
    verdict.count_more(diff.missing_count - diff.examples.missing.size());
    if (config.expected_exact) {
        for (const auto& record : diff.examples.extra) {
            verdict.fail("emitted but not expected (mode exact): " +
                         describe_record(record, names));
        }
        verdict.count_more(diff.extra_count - diff.examples.extra.size());
    }
    if (config.expected_in_order) {
        check_expected_order(expected_refs, actual, catalog, names, verdict);
    }
    verdict.note(fmt::format("{} expected records, mode {}{}", expected_run.records.size(),
                             config.expected_exact ? "exact" : "subset",
                             config.expected_in_order ? ", in order" : ""));
}

// AP-READ-8: what a stream's STREAM_STATUS traces say of how it ended, or nothing when it ended
// COMPLETE after a STARTED, with only RUNNING between.
std::optional<std::string> status_problem(const std::vector<std::string>& statuses) {
    if (std::find(statuses.begin(), statuses.end(), "INCOMPLETE") != statuses.end()) {
        return "ended INCOMPLETE: the stream failed";
    }
    if (statuses.front() != "STARTED") {
        return fmt::format("reported {} before STARTED", statuses.front());
    }
    if (statuses.back() != "COMPLETE") {
        return fmt::format("ended {} without COMPLETE", statuses.back());
    }
    for (std::size_t i = 1; i + 1 < statuses.size(); ++i) {
        if (statuses[i] != "RUNNING") {
            return fmt::format("reported {} between STARTED and COMPLETE", statuses[i]);
        }
    }
    return std::nullopt;
}

void judge_stream_statuses(const protocol::Observation& run, const std::vector<std::string>& names,
                           Verdict& verdict) {
    if (run.stream_statuses.empty()) {
        return;
    }
    for (const auto& name : names) {
        auto found = run.stream_statuses.find(name);
        if (found == run.stream_statuses.end()) {
            verdict.fail(fmt::format("configured stream {} has no STREAM_STATUS though others do: "
                                     "it was never started",
                                     name),
                         {run.label});
        } else if (auto problem = status_problem(found->second)) {
            verdict.fail(fmt::format("stream {} {} (statuses: {})", name, *problem,
                                     fmt::join(found->second, ", ")),
                         {run.label});
        }
    }
}

// A read that exits 0 read every configured stream: the streams' statuses, and FATAL or ERROR
// logs, tell when one failed while the read still exited 0.
void check_streams_complete(const Inputs& inputs, Verdict& verdict) {
    auto names = inputs.stream_names();
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            if (!exited_cleanly(run)) {
                continue;  // cli.read's finding
            }
            verdict.judged();
            judge_stream_statuses(run, names, verdict);
            for (const auto& log : run.error_logs) {
                auto message = fmt::format("the read exited 0 after {}: {}",
                                           log_of_level(log.level), log.message);
                if (log.level == "FATAL") {
                    verdict.fail(message, {run.label, log.line});
                } else {
                    verdict.advise(message + " (did a stream fail silently?)",
                                   {run.label, log.line});
                }
            }
            if (run.error_log_count > run.error_logs.size()) {
                verdict.note(fmt::format("{} ERROR or FATAL logs in {} in all", run.error_log_count,
                                         run.label));
            }
        }
    }
}

// AP-READ-11: in a read that exited 0, every configured stream the test config does not list in
// empty_streams emitted a record; a stream without one is a stream no record check tested.
void check_streams_have_records(const Inputs& inputs, Verdict& verdict) {
    static const std::vector<std::string> k_none;
    const auto& allowed = inputs.has_test_config() ? inputs.test_config().empty_streams : k_none;
    const auto& catalog = inputs.catalog();
    auto names = inputs.stream_names();
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            if (!exited_cleanly(run)) {
                continue;  // cli.read's finding
            }
            auto counts = run.records.per_stream();
            std::vector<std::string> listed;
            std::vector<std::string> not_empty;  // listed, yet with records
            for (std::size_t s = 0; s < catalog.streams.size(); ++s) {
                bool has_records = s < counts.size() && counts[s].records > 0;
                if (std::find(allowed.begin(), allowed.end(), catalog.streams[s].name) !=
                    allowed.end()) {
                    listed.push_back(names[s]);
                    if (has_records) {
                        not_empty.push_back(names[s]);
                    }
                    continue;
                }
                verdict.judged();
                if (!has_records) {
                    verdict.fail(fmt::format(
                        "{} emitted no record of stream '{}': no record check judged it (when the "
                        "source holds data for it, the connector does not read it; otherwise give "
                        "the source data for it, or list it in the test config's empty_streams)",
                        run.label, names[s]));
                }
            }
            if (!listed.empty()) {
                verdict.note(fmt::format("allowed to be empty (empty_streams): {}",
                                         fmt::join(listed, ", ")));
            }
            if (!not_empty.empty()) {
                verdict.note(fmt::format("listed in empty_streams, yet with records in {}: {}",
                                         run.label, fmt::join(not_empty, ", ")));
            }
        }
    }
}

// AP-READ-9: a record (key and content) twice in one read; and in a full-refresh stream, one key
// with other content: the key does not identify a record (source-gitlab 3.0.0's branches, "main"
// in every project), and a deduplicating destination keeps one of them.
void check_no_duplicates(const Inputs& inputs, Verdict& verdict) {
    auto names = inputs.stream_names();
    const auto& streams = inputs.catalog().streams;
    auto full_refresh = [&streams](std::uint32_t stream) {
        return stream < streams.size() && !streams[stream].incremental();
    };
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            auto duplicates = duplicate_records(RecordSet(run), 5, full_refresh);
            verdict.judged(duplicates.keyed - duplicates.unread);
            if (duplicates.unread > 0) {
                verdict.note(fmt::format(
                    "{} records of {} whose key repeats were not compared: their lines could not "
                    "be read again (the transcript changed while it was checked)",
                    duplicates.unread, run.label));
            }
            for (const auto& record : duplicates.examples) {
                verdict.fail(fmt::format("emitted again in the same read, same key and content: {}",
                                         describe_record(record, names)));
            }
            verdict.count_more(duplicates.count - duplicates.examples.size());
            for (const auto& record : duplicates.collisions.examples) {
                verdict.fail(fmt::format("the primary key does not identify the record: another "
                                         "record of the same read has the same key and other "
                                         "content: {}",
                                         describe_record(record, names)),
                             {run.label, record.entry.line});
            }
            verdict.count_more(duplicates.collisions.count - duplicates.collisions.examples.size());
        }
    }
    verdict.note(
        "streams with a primary key; volatile fields ignored; one key with other content is "
        "reported in full-refresh streams only (an incremental read may see a record change)");
}

// Per catalog stream, the line of its last RECORD and of the last STATE that commits it (0: none),
// and whether it checkpoints at all (a STATE names it, or a legacy or global STATE commits every
// stream).
struct StreamEnds {
    std::vector<std::uint64_t> last_record;
    std::vector<std::uint64_t> last_state;
    std::vector<bool> checkpointed;
};

StreamEnds stream_ends(const protocol::Observation& run, std::size_t streams) {
    StreamEnds ends{std::vector<std::uint64_t>(streams), std::vector<std::uint64_t>(streams),
                    std::vector<bool>(streams)};
    auto held = run.records.per_stream();
    for (std::size_t s = 0; s < std::min(streams, held.size()); ++s) {
        ends.last_record[s] = held[s].last_line;
    }
    for (std::size_t i = 0; i < run.checkpoints.size(); ++i) {
        const auto& checkpoint = run.checkpoints[i];
        for (std::size_t s = 0; s < streams; ++s) {
            bool named = std::find(checkpoint.streams.begin(), checkpoint.streams.end(), s) !=
                         checkpoint.streams.end();
            if (checkpoint.all_streams || named) {
                ends.checkpointed[s] = true;
                ends.last_state[s] = std::max(ends.last_state[s], checkpoint.line);
            }
        }
    }
    return ends;
}

// X-STATE-4 stream by stream, as X-STATE-3 is judged: only a stream that checkpoints (incremental,
// or named by a STATE) owes a final STATE after its last record; a full-refresh stream read after
// the last STATE of another owes none.
void check_final_state(const Inputs& inputs, Verdict& verdict) {
    const auto& catalog = inputs.catalog();
    auto names = inputs.stream_names();
    bool any_clean = false;
    bool any_owed = false;
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            if (!exited_cleanly(run) || run.records.empty()) {
                continue;
            }
            any_clean = true;
            auto ends = stream_ends(run, catalog.streams.size());
            for (std::size_t s = 0; s < catalog.streams.size(); ++s) {
                const auto& stream = catalog.streams[s];
                bool read_incrementally = stream.incremental() && !(step->step->as_full_refresh &&
                                                                    stream.supports_full_refresh);
                bool owes = read_incrementally || ends.checkpointed[s];
                if (!owes || ends.last_record[s] == 0) {
                    continue;
                }
                any_owed = true;
                verdict.judged();
                if (ends.last_record[s] > ends.last_state[s]) {
                    verdict.fail(
                        fmt::format("the read exited 0 but the last {} record (line {}) comes "
                                    "after the last STATE that commits it ({}): those records "
                                    "are never committed",
                                    names[s], ends.last_record[s],
                                    ends.last_state[s] == 0
                                        ? std::string("none")
                                        : fmt::format("line {}", ends.last_state[s])),
                        {run.label, ends.last_record[s]});
                }
            }
        }
    }
    if (!any_owed) {
        verdict.skip(any_clean ? "no stream with records in a read that exited 0 checkpoints: none "
                                 "is read incrementally, and no STATE names one"
                               : "no read with records exited 0 (see cli.read)");
    }
}

}  // namespace

suite::Checks core_checks() {
    using enum report::Level;
    using enum suite::Role;
    using engine::Count;
    suite::Checks checks{
        {{"cli.spec", {"AP-CLI-1"}, must, "spec emits exactly one SPEC and exits 0"},
         {{spec}},
         "no spec run",
         check_spec_command},
        {{"cli.check",
          {"AP-CLI-2"},
          must,
          "check reports SUCCEEDED for a valid config and FAILED for an invalid one, exit 0"},
         {{check, {}, {check_minimal}}},
         "no check run",
         check_check_command},
        {{"cli.discover", {"AP-CLI-3"}, must, "discover emits exactly one CATALOG and exits 0"},
         {{discover}},
         "no discover run",
         check_discover_command},
        {{"cli.read",
          {"AP-CLI-4"},
          must,
          "read exits 0; a failing read exits non-zero after a TRACE error"},
         {{finite_read}},
         "no read ran",
         check_read_command},
        {{"cli.read_invalid_config",
          {"AP-CLI-4"},
          must,
          "read with the invalid config fails: non-zero exit or a TRACE error, no records"},
         {{invalid_read}},
         "no read with the invalid config ran",
         check_read_invalid_config},
        {{"cli.check_minimal_config",
          {"AP-CLI-2"},
          must,
          "check with only the spec's required properties and defaults reports a status, exit 0"},
         {{check_minimal}},
         "no check with the minimal config ran",
         check_minimal_config},
        {{"spec.schema_valid",
          {"AP-SPEC-1"},
          must,
          "connectionSpecification is a valid draft-07 schema of an object"},
         {{spec}},
         "spec emitted no SPEC message (see cli.spec)",
         check_spec_schema},
        {{"spec.secrets_marked",
          {"AP-SPEC-5"},
          should,
          "properties named as secrets are marked airbyte_secret, and only those that hold a "
          "value"},
         {{spec}},
         "spec emitted no SPEC message (see cli.spec)",
         check_spec_secrets_marked},
        {{"spec.config_valid", {"AP-SPEC-2"}, must, "the test config validates against the spec"},
         {{spec}},
         "spec emitted no SPEC message (see cli.spec)",
         check_spec_config},
        {{"spec.matches_expected",
          {"AP-SPEC-4"},
          must,
          "spec emits the expected spec (Airbyte's spec_path)"},
         {{spec}},
         "the test config names no expected_spec (Airbyte: an existing spec_path)",
         check_expected_spec},
        {{"discover.streams_valid",
          {"AP-DISC-1"},
          must,
          "streams are unique, schemas valid, sync modes listed"},
         {{discover}},
         "discover listed no stream",
         check_discover_streams},
        {{"discover.key_paths_exist",
          {"AP-DISC-2"},
          must,
          "primary-key and cursor paths exist in the stream schema"},
         {{discover}},
         "no discovered stream declares a primary key or a default cursor",
         check_discover_keys},
        {{"read.full_refresh_deterministic",
          {"AP-READ-6"},
          should,
          "two full-refresh reads emit the same records"},
         {{plain_read, {}, {}, std::nullopt, Count::two}},
         "the two reads emitted no record of a full-refresh stream",
         check_deterministic},
        {{"read.streams_complete",
          {"AP-READ-8"},
          must,
          "a read that exits 0 completed every configured stream (statuses, FATAL/ERROR logs)"},
         {{finite_read}},
         "no read exited 0",
         check_streams_complete},
        {{"read.no_duplicates",
          {"AP-READ-9"},
          should,
          "a record (primary key and content) is emitted once per read"},
         {{read}},
         "no read emitted a record of a stream with a primary key",
         check_no_duplicates},
        {{"read.streams_have_records",
          {"AP-READ-11"},
          should,
          "every configured stream emits a record, but those listed as empty"},
         {{read}},
         "no read exited 0, or every configured stream is listed in empty_streams",
         check_streams_have_records},
        {{"read.expected_records", {"AP-READ-7"}, must, "the expected records are emitted"},
         {{plain_read, {}, {}, std::nullopt, Count::one}},
         "the test config lists no expected record",
         check_expected_records,
         nullptr,
         {"expected_records"}},
        {{"state.final_checkpoint", {"X-STATE-4"}, should, "a successful read ends with a STATE"},
         {{read}},
         "no read exited 0 after emitting records of a stream that checkpoints (an incremental "
         "stream, or one a STATE names)",
         check_final_state},
    };
    // These read a run's exit, its messages or its records' streams, lines and keys; none
    // compares records of a keyless stream by content.
    constexpr std::array<std::string_view, 5> k_keyless_blind{
        "cli.read", "read.streams_complete", "read.streams_have_records", "read.no_duplicates",
        "state.final_checkpoint"};
    for (auto& check : checks) {
        check.reads_contents = std::find(k_keyless_blind.begin(), k_keyless_blind.end(),
                                         check.info.id) == k_keyless_blind.end();
    }
    return checks;
}

}  // namespace conform::checks::airbyte
