#include "meltano/test_config.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include "engine/scenarios.hpp"
#include "engine/test_config.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "schema/user_document.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

namespace conform::meltano {

namespace {

using engine::seconds_or;
using engine::strings_of;

constexpr std::string_view k_protocol = "meltano-extension";

const schema::Schema& test_config_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("meltano-test-config.schema.json"));
    return k_schema;
}

std::string string_or(const rapidjson::Value& object, const char* name, std::string fallback) {
    return object.HasMember(name) ? std::string(object[name].GetString()) : std::move(fallback);
}

bool bool_or(const rapidjson::Value& object, const char* name, bool fallback) {
    return object.HasMember(name) ? object[name].GetBool() : fallback;
}

std::optional<container::ImageSettings> image_of(const rapidjson::Value& extension) {
    if (!extension.HasMember("image")) {
        return std::nullopt;
    }
    container::ImageSettings image;
    image.image = extension["image"].GetString();
    image.runtime = string_or(extension, "runtime", "");
    image.runtime_args = strings_of(extension, "runtime_args");
    image.global_args = strings_of(extension, "global_args");
    image.network = bool_or(extension, "network", false);
    if (extension.HasMember("pull")) {
        image.pull = *container::parse_pull_policy(extension["pull"].GetString());
    }
    return image;
}

// Reads `extension`; problems the schema cannot express go to `problems`.
void read_extension(const rapidjson::Value& extension, TestConfig& config,
                    std::vector<schema::Problem>& problems) {
    config.name = extension["name"].GetString();
    config.extension_executable = string_or(extension, "executable", config.name + "_extension");
    if (extension.HasMember("invoker") && extension["invoker"].IsString()) {
        config.invoker = extension["invoker"].GetString();
    } else if (bool_or(extension, "invoker", false)) {
        config.invoker = config.name + "_invoker";
    }
    config.wrapped = string_or(extension, "wrapped", "");
    for (const auto& dir : strings_of(extension, "path")) {
        config.path.push_back(resolve_under(config.base_dir, dir));
    }
    if (extension.HasMember("env")) {
        for (const auto& member : extension["env"].GetObject()) {
            config.env[member.name.GetString()] = member.value.GetString();
        }
    }
    config.secret_env = strings_of(extension, "secret_env");
    config.image = image_of(extension);
    if (config.image && !config.path.empty()) {
        problems.emplace_back("/extension/path",
                              "not used with an image (its executables are on the image's PATH)");
    }
}

void read_commands(const rapidjson::Value& document, TestConfig& config,
                   std::vector<schema::Problem>& problems) {
    if (!document.HasMember("commands")) {
        return;
    }
    std::size_t index = 0;
    for (const auto& item : document["commands"].GetArray()) {
        ConfiguredCommand command;
        command.name = item["name"].GetString();
        auto executable = string_or(item, "executable", "extension");
        if (executable == "extension") {
            command.executable = config.extension_executable;
        } else if (executable == "invoker") {
            if (!config.invoker) {
                problems.emplace_back(fmt::format("/commands/{}/executable", index),
                                      "\"invoker\" needs \"extension\": {\"invoker\": true}");
            }
            command.executable = config.invoker.value_or("");
        } else {
            command.executable = executable;
        }
        command.args = strings_of(item, "args");
        if (item.HasMember("env")) {
            for (const auto& member : item["env"].GetObject()) {
                command.env[member.name.GetString()] = member.value.GetString();
            }
        }
        command.exit_code = item.HasMember("exit") ? item["exit"].GetInt() : 0;
        command.result_on_stdout = bool_or(item, "result_on_stdout", false);
        config.commands.push_back(std::move(command));
        ++index;
    }
}

// Reads what only an extension's test config says; problems the schema cannot express go to
// `problems`.
void read_keys(const rapidjson::Value& document, TestConfig& config,
               std::vector<schema::Problem>& problems) {
    read_extension(document["extension"], config, problems);
    read_commands(document, config, problems);
    if (document.HasMember("logging")) {
        const auto& logging = document["logging"];
        config.log_levels = bool_or(logging, "levels", config.log_levels);
        config.log_timestamps = bool_or(logging, "timestamps", config.log_timestamps);
        config.log_json = bool_or(logging, "json", config.log_json);
    }
    if (document.HasMember("timeouts")) {
        config.command_timeout =
            seconds_or(document["timeouts"], "command", config.command_timeout);
        config.stdin_timeout = seconds_or(document["timeouts"], "stdin", config.stdin_timeout);
    }
}

}  // namespace

bool is_meltano_test_config(const std::filesystem::path& path) {
    return engine::declares_protocol(path, k_protocol);
}

TestConfig load_test_config(const std::filesystem::path& path) {
    return engine::load_test_config<TestConfig>(path, test_config_schema(),
                                                {"test config", "docs/meltano.md"}, read_keys);
}

}  // namespace conform::meltano
