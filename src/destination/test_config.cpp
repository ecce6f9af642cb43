#include "destination/test_config.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include "config/acceptance.hpp"
#include "config/test_config.hpp"
#include "engine/scenarios.hpp"
#include "engine/test_config.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "schema/user_document.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

namespace conform::destination {

namespace {

using engine::seconds_or;

constexpr std::string_view k_protocol = "airbyte-destination";

const schema::Schema& test_config_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("destination-test-config.schema.json"));
    return k_schema;
}

std::vector<std::string> strings_of(const rapidjson::Value& array) {
    std::vector<std::string> out;
    for (const auto& item : array.GetArray()) {
        out.emplace_back(item.GetString());
    }
    return out;
}

std::map<std::string, std::string> string_map(const rapidjson::Value& object) {
    std::map<std::string, std::string> out;
    for (const auto& member : object.GetObject()) {
        out.emplace(member.name.GetString(), member.value.GetString());
    }
    return out;
}

// A command given as one string (split as a shell would, without expansion) or as argv.
std::vector<std::string> command_of(const rapidjson::Value& value) {
    return value.IsString() ? config::split_command_line(value.GetString()) : strings_of(value);
}

Handling handling_named(std::string_view name) {
    if (name == "keep") {
        return Handling::keep;
    }
    return name == "drop" ? Handling::drop : Handling::error;
}

void read_destination(const rapidjson::Value& destination, TestConfig& config,
                      std::vector<schema::Problem>& problems) {
    if (destination.HasMember("command")) {
        config.command = command_of(destination["command"]);
        if (config.command.empty() || config.command.front().empty()) {
            problems.emplace_back("/destination/command", "a program to run");
        } else if (config.command.front().find('/') != std::string::npos) {
            config.command.front() =
                resolve_under(config.base_dir, config.command.front()).string();
        }
    } else {
        container::ImageSettings image;
        image.image = destination["image"].GetString();
        if (destination.HasMember("runtime")) {
            image.runtime = destination["runtime"].GetString();
        }
        if (destination.HasMember("runtime_args")) {
            image.runtime_args = strings_of(destination["runtime_args"]);
        }
        if (destination.HasMember("global_args")) {
            image.global_args = strings_of(destination["global_args"]);
        }
        image.network = destination.HasMember("network") && destination["network"].GetBool();
        if (destination.HasMember("pull")) {
            image.pull = *container::parse_pull_policy(destination["pull"].GetString());
        }
        config.image = std::move(image);
    }
    if (destination.HasMember("env")) {
        config.env = string_map(destination["env"]);
    }
    if (destination.HasMember("working_dir")) {
        config.working_dir = resolve_under(config.base_dir, destination["working_dir"].GetString());
    }
}

void read_input(const rapidjson::Value& input, TestConfig& config) {
    auto& settings = config.input;
    if (input.HasMember("records_per_stream")) {
        settings.records_per_stream = input["records_per_stream"].GetUint();
    }
    if (input.HasMember("state_every")) {
        settings.state_every = input["state_every"].GetUint();
    }
    if (input.HasMember("state_type")) {
        settings.state_type = input["state_type"].GetString();
    }
    if (input.HasMember("stream_status")) {
        settings.stream_status = input["stream_status"].GetBool();
    }
    if (input.HasMember("recorded")) {
        auto path = resolve_under(config.base_dir, input["recorded"].GetString());
        settings.recorded_text = read_text_file(path);
        settings.recorded_origin = path.string();
    }
    if (input.HasMember("recorded_second_sync")) {
        auto path = resolve_under(config.base_dir, input["recorded_second_sync"].GetString());
        settings.recorded_second_text = read_text_file(path);
        settings.recorded_second_origin = path.string();
    }
}

void read_behaviour(const rapidjson::Value& document, TestConfig& config) {
    if (document.HasMember("write") && document["write"].HasMember("args")) {
        config.write_args = strings_of(document["write"]["args"]);
    }
    if (document.HasMember("verify")) {
        const auto& verify = document["verify"];
        config.verify_command = command_of(verify["command"]);
        if (!config.verify_command.empty() &&
            config.verify_command.front().find('/') != std::string::npos &&
            config.verify_command.front().find("${") == std::string::npos) {
            config.verify_command.front() =
                resolve_under(config.base_dir, config.verify_command.front()).string();
        }
        if (verify.HasMember("env")) {
            config.verify_env = string_map(verify["env"]);
        }
    }
    if (document.HasMember("not_served")) {
        for (const auto& member : document["not_served"].GetObject()) {
            config.not_served.emplace(member.name.GetString(), member.value.GetString());
        }
    }
    if (document.HasMember("refreshes")) {
        config.refreshes = document["refreshes"].GetBool();
    }
    if (document.HasMember("invalid_records")) {
        const auto& invalid = document["invalid_records"];
        if (invalid.HasMember("unknown_stream")) {
            config.unknown_stream = handling_named(invalid["unknown_stream"].GetString());
        }
        if (invalid.HasMember("schema_violation")) {
            config.schema_violation = handling_named(invalid["schema_violation"].GetString());
        }
    }
    if (document.HasMember("kill")) {
        const auto& kill = document["kill"];
        if (kill.HasMember("after_echo")) {
            config.kill_after_echo = kill["after_echo"].GetUint();
        }
        config.end_input_after =
            seconds_or(kill, "end_input_after_seconds", config.end_input_after);
    }
    if (document.HasMember("timeouts")) {
        const auto& timeouts = document["timeouts"];
        config.spec_timeout = seconds_or(timeouts, "spec", config.spec_timeout);
        config.check_timeout = seconds_or(timeouts, "check", config.check_timeout);
        config.write_timeout = seconds_or(timeouts, "write", config.write_timeout);
        config.verify_timeout = seconds_or(timeouts, "verify", config.verify_timeout);
    }
}

// Reads what only a destination's test config says, with the files it names; problems the schema
// cannot express go to `problems`.
void read_keys(const rapidjson::Value& document, TestConfig& config,
               std::vector<schema::Problem>& problems) {
    bool mapped = !config.acceptance_test_config.empty();
    for (const char* required : {"config", "catalog"}) {
        if (!mapped && !document.HasMember(required)) {
            problems.emplace_back("", fmt::format("required property \"{}\" is missing", required));
        }
    }
    if (!problems.empty()) {
        return;  // the files named are not read
    }
    read_destination(document["destination"], config, problems);
    if (document.HasMember("config")) {
        config.config_text =
            read_text_file(resolve_under(config.base_dir, document["config"].GetString()));
    } else {
        config.config_text = "{}";
        config.no_config = fmt::format(
            "{} gives no destination config (a config_path of its spec or connection tests); "
            "give one with --config FILE",
            config.acceptance_test_config.string());
    }
    if (document.HasMember("invalid_config")) {
        config.invalid_config_text =
            read_text_file(resolve_under(config.base_dir, document["invalid_config"].GetString()));
    }
    if (document.HasMember("catalog")) {
        auto catalog = resolve_under(config.base_dir, document["catalog"].GetString());
        config.catalog_text = read_text_file(catalog);
        config.catalog_origin = catalog.string();
    } else {
        config.no_catalog = fmt::format(
            "{} tests a destination's spec and check only: nothing to write without a configured "
            "catalog (give one with --catalog FILE, or a destination test config: "
            "docs/destinations.md)",
            config.acceptance_test_config.string());
    }
    if (document.HasMember("expected_spec")) {
        std::string as_named = document["expected_spec"].GetString();
        config.expected_spec =
            config::read_expected_spec(resolve_under(config.base_dir, as_named), as_named);
    }
    if (document.HasMember("input")) {
        read_input(document["input"], config);
    }
    read_behaviour(document, config);
}

}  // namespace

std::string_view to_string(Handling handling) {
    switch (handling) {
        case Handling::keep:
            return "keep";
        case Handling::drop:
            return "drop";
        case Handling::error:
            return "error";
    }
    return "?";
}

bool is_destination_test_config(const std::filesystem::path& path) {
    return engine::declares_protocol(path, k_protocol);
}

TestConfig load_test_config(const std::filesystem::path& path) {
    return engine::load_test_config<TestConfig>(
        path, test_config_schema(),
        {"destination test config", "destination-test-config.schema.json"}, read_keys);
}

bool is_destination_acceptance_test_config(const std::filesystem::path& path) {
    return config::read_acceptance_test_config(path).destination;
}

TestConfig load_acceptance_test_config(const std::filesystem::path& path) {
    auto mapping = config::read_acceptance_test_config(path);
    TestConfig config;
    config.origin = path;
    config.base_dir = std::filesystem::absolute(path).parent_path();
    config.acceptance_test_config = path;
    config.warnings = std::move(mapping.warnings);
    return engine::read_test_config(
        std::move(mapping.test_config_json), std::move(config), test_config_schema(),
        {"destination test config", "destination-test-config.schema.json"}, read_keys);
}

}  // namespace conform::destination
