// The Singer checks of what the tap's invocations do: --about (SG-ABOUT-1), discovery and its
// catalog (SG-CLI-1, SG-DISC-1, SG-DISC-2), exit codes and timeouts (SG-CLI-2, SG-CLI-3) and
// secrets (SG-SEC-1).
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "checks/singer/helpers.hpp"
#include "checks/singer/singer.hpp"
#include "json/bounded_parse.hpp"
#include "json/member.hpp"
#include "json/write.hpp"
#include "schema/schema.hpp"
#include "singer/messages.hpp"
#include "util/error.hpp"

namespace conform::checks::sg {

namespace {

rapidjson::Document parse(std::string_view text) {
    rapidjson::Document document;
    json::parse_bounded(document, text);
    return document;
}

std::string text_of(const rapidjson::Value* value) {
    return value != nullptr && value->IsString() ? value->GetString() : "";
}

const TapRun* only_run(const Inputs& inputs, std::size_t need) {
    auto runs = inputs.runs(need);
    return runs.empty() ? nullptr : runs.front();
}

void check_about(const Inputs& inputs, Verdict& verdict) {
    const auto* about = only_run(inputs, 0);
    if (about == nullptr) {
        return;
    }
    verdict.judged();
    if (!about->exited_with(0)) {
        fail_with_stderr(
            verdict, *about,
            fmt::format("--about --format=json: {}, expected exit code 0", about->outcome()));
        return;
    }
    auto document = parse(about->stdout_text);
    if (document.HasParseError() || !document.IsObject()) {
        verdict.fail("--about --format=json printed no JSON object",
                     {about->label, 0, excerpt(about->stdout_text, 300)});
        return;
    }
    if (text_of(json::member(document, "name")).empty()) {
        verdict.fail("--about lacks a string \"name\"", {about->label, 0, ""});
    }
    const auto* capabilities = json::member(document, "capabilities");
    if (capabilities == nullptr || !capabilities->IsArray() ||
        std::any_of(capabilities->Begin(), capabilities->End(),
                    [](const rapidjson::Value& item) { return !item.IsString(); })) {
        verdict.fail("--about lacks \"capabilities\", an array of strings", {about->label, 0, ""});
    }
    const auto* settings = json::member(document, "settings");
    if (settings == nullptr || !settings->IsObject()) {
        verdict.fail("--about lacks \"settings\", the JSON Schema of the config",
                     {about->label, 0, ""});
    } else {
        try {
            schema::Schema::compile(*settings);
        } catch (const Error& error) {
            verdict.fail(
                fmt::format("--about's \"settings\" is not a JSON Schema: {}", error.what()),
                {about->label, 0, ""});
        }
    }
    verdict.note("the Meltano SDK's --about --format=json shape: name, capabilities, settings");
}

void check_discover(const Inputs& inputs, Verdict& verdict) {
    const auto* discovery = only_run(inputs, 0);
    if (discovery == nullptr) {
        return;
    }
    verdict.judged();
    if (!discovery->exited_with(0)) {
        fail_with_stderr(verdict, *discovery,
                         fmt::format("--discover: {}, expected exit code 0", discovery->outcome()));
        return;
    }
    std::string problem;
    if (!singer::Catalog::read(discovery->stdout_text, problem)) {
        verdict.fail(fmt::format("--discover printed no catalog: {}", problem),
                     {discovery->label, 0, excerpt(discovery->stdout_text, 300)});
    }
}

// The discovered catalog's stream entries; nothing (and a skip) when discovery printed none.
const rapidjson::Value* stream_entries(const Inputs& inputs, Verdict& verdict) {
    if (inputs.catalog() == nullptr) {
        verdict.skip("discovery printed no catalog (see sg.discover)");
        return nullptr;
    }
    return &inputs.catalog()->document()["streams"];
}

bool schema_is_object(const rapidjson::Value& schema) {
    const auto* type = json::member(schema, "type");
    if (type == nullptr) {
        return json::member(schema, "properties") != nullptr;
    }
    if (type->IsString()) {
        return std::string_view(type->GetString()) == "object";
    }
    return type->IsArray() && std::any_of(type->Begin(), type->End(), [](const auto& item) {
               return item.IsString() && std::string_view(item.GetString()) == "object";
           });
}

void check_catalog_valid(const Inputs& inputs, Verdict& verdict) {
    const auto* entries = stream_entries(inputs, verdict);
    if (entries == nullptr) {
        return;
    }
    const auto& label = inputs.first(0).runs.front().label;
    std::set<std::string> ids;
    std::size_t index = 0;
    for (const auto& entry : entries->GetArray()) {
        verdict.judged();
        auto where = fmt::format("stream {}", index++);
        if (!entry.IsObject()) {
            verdict.fail(fmt::format("{} is not an object", where), {label, 0, ""});
            continue;
        }
        auto id = text_of(json::member(entry, "tap_stream_id"));
        if (id.empty()) {
            verdict.fail(fmt::format("{} has no string \"tap_stream_id\"", where), {label, 0, ""});
        } else if (!ids.insert(id).second) {
            verdict.fail(fmt::format("tap_stream_id '{}' is not unique", id), {label, 0, ""});
        }
        auto name = id.empty() ? where : "'" + id + "'";
        if (text_of(json::member(entry, "stream")).empty()) {
            verdict.fail(fmt::format("stream {} has no string \"stream\"", name), {label, 0, ""});
        }
        const auto* schema = json::member(entry, "schema");
        if (schema == nullptr || !schema->IsObject()) {
            verdict.fail(fmt::format("stream {} has no \"schema\" object", name), {label, 0, ""});
        } else {
            rapidjson::Document copy;
            copy.CopyFrom(*schema, copy.GetAllocator());
            singer::to_draft7(copy, copy.GetAllocator());
            std::vector<schema::Violation> violations;
            if (!schema::draft7_metaschema().validate(copy, &violations, 1)) {
                verdict.fail(
                    fmt::format("the schema of {} is not a valid JSON Schema: at '{}': {}", name,
                                violations.empty() ? "" : violations[0].instance_path,
                                violations.empty() ? "" : violations[0].message),
                    {label, 0, ""});
            } else {
                try {
                    schema::Schema::compile(copy);
                    if (!schema_is_object(copy)) {
                        verdict.fail(
                            fmt::format("the schema of {} does not describe an object", name),
                            {label, 0, ""});
                    }
                } catch (const Error& error) {
                    verdict.fail(
                        fmt::format("the schema of {} does not compile: {}", name, error.what()),
                        {label, 0, ""});
                }
            }
        }
        const auto* metadata = json::member(entry, "metadata");
        if (metadata != nullptr &&
            (!metadata->IsArray() ||
             std::any_of(metadata->Begin(), metadata->End(), [](const rapidjson::Value& item) {
                 const auto* breadcrumb = json::member(item, "breadcrumb");
                 const auto* values = json::member(item, "metadata");
                 return breadcrumb == nullptr || !breadcrumb->IsArray() || values == nullptr ||
                        !values->IsObject();
             }))) {
            verdict.fail(fmt::format("the metadata of {} is not an array of {{breadcrumb, "
                                     "metadata}} entries",
                                     name),
                         {label, 0, ""});
        }
    }
    verdict.note("draft-04 schemas are read as draft-07 (boolean exclusive bounds, id)");
}

const std::set<std::string_view>& known_inclusions() {
    static const std::set<std::string_view> k_values = {"available", "automatic", "unsupported"};
    return k_values;
}

const std::set<std::string_view>& known_methods() {
    static const std::set<std::string_view> k_values = {"FULL_TABLE", "INCREMENTAL", "LOG_BASED"};
    return k_values;
}

void check_metadata_entry(const rapidjson::Value& values, const std::string& name,
                          const std::string& at, const std::string& label, Verdict& verdict) {
    auto bad_type = [&](const char* key, bool (rapidjson::Value::*is)() const,
                        const char* expected) {
        const auto* value = json::member(values, key);
        if (value != nullptr && !(value->*is)()) {
            verdict.fail(fmt::format("{} of stream {}: \"{}\" must be {}", at, name, key, expected),
                         {label, 0, ""});
        }
    };
    bad_type("selected", &rapidjson::Value::IsBool, "a boolean");
    bad_type("selected-by-default", &rapidjson::Value::IsBool, "a boolean");
    if (const auto* inclusion = json::member(values, "inclusion");
        inclusion != nullptr &&
        (!inclusion->IsString() || !known_inclusions().contains(inclusion->GetString()))) {
        verdict.fail(fmt::format("{} of stream {}: \"inclusion\" must be available, automatic "
                                 "or unsupported",
                                 at, name),
                     {label, 0, ""});
    }
}

void check_catalog_metadata(const Inputs& inputs, Verdict& verdict) {
    const auto* entries = stream_entries(inputs, verdict);
    if (entries == nullptr) {
        return;
    }
    const auto& label = inputs.first(0).runs.front().label;
    std::size_t index = 0;
    for (const auto& entry : entries->GetArray()) {
        if (index >= inputs.catalog()->streams().size()) {
            break;
        }
        const auto& stream = inputs.catalog()->streams()[index++];
        const auto* metadata = json::member(entry, "metadata");
        auto name = "'" + stream.tap_stream_id + "'";
        verdict.judged();
        if (metadata == nullptr || !metadata->IsArray()) {
            verdict.fail(fmt::format("stream {} has no metadata (selection, keys and replication "
                                     "keys are read there)",
                                     name),
                         {label, 0, ""});
            continue;
        }
        std::set<std::string> properties(stream.properties.begin(), stream.properties.end());
        int stream_entries_seen = 0;
        for (const auto& item : metadata->GetArray()) {
            const auto* breadcrumb = json::member(item, "breadcrumb");
            const auto* values = json::member(item, "metadata");
            if (breadcrumb == nullptr || !breadcrumb->IsArray() || values == nullptr ||
                !values->IsObject()) {
                continue;  // sg.catalog_valid's finding
            }
            if (breadcrumb->Empty()) {
                ++stream_entries_seen;
                check_metadata_entry(*values, name, "the stream's metadata", label, verdict);
                for (const char* key : {"table-key-properties", "valid-replication-keys"}) {
                    const auto* list = json::member(*values, key);
                    if (list == nullptr) {
                        continue;
                    }
                    if (!list->IsArray()) {
                        verdict.fail(fmt::format("stream {}: \"{}\" must be an array", name, key),
                                     {label, 0, ""});
                        continue;
                    }
                    for (const auto& field : list->GetArray()) {
                        std::string field_name = field.IsString() ? field.GetString() : "";
                        if (!properties.contains(field_name)) {
                            verdict.fail(fmt::format("stream {}: {} names '{}', which is not a "
                                                     "top-level property of its schema",
                                                     name, key, field_name),
                                         {label, 0, ""});
                        } else if (auto inclusion = stream.inclusion.find(field_name);
                                   inclusion != stream.inclusion.end() &&
                                   inclusion->second != "automatic") {
                            verdict.advise(fmt::format("stream {}: '{}' ({}) should be "
                                                       "\"inclusion\": \"automatic\", not \"{}\"",
                                                       name, field_name, key, inclusion->second),
                                           {label, 0, ""});
                        }
                    }
                }
                const auto* method = json::member(*values, "forced-replication-method");
                if (method != nullptr && method->IsString() && method->GetStringLength() == 0) {
                    // The Meltano SDK's SQL taps write "" for "not forced".
                    verdict.advise(fmt::format("stream {}: \"forced-replication-method\" is \"\" "
                                               "(read as not forced); leave it out instead",
                                               name),
                                   {label, 0, ""});
                } else if (method != nullptr && (!method->IsString() ||
                                                 !known_methods().contains(method->GetString()))) {
                    verdict.fail(fmt::format("stream {}: \"forced-replication-method\" must be "
                                             "FULL_TABLE, INCREMENTAL or LOG_BASED",
                                             name),
                                 {label, 0, ""});
                }
                continue;
            }
            bool field = breadcrumb->Size() == 2 && (*breadcrumb)[0].IsString() &&
                         std::string_view((*breadcrumb)[0].GetString()) == "properties" &&
                         (*breadcrumb)[1].IsString();
            if (!field) {
                if (breadcrumb->Size() % 2 != 0 || (*breadcrumb)[0] != "properties") {
                    verdict.fail(
                        fmt::format("stream {}: breadcrumb {} is not [] or [\"properties\", "
                                    "FIELD, ...]",
                                    name, excerpt(json::to_json(*breadcrumb), 80)),
                        {label, 0, ""});
                }
                continue;
            }
            std::string field_name = (*breadcrumb)[1].GetString();
            if (!properties.contains(field_name)) {
                verdict.fail(fmt::format("stream {}: breadcrumb [\"properties\", \"{}\"] names no "
                                         "property of its schema",
                                         name, field_name),
                             {label, 0, ""});
            }
            check_metadata_entry(*values, name, fmt::format("field '{}'", field_name), label,
                                 verdict);
        }
        if (stream_entries_seen != 1) {
            verdict.fail(fmt::format("stream {} has {} metadata entries with the breadcrumb [], "
                                     "expected exactly one",
                                     name, stream_entries_seen),
                         {label, 0, ""});
        }
    }
}

void judge_sync_exit(const TapRun& run, Verdict& verdict) {
    verdict.judged();
    if (run.timed_out) {
        fail_with_stderr(
            verdict, run,
            fmt::format("{}: {} (timeouts.sync); conform stopped it", run.label, run.outcome()));
    } else if (!run.exited_with(0)) {
        fail_with_stderr(verdict, run,
                         fmt::format("{}: {}, expected exit code 0", run.label, run.outcome()));
    }
}

void check_sync_exit(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        // The older flag is a SHOULD (SG-CLI-4): sg.properties_flag judges how its sync ended.
        if (step->step->kind == singer::Role::properties_sync) {
            verdict.note("the --properties sync's exit is sg.properties_flag's to judge");
            continue;
        }
        for (const auto& run : step->runs) {
            judge_sync_exit(run, verdict);
        }
    }
}

void check_invalid_config(const Inputs& inputs, Verdict& verdict) {
    const auto* run = only_run(inputs, 0);
    if (run == nullptr) {
        return;
    }
    verdict.judged();
    if (!run->started || run->timed_out) {
        fail_with_stderr(verdict, *run, fmt::format("with the invalid config: {}", run->outcome()));
        return;
    }
    if (run->exited_with(0)) {
        fail_with_stderr(verdict, *run,
                         "with the invalid config the tap exited 0, expected a non-zero exit code");
    }
    if (run->record_count > 0) {
        verdict.fail(
            fmt::format("with the invalid config the tap emitted {} RECORD(s)", run->record_count),
            {run->label, 0, ""});
    }
    if (!run->exited_with(0) &&
        run->process.stderr_text.find_first_not_of(" \t\r\n") == std::string::npos) {
        verdict.advise("the tap failed without a message on stderr", {run->label, 0, ""});
    }
}

void check_secrets(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            if (!run.secrets_scanned) {
                continue;
            }
            verdict.judged();
            if (run.secret_on_stdout) {
                verdict.fail(fmt::format("{} printed a secret config value on stdout", run.label),
                             {run.label, 0, ""});
            }
            if (run.secret_on_stderr) {
                verdict.fail(fmt::format("{} printed a secret config value on stderr", run.label),
                             {run.label, 0, ""});
            }
        }
    }
}

}  // namespace

singer::Checks command_checks() {
    using singer::Need;
    using enum singer::Role;
    using engine::Count;
    return {
        {{"sg.about",
          {"SG-ABOUT-1"},
          report::Level::should,
          "--about --format=json prints the tap's name, capabilities and settings"},
         {Need(about, {}, {}, std::nullopt, Count::one)},
         "the tap does not offer --about",
         check_about},
        {{"sg.discover",
          {"SG-CLI-1"},
          report::Level::must,
          "--config --discover exits 0 and prints one JSON catalog"},
         {Need(discover, {}, {}, std::nullopt, Count::one)},
         "discovery did not run",
         check_discover},
        {{"sg.catalog_valid",
          {"SG-DISC-1"},
          report::Level::must,
          "each catalog stream has a unique tap_stream_id, a stream and an object JSON Schema"},
         {Need(discover, {}, {}, std::nullopt, Count::one)},
         "the catalog has no stream",
         check_catalog_valid},
        {{"sg.catalog_metadata",
          {"SG-DISC-2"},
          report::Level::must,
          "metadata: one stream breadcrumb, field breadcrumbs that exist, keys that exist, valid "
          "inclusion and replication methods"},
         {Need(discover, {}, {}, std::nullopt, Count::one)},
         "the catalog has no stream",
         check_catalog_metadata},
        {{"sg.sync_exit",
          {"SG-CLI-2"},
          report::Level::must,
          "every sync exits 0 within timeouts.sync"},
         {Need(sync)},
         "no sync ran",
         check_sync_exit},
        {{"sg.invalid_config",
          {"SG-CLI-3"},
          report::Level::must,
          "an invalid config fails with a non-zero exit, a message on stderr and no RECORD"},
         {Need(invalid_config, {}, {}, std::nullopt, Count::one)},
         "the test config names no invalid_config",
         check_invalid_config},
        {{"sg.secrets_not_leaked",
          {"SG-SEC-1"},
          report::Level::must,
          "no secret config value appears on stdout or stderr"},
         {Need(run, {}, {}, std::nullopt, Count::any)},
         "no secret to look for: the test config names none (secrets) and --about marks no "
         "setting secret",
         check_secrets},
    };
}

}  // namespace conform::checks::sg
