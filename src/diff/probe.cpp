#include "diff/probe.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <set>

#include "container/launcher.hpp"
#include "json/bounded_parse.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "process/process.hpp"
#include "process/workdir.hpp"

namespace conform::diff {

namespace {

class LineCollector : public process::Observer {
public:
    explicit LineCollector(ReadCollector* records) : m_records(records) {}

    process::Decision on_stdout_line(std::string_view line, std::uint64_t /*line_number*/,
                                     bool /*truncated*/) override {
        if (m_records != nullptr) {
            m_records->add_line(line);
        } else {
            m_lines.emplace_back(line);
        }
        return process::Decision::keep_going;
    }

    // The first message of `type`, its member `name`, as canonical JSON.
    std::optional<std::string> first(const char* type, const char* name) const {
        for (const auto& line : m_lines) {
            rapidjson::Document message;
            if (!json::parse_bounded(message, line).failed() && message.IsObject() &&
                message.HasMember("type") && message["type"] == type && message.HasMember(name) &&
                message[name].IsObject()) {
                return json::to_canonical_json(message[name]);
            }
        }
        return std::nullopt;
    }

private:
    ReadCollector* m_records;
    std::vector<std::string> m_lines;
};

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
        text.replace(at, from.size(), to);
    }
    return text;
}

std::set<std::string> stream_names(const rapidjson::Value& catalog) {
    std::set<std::string> names;
    if (catalog.IsObject() && catalog.HasMember("streams") && catalog["streams"].IsArray()) {
        for (const auto& stream : catalog["streams"].GetArray()) {
            if (stream.IsObject() && stream.HasMember("name") && stream["name"].IsString()) {
                names.insert(stream["name"].GetString());
            }
        }
    }
    return names;
}

const rapidjson::Value* discovered_stream(const rapidjson::Document& discovered,
                                          const std::string& name) {
    for (const auto& stream : discovered["streams"].GetArray()) {
        if (stream.IsObject() && stream.HasMember("name") && stream["name"].IsString() &&
            name == stream["name"].GetString()) {
            return &stream;
        }
    }
    return nullptr;
}

bool supports(const rapidjson::Value& stream, std::string_view mode) {
    if (!stream.HasMember("supported_sync_modes") || !stream["supported_sync_modes"].IsArray()) {
        return false;
    }
    for (const auto& item : stream["supported_sync_modes"].GetArray()) {
        if (item.IsString() && mode == item.GetString()) {
            return true;
        }
    }
    return false;
}

bool has_default_cursor(const rapidjson::Value& stream) {
    auto cursor = stream.FindMember("default_cursor_field");
    return cursor != stream.MemberEnd() && cursor->value.IsArray() && !cursor->value.Empty();
}

bool source_defined_cursor(const rapidjson::Value& stream) {
    auto flag = stream.FindMember("source_defined_cursor");
    return flag != stream.MemberEnd() && flag->value.IsBool() && flag->value.GetBool();
}

enum class SyncChoice { full_refresh, incremental_where_supported };

// A configured entry for `stream`, appended: with incremental_where_supported, incremental on its
// source-defined or default cursor when it supports incremental; else full_refresh.
rapidjson::Value configured_entry(const rapidjson::Value& stream, SyncChoice choice,
                                  rapidjson::Document::AllocatorType& allocator) {
    rapidjson::Value entry(rapidjson::kObjectType);
    entry.AddMember("stream", rapidjson::Value(stream, allocator), allocator);
    bool incremental = choice == SyncChoice::incremental_where_supported &&
                       supports(stream, "incremental") &&
                       (source_defined_cursor(stream) || has_default_cursor(stream));
    entry.AddMember("sync_mode", rapidjson::StringRef(incremental ? "incremental" : "full_refresh"),
                    allocator);
    if (incremental && has_default_cursor(stream)) {
        entry.AddMember("cursor_field", rapidjson::Value(stream["default_cursor_field"], allocator),
                        allocator);
    }
    entry.AddMember("destination_sync_mode", "append", allocator);
    return entry;
}

// Every discovered stream configured as `choice` says (streams that are not objects only in full
// refresh, where they are passed on as discovered).
std::string configured_catalog(const rapidjson::Document& discovered, SyncChoice choice) {
    rapidjson::Document configured(rapidjson::kObjectType);
    auto& allocator = configured.GetAllocator();
    rapidjson::Value streams(rapidjson::kArrayType);
    for (const auto& stream : discovered["streams"].GetArray()) {
        if (choice == SyncChoice::full_refresh || stream.IsObject()) {
            streams.PushBack(configured_entry(stream, choice, allocator), allocator);
        }
    }
    configured.AddMember("streams", streams, allocator);
    return json::to_canonical_json(configured);
}

// A renamed stream's entry, taken over by the new stream: the user's choices stay, the stream
// object is the new one (and full_refresh when it lost the configured sync mode).
void rename_entry(rapidjson::Value& entry, const rapidjson::Value& stream,
                  rapidjson::Document::AllocatorType& allocator) {
    entry["stream"].CopyFrom(stream, allocator);
    auto mode = entry.FindMember("sync_mode");
    if (mode != entry.MemberEnd() && mode->value.IsString() &&
        !supports(stream, mode->value.GetString())) {
        mode->value.SetString("full_refresh");
        entry.RemoveMember("cursor_field");
    }
}

// The test config's catalog without the streams this version does not discover: a removed
// stream is reported by the catalog diff, and asking for it would only fail the whole read.
std::string restricted_catalog(const std::string& configured_text,
                               const rapidjson::Document& discovered,
                               const std::vector<StreamRename>& renames) {
    auto configured = json::parse_json_text(configured_text, "the test config's catalog");
    auto known = stream_names(discovered);
    if (!configured.IsObject() || !configured.HasMember("streams") ||
        !configured["streams"].IsArray()) {
        return configured_text;
    }
    auto& streams = configured["streams"];
    for (auto entry = streams.Begin(); entry != streams.End();) {
        bool has_name = entry->IsObject() && entry->HasMember("stream") &&
                        (*entry)["stream"].IsObject() && (*entry)["stream"].HasMember("name") &&
                        (*entry)["stream"]["name"].IsString();
        std::string name = has_name ? (*entry)["stream"]["name"].GetString() : "";
        for (const auto& rename : renames) {
            const auto* stream =
                rename.from == name ? discovered_stream(discovered, rename.to) : nullptr;
            if (stream != nullptr) {
                rename_entry(*entry, *stream, configured.GetAllocator());
                name = rename.to;
            }
        }
        if (has_name && known.count(name) == 0) {
            entry = streams.Erase(entry);
        } else {
            ++entry;
        }
    }
    return json::to_canonical_json(configured);
}

std::string last_line(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    auto newline = text.rfind('\n');
    return std::string(newline == std::string_view::npos ? text : text.substr(newline + 1));
}

}  // namespace

struct VersionProbe::Impl {
    const config::TestConfig& config;
    process::PrivateDir inputs;
    process::PrivateDir scratch;
    std::unique_ptr<container::Launcher> launcher;
    std::size_t calls = 0;

    explicit Impl(const config::TestConfig& test_config) : config(test_config) {
        if (config.image) {
            auto image = *config.image;
            image.env.insert(config.env.begin(), config.env.end());
            image.shared_dirs.push_back(scratch.path());
            launcher = container::make_image_launcher(std::move(image));
        } else {
            launcher =
                container::make_native_launcher(config.command, config.env, config.working_dir);
        }
    }

    process::RunResult run(const std::string& command, std::chrono::milliseconds timeout,
                           const std::vector<std::pair<std::string, std::string>>& files,
                           process::Observer& observer) {
        container::Call call;
        call.args = {command};
        call.timeout = timeout;
        call.grace = config.grace;
        ++calls;
        for (const auto& [flag, content] : files) {
            auto name = fmt::format("{}-{}.json", calls, flag.substr(2));
            call.file_args.emplace_back(flag, inputs.write_file(name, content));
        }
        return process::run(launcher->prepare(call), observer);
    }

    std::string config_text() const {
        return config.for_connector(
            replace_all(config.config_text, "${CONFORM_SCRATCH}", scratch.path().string()));
    }

    // The SPEC message's "spec": of a manifest-only connector its manifest's spec section, since
    // its runner's `spec` prints the runner's own; otherwise what spec emits.
    std::optional<std::string> spec() {
        if (config.manifest) {
            auto message = json::parse_json_text(config.manifest->spec_message, "spec");
            return json::to_canonical_json(message["spec"]);
        }
        LineCollector spec_lines(nullptr);
        run("spec", config.spec_timeout, {}, spec_lines);
        return spec_lines.first("SPEC", "spec");
    }

    ReadCapture read(const std::string& catalog_json, const std::string* state_text,
                     std::string& failure) {
        ReadCollector records(config.volatile_fields);
        LineCollector lines(&records);
        std::vector<std::pair<std::string, std::string>> files = {{"--config", config_text()},
                                                                  {"--catalog", catalog_json}};
        if (state_text != nullptr) {
            files.emplace_back("--state", *state_text);
        }
        auto result = run("read", config.read_timeout, files, lines);
        auto capture = records.take();
        failure.clear();
        if (!result.exit.succeeded()) {
            auto said = capture.error.empty() ? last_line(result.stderr_text) : capture.error;
            failure = "ended with " + result.exit.describe();
            if (!said.empty()) {
                failure += fmt::format(": \"{}\"", said);
            }
        }
        return capture;
    }
};

VersionProbe::VersionProbe(const config::TestConfig& config)
    : m_impl(std::make_unique<Impl>(config)) {}

VersionProbe::~VersionProbe() = default;

std::string VersionProbe::describe() const {
    const auto& manifest = m_impl->config.manifest;
    return manifest ? fmt::format("{} with {}", m_impl->launcher->describe(), manifest->as_named)
                    : m_impl->launcher->describe();
}

std::string catalog_for(const config::TestConfig& config, const std::string& discovered_json,
                        const std::vector<StreamRename>& renames) {
    auto discovered = json::parse_json_text(discovered_json, "catalog");
    return config.catalog_text ? restricted_catalog(*config.catalog_text, discovered, renames)
                               : configured_catalog(discovered, SyncChoice::full_refresh);
}

std::string state_catalog_for(const config::TestConfig& config,
                              const std::string& control_discovered_json,
                              const std::string& discovered_json,
                              const std::vector<StreamRename>& renames) {
    if (config.catalog_text) {
        return catalog_for(config, discovered_json, renames);
    }
    auto control_discovered = json::parse_json_text(control_discovered_json, "catalog");
    auto discovered = json::parse_json_text(discovered_json, "catalog");
    return restricted_catalog(
        configured_catalog(control_discovered, SyncChoice::incremental_where_supported), discovered,
        renames);
}

StreamsBySyncMode streams_by_sync_mode(const std::string& configured_json) {
    StreamsBySyncMode modes;
    auto configured = json::parse_json_text(configured_json, "configured catalog");
    if (!configured.IsObject() || !configured.HasMember("streams") ||
        !configured["streams"].IsArray()) {
        return modes;
    }
    for (const auto& entry : configured["streams"].GetArray()) {
        if (!entry.IsObject() || !entry.HasMember("stream") || !entry["stream"].IsObject() ||
            !entry["stream"].HasMember("name") || !entry["stream"]["name"].IsString()) {
            continue;
        }
        std::string name = entry["stream"]["name"].GetString();
        auto mode = entry.FindMember("sync_mode");
        bool incremental = mode != entry.MemberEnd() && mode->value.IsString() &&
                           std::string_view(mode->value.GetString()) == "incremental";
        (incremental ? modes.incremental : modes.full_refresh).push_back(std::move(name));
    }
    return modes;
}

VersionAnswers VersionProbe::discover() {
    VersionAnswers answers;
    answers.spec = m_impl->spec();
    if (answers.spec) {
        auto spec = json::parse_json_text(*answers.spec, "spec");
        answers.spec = spec.HasMember("connectionSpecification")
                           ? std::optional(json::to_canonical_json(spec["connectionSpecification"]))
                           : std::nullopt;
    }
    LineCollector catalog_lines(nullptr);
    m_impl->run("discover", m_impl->config.discover_timeout, {{"--config", m_impl->config_text()}},
                catalog_lines);
    answers.catalog = catalog_lines.first("CATALOG", "catalog");
    if (!answers.catalog) {
        answers.read_failure = "no catalog discovered, nothing to read";
        return answers;
    }
    auto discovered = json::parse_json_text(*answers.catalog, "catalog");
    if (!discovered.HasMember("streams") || !discovered["streams"].IsArray()) {
        answers.read_failure = "the discovered catalog has no streams array, nothing to read";
        return answers;
    }
    answers.read_catalog = catalog_for(m_impl->config, *answers.catalog);
    return answers;
}

void VersionProbe::read_into(VersionAnswers& answers) {
    if (answers.read_failure.empty()) {
        answers.read = m_impl->read(answers.read_catalog, nullptr, answers.read_failure);
    }
}

VersionAnswers VersionProbe::answer() {
    auto answers = discover();
    read_into(answers);
    return answers;
}

ReadCapture VersionProbe::read(const std::string& catalog_json, const std::string* state_text,
                               std::string& failure) {
    return m_impl->read(catalog_json, state_text, failure);
}

}  // namespace conform::diff
