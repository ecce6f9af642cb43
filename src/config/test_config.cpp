#include "config/test_config.hpp"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <fmt/format.h>

#include <algorithm>
#include <sstream>

#include "config/acceptance.hpp"
#include "json/merge_patch.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "schema/user_document.hpp"
#include "util/error.hpp"
#include "util/files.hpp"
#include "util/text.hpp"
#include "yaml/yaml.hpp"

namespace conform::config {

namespace {

using std::chrono::milliseconds;

const schema::Schema& test_config_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("test-config.schema.json"));
    return k_schema;
}

milliseconds seconds_member(const rapidjson::Value& object, const char* name,
                            milliseconds fallback) {
    if (!object.IsObject() || !object.HasMember(name)) {
        return fallback;
    }
    return milliseconds(static_cast<long long>(object[name].GetDouble() * 1000.0));
}

std::string string_member(const rapidjson::Value& object, const char* name) {
    return object.HasMember(name) ? object[name].GetString() : "";
}

std::vector<std::string> string_list(const rapidjson::Value& array) {
    std::vector<std::string> items;
    for (const auto& item : array.GetArray()) {
        items.emplace_back(item.GetString());
    }
    return items;
}

std::map<std::string, std::string> string_map(const rapidjson::Value& object) {
    std::map<std::string, std::string> items;
    for (const auto& member : object.GetObject()) {
        items.emplace(member.name.GetString(), member.value.GetString());
    }
    return items;
}

std::filesystem::path resolve(const std::filesystem::path& base, const std::string& relative) {
    std::filesystem::path path(relative);
    return path.is_absolute() ? path : base / path;
}

// Expected records are many documents, one a line: they may take more than one input document.
constexpr std::size_t k_max_expected_records_bytes = 256 * 1024 * 1024;

// `text` of the file `path`, once its JSON syntax is known to be right: every problem is then
// reported against the file that has it, not the test config that names it.
std::string checked_json(std::string text, const std::filesystem::path& path, Holds holds) {
    constexpr unsigned k_flags = rapidjson::kParseCommentsFlag | rapidjson::kParseIterativeFlag;
    rapidjson::Document document;
    document.Parse<k_flags>(text.data(), text.size());
    if (!document.HasParseError()) {
        return text;
    }
    if (holds == Holds::data) {
        json::parse_json_text(text, path.string());  // throws, showing the line
    }
    auto position = position_of(text, document.GetErrorOffset());
    throw_input_error(
        fmt::format("{}:{}:{}: {} (the line is not shown: a connector config "
                    "holds secrets)",
                    path.string(), position.line, position.column,
                    rapidjson::GetParseError_En(document.GetParseError())));
}

std::vector<TestConfig::ExpectedRecord> read_expected_records(const std::filesystem::path& path) {
    std::vector<TestConfig::ExpectedRecord> records;
    std::istringstream lines(read_text_file(path, k_max_expected_records_bytes));
    std::string line;
    std::size_t number = 0;
    while (std::getline(lines, line)) {
        ++number;
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        auto where = fmt::format("{}:{}", path.string(), number);
        auto document = json::parse_json_text(line, where);
        if (!document.IsObject() || !document.HasMember("stream") ||
            !document["stream"].IsString() || !document.HasMember("data") ||
            !document["data"].IsObject()) {
            throw_input_error(fmt::format(
                "{}: expected {{\"stream\": NAME, \"data\": {{...}}}} on each line", where));
        }
        records.push_back(
            {document["stream"].GetString(), json::to_json(document["data"]), number});
    }
    return records;
}

void read_connector(const rapidjson::Value& connector, TestConfig& config) {
    if (connector.HasMember("command")) {
        const auto& command = connector["command"];
        config.command =
            command.IsString() ? split_command_line(command.GetString()) : string_list(command);
        if (config.command.empty() || config.command[0].empty()) {
            throw_input_error(
                fmt::format("{}: /connector/command: expected a program to run, got "
                            "an empty command",
                            config.origin.string()));
        }
        if (config.command[0].find('/') != std::string::npos) {
            config.command[0] = resolve(config.base_dir, config.command[0]).string();
        }
    } else {
        container::ImageSettings image;
        image.image = connector["image"].GetString();
        image.runtime = string_member(connector, "runtime");
        if (connector.HasMember("runtime_args")) {
            image.runtime_args = string_list(connector["runtime_args"]);
        }
        if (connector.HasMember("global_args")) {
            image.global_args = string_list(connector["global_args"]);
        }
        image.network = connector.HasMember("network") && connector["network"].GetBool();
        std::string pull = connector.HasMember("pull") ? connector["pull"].GetString() : "missing";
        image.pull = container::parse_pull_policy(pull).value_or(container::PullPolicy::missing);
        config.image = image;
    }
    if (connector.HasMember("env")) {
        config.env = string_map(connector["env"]);
    }
    if (connector.HasMember("working_dir")) {
        config.working_dir = resolve(config.base_dir, connector["working_dir"].GetString());
    }
    if (connector.HasMember("manifest")) {
        std::string as_named = connector["manifest"].GetString();
        auto path = resolve(config.base_dir, as_named);
        config.files.push_back(path);
        config.manifest = read_manifest(path, as_named);
    }
}

// "resume": {"max": N} (every checkpoint up to N) or the older {"sample": N}; both may be given.
ResumeSampling resume_sampling(const rapidjson::Value& resume) {
    ResumeSampling sampling;
    if (resume.HasMember("max")) {
        sampling.max = resume["max"].GetUint();
    }
    if (resume.HasMember("sample")) {
        sampling.sample = resume["sample"].GetUint();
    }
    return sampling;
}

void read_optional_sections(const rapidjson::Value& document, TestConfig& config) {
    auto file_text = [&config](const rapidjson::Value& value, Holds holds = Holds::secrets) {
        auto path = resolve(config.base_dir, value.GetString());
        config.files.push_back(path);
        return checked_json(read_text_file(path), path, holds);
    };
    if (document.HasMember("invalid_config")) {
        config.invalid_config_text = file_text(document["invalid_config"]);
    }
    if (document.HasMember("catalog")) {
        config.catalog_text = file_text(document["catalog"], Holds::data);
    }
    if (document.HasMember("future_state")) {
        config.future_state_origin =
            resolve(config.base_dir, document["future_state"].GetString()).string();
        config.future_state_text = file_text(document["future_state"], Holds::data);
    }
    if (document.HasMember("expected_spec")) {
        std::string as_named = document["expected_spec"].GetString();
        auto path = resolve(config.base_dir, as_named);
        config.files.push_back(path);
        config.expected_spec = read_expected_spec(path, as_named);
    }
    if (document.HasMember("extensions")) {
        config.extensions = string_list(document["extensions"]);
    }
    if (document.HasMember("volatile_fields")) {
        for (const auto& stream : document["volatile_fields"].GetObject()) {
            config.volatile_fields[stream.name.GetString()] = string_list(stream.value);
        }
    }
    if (document.HasMember("empty_streams")) {
        config.empty_streams = string_list(document["empty_streams"]);
    }
    if (document.HasMember("reemitting_streams")) {
        config.reemitting_streams = string_list(document["reemitting_streams"]);
    }
    if (document.HasMember("expected_records")) {
        const auto& expected = document["expected_records"];
        auto path = resolve(config.base_dir, expected["path"].GetString());
        config.files.push_back(path);
        config.expected_records = read_expected_records(path);
        config.expected_exact = string_member(expected, "mode") == "exact";
        config.expected_in_order = expected.HasMember("in_order") && expected["in_order"].GetBool();
        config.expected_origin = path.string();
    }
    if (document.HasMember("timeouts")) {
        const auto& timeouts = document["timeouts"];
        config.spec_timeout = seconds_member(timeouts, "spec", config.spec_timeout);
        config.check_timeout = seconds_member(timeouts, "check", config.check_timeout);
        config.discover_timeout = seconds_member(timeouts, "discover", config.discover_timeout);
        config.read_timeout = seconds_member(timeouts, "read", config.read_timeout);
    }
    config.grace = seconds_member(document, "grace_seconds", config.grace);
    if (document.HasMember("resume")) {
        config.resume = resume_sampling(document["resume"]);
    }
    if (document.HasMember("merge")) {
        const auto& merge = document["merge"];
        if (merge.HasMember("config")) {
            config.merge_config_text = file_text(merge["config"]);
        }
        if (merge.HasMember("states_are_patches")) {
            config.states_are_patches = merge["states_are_patches"].GetBool();
        }
        if (merge.HasMember("full_state_config")) {
            config.full_state_config_text = file_text(merge["full_state_config"]);
        }
    }
    if (document.HasMember("tail")) {
        const auto& tail = document["tail"];
        if (tail.HasMember("inject_command")) {
            const auto& inject = tail["inject_command"];
            config.inject_command =
                inject.IsString() ? split_command_line(inject.GetString()) : string_list(inject);
            // Resolved like connector.command: a path with a slash is relative to this file.
            if (!config.inject_command.empty() &&
                config.inject_command[0].find('/') != std::string::npos &&
                config.inject_command[0].find("${") == std::string::npos) {
                config.inject_command[0] =
                    resolve(config.base_dir, config.inject_command[0]).string();
            }
        }
        config.inject_after = seconds_member(tail, "inject_after_seconds", config.inject_after);
        config.observe = seconds_member(tail, "observe_seconds", config.observe);
        config.tail_wait = seconds_member(tail, "wait_seconds", config.tail_wait);
    }
    if (document.HasMember("accepted_changes")) {
        for (const auto& entry : document["accepted_changes"].GetArray()) {
            auto where = entry.FindMember("where");
            config.accepted_changes.push_back(
                {entry["change"].GetString(),
                 where == entry.MemberEnd() ? std::string() : where->value.GetString(),
                 entry["reason"].GetString()});
        }
    }
    if (document.HasMember("projections")) {
        for (const auto& stream : document["projections"].GetObject()) {
            Projections projections;
            for (const auto& field : stream.value.GetObject()) {
                projections.emplace_back(field.name.GetString(), field.value.GetString());
            }
            config.projections[stream.name.GetString()] = std::move(projections);
        }
    }
}

}  // namespace

bool TestConfig::claims(std::string_view extension) const {
    return std::find(extensions.begin(), extensions.end(), extension) != extensions.end();
}

namespace {

// A setting as a test config spells it and as a flag does ("" when only a test config can say it).
struct SettingWords {
    std::string_view key;
    std::string_view in_test_config;
    std::string_view flag;
};

constexpr SettingWords k_setting_words[] = {
    {"invalid_config", "\"invalid_config\"", "--invalid-config FILE"},
    {"expected_records", "\"expected_records\"", ""},
    {"merge_config", "\"merge\": {\"config\"}", ""},
    {"full_state_config", "\"merge\": {\"full_state_config\"}", ""},
    {"inject_command", "\"tail\": {\"inject_command\"}", "--inject 'COMMAND'"},
    {"projections", "\"projections\"", ""},
};

constexpr std::string_view k_claims_prefix = "claims:";

}  // namespace

std::string TestConfig::lacks(std::string_view key) const {
    if (key.starts_with(k_claims_prefix)) {
        auto extension = key.substr(k_claims_prefix.size());
        return from_flags() ? fmt::format("--extensions does not list '{}'", extension)
                            : fmt::format(
                                  "the test config does not claim the '{}' extension (its "
                                  "\"extensions\" list)",
                                  extension);
    }
    const auto* words = std::find_if(std::begin(k_setting_words), std::end(k_setting_words),
                                     [key](const SettingWords& entry) { return entry.key == key; });
    if (words == std::end(k_setting_words)) {
        return fmt::format("the test config has no \"{}\"", key);
    }
    if (!from_flags()) {
        return fmt::format("the test config has no {}", words->in_test_config);
    }
    if (words->flag.empty()) {
        return fmt::format(
            "no test config says {} (only a test config can; this run has flags only)",
            words->in_test_config);
    }
    return fmt::format("no {} was given", words->flag);
}

namespace {

// The test config `text` (named `origin`; relative paths under `base_dir`) read. `no_config`:
// why an acceptance-test-config.yml it maps gives no connector config ("": a config is required).
TestConfig load_test_config_text(std::string text, const std::filesystem::path& origin,
                                 const std::filesystem::path& base_dir,
                                 const std::string& no_config = {}) {
    schema::UserDocument file(std::move(text), origin.string(), test_config_schema(),
                              {"test config", "docs/test-config.md"});
    const auto& document = file.root();
    TestConfig config;
    config.origin = origin;
    config.base_dir = base_dir;
    config.files.push_back(origin);
    read_connector(document["connector"], config);
    if (document.HasMember("config")) {
        auto config_path = resolve(config.base_dir, document["config"].GetString());
        config.files.push_back(config_path);
        config.config_text = checked_json(read_text_file(config_path), config_path, Holds::secrets);
    } else if (no_config.empty()) {
        file.fail({{"", "required property \"config\" is missing"}});
    } else {
        config.config_text = "{}";
        config.no_config = no_config;
    }
    if (document.HasMember("known_failures")) {
        config.known_failures = resolve(config.base_dir, document["known_failures"].GetString());
        config.files.push_back(config.known_failures);
    }
    read_optional_sections(document, config);
    return config;
}

// The test config `text` read as the loader will read it, without its errors: the loader reports
// them, with the line.
rapidjson::Document parse_leniently(const std::string& text) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag>(
        text.c_str(), text.size());
    return document;
}

// The path the test config names in "acceptance_test_config", or "" (also for text that is not
// JSON).
std::string acceptance_key_of(const rapidjson::Document& own) {
    if (own.HasParseError() || !own.IsObject() || !own.HasMember("acceptance_test_config") ||
        !own["acceptance_test_config"].IsString()) {
        return {};
    }
    return own["acceptance_test_config"].GetString();
}

// Refuses a test config named .yml or .yaml that is not JSON: the JSON parser's "Invalid value"
// at 1:1 would not say that test configs are JSON, nor where Airbyte's YAML file goes.
void refuse_yaml_test_config(const rapidjson::Document& own, const std::filesystem::path& path) {
    if (yaml::is_yaml_path(path.string()) && own.HasParseError()) {
        throw_input_error(fmt::format(
            "{}: a test config is JSON (comments allowed), and this file is not: give Airbyte's "
            "acceptance-test-config.yml with --acceptance-test-config, or name it in a JSON test "
            "config's \"acceptance_test_config\" (docs/acceptance-test-config.md)",
            path.string()));
    }
}

// The acceptance-test-config's mapping with the test config's own keys over it (RFC 7396).
std::string merged_over_acceptance(rapidjson::Document& own, const std::filesystem::path& path,
                                   const AcceptanceMapping& mapping) {
    auto merged = json::parse_json_text(mapping.test_config_json, path.string());
    own.RemoveMember("acceptance_test_config");
    if (own.HasMember("connector")) {
        merged.RemoveMember("connector");  // a command replaces the image, not beside it
    }
    json::apply_merge_patch(merged, own, merged.GetAllocator());
    return json::to_json(merged);
}

// A low-code manifest carries its spec as {"spec": {"connection_specification": ...}}.
bool is_manifest(const std::filesystem::path& path) {
    auto name = path.filename().string();
    return name == "manifest.yaml" || name == "manifest.yml";
}

// The catalogs an acceptance-test-config.yml names, read as one when it names several.
void merge_acceptance_catalogs(const AcceptanceMapping& mapping, TestConfig& config) {
    if (mapping.catalogs.size() < 2) {
        return;
    }
    std::vector<std::string> texts;
    for (const auto& path : mapping.catalogs) {
        texts.push_back(checked_json(read_text_file(path), path, Holds::data));
        config.files.emplace_back(path);
    }
    config.catalog_text = merge_configured_catalogs(texts, mapping.catalogs);
}

}  // namespace

ExpectedSpec read_expected_spec(const std::filesystem::path& path, const std::string& as_named) {
    auto origin = path.string();
    auto text = read_text_file(path);
    auto document = json::parse_json_text(
        yaml::is_yaml_path(origin) ? yaml::to_json_text(text, origin) : text, origin);
    if (is_manifest(path)) {
        const auto* spec = document.IsObject() ? json::find_value(document, "/spec") : nullptr;
        const auto* connection = spec != nullptr && spec->IsObject()
                                     ? json::find_value(*spec, "/connection_specification")
                                     : nullptr;
        if (connection == nullptr) {
            throw_input_error(fmt::format(
                "{}: a low-code manifest without spec.connection_specification: nothing to "
                "compare the connector's spec with",
                origin));
        }
        return {fmt::format("{{\"connectionSpecification\":{}}}", json::to_json(*connection)),
                origin, true, as_named};
    }
    if (!document.IsObject() || !document.HasMember("connectionSpecification")) {
        throw_input_error(fmt::format(
            "{}: expected a connector specification, an object with \"connectionSpecification\" "
            "(what `spec` emits as its SPEC message's \"spec\")",
            origin));
    }
    return {json::to_json(document), origin, false, as_named};
}

TestConfig load_test_config(const std::filesystem::path& path) {
    auto text = read_text_file(path);
    auto own = parse_leniently(text);
    refuse_yaml_test_config(own, path);
    auto base_dir = std::filesystem::absolute(path).parent_path();
    auto acceptance = acceptance_key_of(own);
    if (acceptance.empty()) {
        return load_test_config_text(std::move(text), path, base_dir);
    }
    auto acceptance_path = resolve(base_dir, acceptance);
    auto mapping = read_acceptance_test_config(acceptance_path);
    bool own_catalog = own.IsObject() && own.HasMember("catalog");
    auto config = load_test_config_text(merged_over_acceptance(own, path, mapping), path, base_dir,
                                        mapping.no_config);
    if (!own_catalog) {
        merge_acceptance_catalogs(mapping, config);
    }
    config.files.push_back(acceptance_path);
    config.warnings = std::move(mapping.warnings);
    config.manifest_beside = manifest_only_manifest(acceptance_path.parent_path());
    return config;
}

TestConfig load_acceptance_test_config(const std::filesystem::path& path) {
    auto mapping = read_acceptance_test_config(path);
    auto config =
        load_test_config_text(mapping.test_config_json, path,
                              std::filesystem::absolute(path).parent_path(), mapping.no_config);
    merge_acceptance_catalogs(mapping, config);
    config.warnings = std::move(mapping.warnings);
    config.manifest_beside = manifest_only_manifest(config.base_dir);
    return config;
}

std::string read_json_file(const std::filesystem::path& path, Holds holds) {
    return checked_json(read_text_file(path), path, holds);
}

std::vector<std::string> split_command_line(std::string_view command_line) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (std::size_t i = 0; i < command_line.size(); ++i) {
        char c = command_line[i];
        if (quote != 0) {
            if (c == quote) {
                quote = 0;
            } else if (c == '\\' && quote == '"' && i + 1 < command_line.size()) {
                word += command_line[++i];
            } else {
                word += c;
            }
        } else if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == '\\' && i + 1 < command_line.size()) {
            word += command_line[++i];
            in_word = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) {
                words.push_back(std::move(word));
                word.clear();
                in_word = false;
            }
        } else {
            word += c;
            in_word = true;
        }
    }
    if (quote != 0) {
        throw Error(ErrorKind::usage,
                    fmt::format("unterminated {} quote in command line: {}", quote, command_line));
    }
    if (in_word) {
        words.push_back(std::move(word));
    }
    return words;
}

}  // namespace conform::config
