#include "meltano/extension_config.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <fstream>
#include <set>

#include "json/parse.hpp"
#include "util/error.hpp"

namespace conform::meltano {

namespace {

constexpr std::string_view k_protocol = "meltano-extension";

class Loader {
public:
    explicit Loader(std::filesystem::path origin) : m_origin(std::move(origin)) {}

    [[noreturn]] void fail(std::string_view field, std::string_view message) const {
        throw_input_error(fmt::format("{}: {}: {}", m_origin.string(), field, message));
    }

    void check_keys(const rapidjson::Value& object, std::string_view where,
                    const std::set<std::string, std::less<>>& known) const {
        for (const auto& member : object.GetObject()) {
            std::string_view key(member.name.GetString(), member.name.GetStringLength());
            if (!known.contains(key)) {
                fail(fmt::format("{}{}", where, key), "unknown key (see docs/meltano.md)");
            }
        }
    }

    std::string string_of(const rapidjson::Value& value, std::string_view field) const {
        if (!value.IsString()) {
            fail(field, "expected a string");
        }
        return {value.GetString(), value.GetStringLength()};
    }

    std::vector<std::string> strings_of(const rapidjson::Value& value,
                                        std::string_view field) const {
        if (!value.IsArray()) {
            fail(field, "expected an array of strings");
        }
        std::vector<std::string> out;
        for (const auto& item : value.GetArray()) {
            out.push_back(string_of(item, field));
        }
        return out;
    }

    bool bool_of(const rapidjson::Value& value, std::string_view field) const {
        if (!value.IsBool()) {
            fail(field, "expected true or false");
        }
        return value.GetBool();
    }

    std::chrono::milliseconds seconds_of(const rapidjson::Value& value,
                                         std::string_view field) const {
        if (!value.IsNumber() || value.GetDouble() <= 0 || value.GetDouble() > 86'400) {
            fail(field, "expected a number of seconds above 0 (at most 86400)");
        }
        return std::chrono::milliseconds(static_cast<std::int64_t>(value.GetDouble() * 1000));
    }

private:
    std::filesystem::path m_origin;
};

std::filesystem::path resolve(const std::filesystem::path& base, const std::string& path) {
    std::filesystem::path p(path);
    return p.is_absolute() ? p : (base / p).lexically_normal();
}

}  // namespace

bool is_extension_test_config(const std::filesystem::path& path) {
    if (path.empty()) {
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return false;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    rapidjson::Document document;
    document.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag>(
        text.c_str(), text.size());
    if (document.HasParseError() || !document.IsObject()) {
        return false;
    }
    auto it = document.FindMember("protocol");
    return it != document.MemberEnd() && it->value.IsString() &&
           std::string_view(it->value.GetString()) == k_protocol;
}

ExtensionConfig load_extension_config(const std::filesystem::path& path) {
    auto document = json::parse_json_file(path);
    Loader load(path);
    ExtensionConfig config;
    config.origin = path;
    config.base_dir = std::filesystem::absolute(path).parent_path();
    if (!document.IsObject()) {
        load.fail("(top level)", "expected an object");
    }
    load.check_keys(document, "",
                    {"$schema", "protocol", "extension", "commands", "logging", "timeouts",
                     "grace_seconds", "description"});
    if (!document.HasMember("protocol") ||
        load.string_of(document["protocol"], "protocol") != k_protocol) {
        load.fail("protocol", fmt::format("expected \"{}\"", k_protocol));
    }
    if (!document.HasMember("extension") || !document["extension"].IsObject()) {
        load.fail("extension", "required: an object naming the extension");
    }
    const auto& extension = document["extension"];
    load.check_keys(extension, "extension.",
                    {"name", "invoker", "wrapped", "path", "env", "secret_env", "image", "runtime",
                     "runtime_args", "global_args", "network", "pull"});
    if (!extension.HasMember("name")) {
        load.fail("extension.name", "required: the extension's name (NAME_extension)");
    }
    config.name = load.string_of(extension["name"], "extension.name");
    if (config.name.empty() || config.name.find_first_of("/ \t\n") != std::string::npos) {
        load.fail("extension.name", "expected a plain name such as \"airflow\"");
    }
    config.extension_executable = config.name + "_extension";
    if (extension.HasMember("invoker") && load.bool_of(extension["invoker"], "extension.invoker")) {
        config.invoker = config.name + "_invoker";
    }
    if (extension.HasMember("wrapped")) {
        config.wrapped = load.string_of(extension["wrapped"], "extension.wrapped");
        if (config.wrapped.empty() || config.wrapped.find('/') != std::string::npos) {
            load.fail("extension.wrapped", "expected a program name looked up on PATH");
        }
    }
    if (extension.HasMember("path")) {
        for (const auto& dir : load.strings_of(extension["path"], "extension.path")) {
            config.path.push_back(resolve(config.base_dir, dir));
        }
    }
    if (extension.HasMember("env")) {
        if (!extension["env"].IsObject()) {
            load.fail("extension.env", "expected an object of strings");
        }
        for (const auto& member : extension["env"].GetObject()) {
            config.env[member.name.GetString()] = load.string_of(
                member.value, fmt::format("extension.env.{}", member.name.GetString()));
        }
    }
    if (extension.HasMember("secret_env")) {
        config.secret_env = load.strings_of(extension["secret_env"], "extension.secret_env");
    }
    if (extension.HasMember("image")) {
        container::ImageSettings image;
        image.image = load.string_of(extension["image"], "extension.image");
        if (extension.HasMember("runtime")) {
            image.runtime = load.string_of(extension["runtime"], "extension.runtime");
        }
        if (extension.HasMember("runtime_args")) {
            image.runtime_args =
                load.strings_of(extension["runtime_args"], "extension.runtime_args");
        }
        if (extension.HasMember("global_args")) {
            image.global_args = load.strings_of(extension["global_args"], "extension.global_args");
        }
        if (extension.HasMember("network")) {
            image.network = load.bool_of(extension["network"], "extension.network");
        }
        if (extension.HasMember("pull")) {
            auto policy =
                container::parse_pull_policy(load.string_of(extension["pull"], "extension.pull"));
            if (!policy) {
                load.fail("extension.pull", "expected \"never\", \"missing\" or \"always\"");
            }
            image.pull = *policy;
        }
        config.image = image;
        if (!config.path.empty()) {
            load.fail("extension.path",
                      "not used with an image (its executables are on the image's PATH)");
        }
    }
    if (document.HasMember("commands")) {
        if (!document["commands"].IsArray()) {
            load.fail("commands", "expected an array of commands");
        }
        std::size_t index = 0;
        for (const auto& item : document["commands"].GetArray()) {
            std::string where = fmt::format("commands[{}]", index++);
            if (!item.IsObject()) {
                load.fail(where,
                          "expected an object {\"name\", \"args\", \"executable\", \"exit\"}");
            }
            load.check_keys(item, where + ".", {"name", "args", "executable", "exit"});
            ConfiguredCommand command;
            if (!item.HasMember("name")) {
                load.fail(where + ".name", "required");
            }
            command.name = load.string_of(item["name"], where + ".name");
            std::string executable = "extension";
            if (item.HasMember("executable")) {
                executable = load.string_of(item["executable"], where + ".executable");
            }
            if (executable == "extension") {
                command.executable = config.extension_executable;
            } else if (executable == "invoker") {
                if (!config.invoker) {
                    load.fail(where + ".executable",
                              "\"invoker\" needs \"extension.invoker\": true");
                }
                command.executable = *config.invoker;
            } else {
                command.executable = executable;
            }
            if (item.HasMember("args")) {
                command.args = load.strings_of(item["args"], where + ".args");
            }
            if (item.HasMember("exit")) {
                if (!item["exit"].IsInt() || item["exit"].GetInt() < 0 ||
                    item["exit"].GetInt() > 255) {
                    load.fail(where + ".exit", "expected an exit code from 0 to 255");
                }
                command.exit_code = item["exit"].GetInt();
            }
            config.commands.push_back(std::move(command));
        }
    }
    if (document.HasMember("logging")) {
        const auto& logging = document["logging"];
        if (!logging.IsObject()) {
            load.fail("logging", "expected an object");
        }
        load.check_keys(logging, "logging.", {"levels", "timestamps", "json"});
        if (logging.HasMember("levels")) {
            config.log_levels = load.bool_of(logging["levels"], "logging.levels");
        }
        if (logging.HasMember("timestamps")) {
            config.log_timestamps = load.bool_of(logging["timestamps"], "logging.timestamps");
        }
        if (logging.HasMember("json")) {
            config.log_json = load.bool_of(logging["json"], "logging.json");
        }
    }
    if (document.HasMember("timeouts")) {
        const auto& timeouts = document["timeouts"];
        if (!timeouts.IsObject()) {
            load.fail("timeouts", "expected an object");
        }
        load.check_keys(timeouts, "timeouts.", {"command", "stdin"});
        if (timeouts.HasMember("command")) {
            config.command_timeout = load.seconds_of(timeouts["command"], "timeouts.command");
        }
        if (timeouts.HasMember("stdin")) {
            config.stdin_timeout = load.seconds_of(timeouts["stdin"], "timeouts.stdin");
        }
    }
    if (document.HasMember("grace_seconds")) {
        config.grace = load.seconds_of(document["grace_seconds"], "grace_seconds");
    }
    return config;
}

}  // namespace conform::meltano
