#include "singer/test_config.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <fstream>

#include "engine/scenarios.hpp"
#include "engine/test_config.hpp"
#include "json/parse.hpp"
#include "resources/resources.hpp"
#include "schema/schema.hpp"
#include "schema/user_document.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

namespace conform::singer {

namespace {

using engine::seconds_or;
using engine::strings_of;

constexpr std::string_view k_protocol = "singer";

const schema::Schema& test_config_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("singer-test-config.schema.json"));
    return k_schema;
}

// The text of the JSON file `path` names, which must hold an object (a tap's config is one).
std::optional<std::string> json_file(const rapidjson::Value& document, const char* name,
                                     const std::filesystem::path& base,
                                     std::vector<schema::Problem>& problems) {
    if (!document.HasMember(name)) {
        return std::nullopt;
    }
    auto path = resolve_under(base, document[name].GetString());
    try {
        auto text = read_text_file(path);
        auto parsed = json::parse_json_text(text, path.string());
        if (!parsed.IsObject()) {
            problems.emplace_back(fmt::format("/{}", name),
                                  fmt::format("{} must hold a JSON object", path.string()));
        }
        return text;
    } catch (const Error& error) {
        problems.emplace_back(fmt::format("/{}", name), error.what());
        return std::nullopt;
    }
}

void read_tap(const rapidjson::Value& tap, TestConfig& config) {
    config.command = strings_of(tap, "command");
    if (tap.HasMember("env")) {
        for (const auto& member : tap["env"].GetObject()) {
            config.env[member.name.GetString()] = member.value.GetString();
        }
    }
    config.working_dir = tap.HasMember("working_dir")
                             ? resolve_under(config.base_dir, tap["working_dir"].GetString())
                             : config.base_dir;
    if (tap.HasMember("image")) {
        container::ImageSettings image;
        image.image = tap["image"].GetString();
        image.runtime = tap.HasMember("runtime") ? tap["runtime"].GetString() : "";
        image.runtime_args = strings_of(tap, "runtime_args");
        image.global_args = strings_of(tap, "global_args");
        image.network = tap.HasMember("network") && tap["network"].GetBool();
        if (tap.HasMember("pull")) {
            image.pull = *container::parse_pull_policy(tap["pull"].GetString());
        }
        image.env = config.env;
        config.image = std::move(image);
    }
}

// Reads what only a tap's test config says; problems the schema cannot express go to `problems`.
void read_keys(const rapidjson::Value& document, TestConfig& config,
               std::vector<schema::Problem>& problems) {
    read_tap(document["tap"], config);
    config.config_text = json_file(document, "config", config.base_dir, problems).value_or("{}");
    config.invalid_config_text = json_file(document, "invalid_config", config.base_dir, problems);
    config.batch_config_text = json_file(document, "batch_config", config.base_dir, problems);
    config.secret_pointers = strings_of(document, "secrets");
    config.streams = strings_of(document, "streams");
    config.empty_streams = strings_of(document, "empty_streams");
    if (document.HasMember("replication_keys")) {
        for (const auto& entry : document["replication_keys"].GetObject()) {
            config.replication_keys.emplace(entry.name.GetString(), entry.value.GetString());
        }
    }
    config.log_based = strings_of(document, "log_based");
    for (const auto& stream : config.log_based) {
        if (config.replication_keys.contains(stream)) {
            problems.emplace_back("/log_based",
                                  fmt::format("'{}' is also in replication_keys: a stream is "
                                              "selected either LOG_BASED or INCREMENTAL",
                                              stream));
        }
    }
    if (document.HasMember("about")) {
        config.about = document["about"].GetBool();
    }
    auto flag = [&document](const char* name, bool fallback) {
        return document.HasMember(name) ? document[name].GetBool() : fallback;
    };
    config.properties = flag("properties", false);
    config.activate_version = flag("activate_version", false);
    config.currently_syncing = flag("currently_syncing", true);
    if (document.HasMember("start_date")) {
        const auto& start = document["start_date"];
        if (start.HasMember("key")) {
            config.start_date_key = start["key"].GetString();
        }
        if (start.HasMember("later")) {
            config.later_start_date = start["later"].GetString();
        }
    }
    if (document.HasMember("resume") && document["resume"].HasMember("max_states")) {
        config.max_resumed_states =
            static_cast<std::size_t>(document["resume"]["max_states"].GetInt());
    }
    if (document.HasMember("timeouts")) {
        const auto& timeouts = document["timeouts"];
        config.about_timeout = seconds_or(timeouts, "about", config.about_timeout);
        config.discover_timeout = seconds_or(timeouts, "discover", config.discover_timeout);
        config.sync_timeout = seconds_or(timeouts, "sync", config.sync_timeout);
    }
}

}  // namespace

bool is_singer_test_config(const std::filesystem::path& path) {
    return engine::declares_protocol(path, k_protocol);
}

TestConfig load_test_config(const std::filesystem::path& path) {
    return engine::load_test_config<TestConfig>(
        path, test_config_schema(), {"test config", "singer-test-config.schema.json"}, read_keys);
}

}  // namespace conform::singer
