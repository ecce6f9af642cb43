#include "diff/probe.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <set>

#include "container/launcher.hpp"
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
            message.Parse(line.c_str(), line.size());
            if (!message.HasParseError() && message.IsObject() && message.HasMember("type") &&
                message["type"] == type && message.HasMember(name) && message[name].IsObject()) {
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

// Every discovered stream in full_refresh, appended.
std::string full_refresh_catalog(const rapidjson::Document& discovered) {
    rapidjson::Document configured(rapidjson::kObjectType);
    auto& allocator = configured.GetAllocator();
    rapidjson::Value streams(rapidjson::kArrayType);
    for (const auto& stream : discovered["streams"].GetArray()) {
        rapidjson::Value entry(rapidjson::kObjectType);
        entry.AddMember("stream", rapidjson::Value(stream, allocator), allocator);
        entry.AddMember("sync_mode", "full_refresh", allocator);
        entry.AddMember("destination_sync_mode", "append", allocator);
        streams.PushBack(entry, allocator);
    }
    configured.AddMember("streams", streams, allocator);
    return json::to_canonical_json(configured);
}

// The test config's catalog without the streams this version does not discover: a removed
// stream is reported by the catalog diff, and asking for it would only fail the whole read.
std::string restricted_catalog(const std::string& configured_text,
                               const rapidjson::Document& discovered) {
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
        if (has_name && known.count((*entry)["stream"]["name"].GetString()) == 0) {
            entry = streams.Erase(entry);
        } else {
            ++entry;
        }
    }
    return json::to_canonical_json(configured);
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
        return replace_all(config.config_text, "${CONFORM_SCRATCH}", scratch.path().string());
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
        failure = result.exit.succeeded() ? "" : result.exit.describe();
        return records.take();
    }
};

VersionProbe::VersionProbe(const config::TestConfig& config)
    : m_impl(std::make_unique<Impl>(config)) {}

VersionProbe::~VersionProbe() = default;

std::string VersionProbe::describe() const {
    return m_impl->launcher->describe();
}

VersionAnswers VersionProbe::answer() {
    VersionAnswers answers;
    LineCollector spec_lines(nullptr);
    m_impl->run("spec", m_impl->config.spec_timeout, {}, spec_lines);
    answers.spec = spec_lines.first("SPEC", "spec");
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
    answers.read_catalog = m_impl->config.catalog_text
                               ? restricted_catalog(*m_impl->config.catalog_text, discovered)
                               : full_refresh_catalog(discovered);
    answers.read = m_impl->read(answers.read_catalog, nullptr, answers.read_failure);
    return answers;
}

ReadCapture VersionProbe::read(const std::string& catalog_json, const std::string* state_text,
                               std::string& failure) {
    return m_impl->read(catalog_json, state_text, failure);
}

}  // namespace conform::diff
