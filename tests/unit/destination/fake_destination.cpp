#include "fake_destination.hpp"

#include <rapidjson/document.h>

#include <csignal>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "checks/checks.hpp"
#include "engine/run.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"

namespace conform::testing {

namespace {

constexpr const char* k_connection_specification =
    R"({"type":"object","required":["destination_path"],)"
    R"("properties":{"destination_path":{"type":"string"},)"
    R"("api_key":{"type":"string","airbyte_secret":true}}})";

constexpr const char* k_unmarked_specification =
    R"({"type":"object","required":["destination_path"],)"
    R"("properties":{"destination_path":{"type":"string"},)"
    R"("api_key":{"type":"string","airbyte_secret":true},"token":{"type":"string"}}})";

constexpr const char* k_catalog = R"({"streams": [
  {"stream": {"name": "users", "json_schema": {"type": "object", "properties": {
      "id": {"type": "integer"}, "name": {"type": "string"},
      "updated_at": {"type": "string", "format": "date-time"}}},
    "supported_sync_modes": ["incremental"], "source_defined_primary_key": [["id"]]},
   "sync_mode": "incremental", "cursor_field": ["updated_at"],
   "destination_sync_mode": "append_dedup"},
  {"stream": {"name": "events", "json_schema": {"type": "object", "properties": {
      "kind": {"enum": ["click", "view"]}, "at": {"type": "string", "format": "date-time"}}},
    "supported_sync_modes": ["incremental"]},
   "sync_mode": "incremental", "cursor_field": ["at"], "destination_sync_mode": "append"},
  {"stream": {"name": "tags", "json_schema": {"type": "object", "properties": {
      "name": {"type": "string"}, "count": {"type": "integer"}}},
    "supported_sync_modes": ["full_refresh"], "source_defined_primary_key": [["name"]]},
   "sync_mode": "full_refresh", "destination_sync_mode": "overwrite"}]})";

struct Row {
    int gen = 0;
    int sync = 0;
    std::string key;
    std::string cursor;
    std::string data;
};

struct Stream {
    std::string name;
    std::string mode;
    std::string key_field;  // the first field of its primary key
    int generation = 0;
    int minimum_generation = 0;
    int sync = 0;
    std::vector<std::string> pending;
    std::uint64_t since_state = 0;
};

using Tables = std::map<std::string, std::vector<Row>>;  // stream -> rows

struct Store {
    std::map<std::string, Tables> by_path;  // destination_path -> tables
};

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    return {(std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()};
}

std::string option(const std::vector<std::string>& argv, const std::string& name) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == name) {
            return argv[i + 1];
        }
    }
    return "";
}

std::string member_text(const rapidjson::Value& data, const char* name) {
    return data.IsObject() && data.HasMember(name) ? json::to_json(data[name]) : "";
}

// The first field of a configured stream's primary key ("" without one).
std::string key_field_of(const rapidjson::Value& configured) {
    const rapidjson::Value* key = nullptr;
    if (configured.HasMember("primary_key")) {
        key = &configured["primary_key"];
    } else if (configured["stream"].HasMember("source_defined_primary_key")) {
        key = &configured["stream"]["source_defined_primary_key"];
    }
    if (key == nullptr || !key->IsArray() || key->Empty() || !(*key)[0].IsArray() ||
        (*key)[0].Empty() || !(*key)[0][0].IsString()) {
        return "";
    }
    return (*key)[0][0].GetString();
}

// Plays one process: its stdout lines go to the observer, which may stop it.
class Process {
public:
    explicit Process(process::Observer& observer) : m_observer(observer) {}

    // False when the observer asked for the stop: the process is killed there.
    bool emit(const std::string& line) {
        if (m_stopped) {
            return false;
        }
        ++m_result.stdout_lines;
        if (m_observer.on_stdout_line(line, m_result.stdout_lines, false) ==
            process::Decision::stop) {
            m_stopped = true;
            m_result.stop_reason = process::StopReason::requested;
            m_result.exit.signal = SIGKILL;
        }
        return !m_stopped;
    }
    void log(const std::string& level, const std::string& message) {
        emit(R"({"type":"LOG","log":{"level":")" + level + R"(","message":")" + message + "\"}}");
    }
    void stderr_text(const std::string& text) {
        m_observer.on_stderr(text);
        m_result.stderr_text += text;
    }
    bool stopped() const { return m_stopped; }
    process::RunResult finish(int code) {
        if (!m_stopped) {
            m_result.exit.code = code;
        }
        return m_result;
    }
    process::RunResult crash(int signal) {
        m_result.exit.signal = signal;
        return m_result;
    }
    process::RunResult& result() { return m_result; }
    process::Observer& observer() { return m_observer; }

private:
    process::Observer& m_observer;
    process::RunResult m_result;
    bool m_stopped = false;
};

class Fake {
public:
    Fake(const DestinationModel& model, std::shared_ptr<Store> store)
        : m_model(model), m_store(std::move(store)) {}

    process::RunResult run(const process::LaunchSpec& spec, process::Observer& observer) {
        Process process(observer);
        const auto& argv = spec.argv;
        if (argv.at(0) == "fake-verify") {
            return verify(argv.at(1), process);
        }
        const auto& command = argv.at(1);
        if (command == "spec") {
            return spec_command(process);
        }
        auto config = json::parse_json_text(read_file(option(argv, "--config")), "config");
        if (command == "check") {
            bool valid = config["api_key"].GetStringLength() > 0;
            process.emit(
                valid || m_model.check_always_succeeds
                    ? R"({"type":"CONNECTION_STATUS","connectionStatus":{"status":"SUCCEEDED"}})"
                    : R"({"type":"CONNECTION_STATUS","connectionStatus":{"status":"FAILED","message":"api_key is empty"}})");
            return process.finish(0);
        }
        auto catalog = json::parse_json_text(read_file(option(argv, "--catalog")), "catalog");
        return write(config, catalog, spec.stdin_data.value_or(""), process);
    }

private:
    process::RunResult spec_command(Process& process) {
        std::string modes = m_model.spec_without_dedup ? R"(["append","overwrite"])"
                                                       : R"(["append","overwrite","append_dedup"])";
        std::string documentation = m_model.spec_documentation_moved
                                        ? R"("documentationUrl":"https://example.com/moved",)"
                                        : "";
        std::string line =
            R"({"type":"SPEC","spec":{)" + documentation +
            R"("supported_destination_sync_modes":)" + modes + R"(,"connectionSpecification":)" +
            (m_model.spec_token_unmarked ? k_unmarked_specification : k_connection_specification) +
            "}}";
        process.emit(line);
        if (m_model.spec_twice) {
            process.emit(line);
        }
        return process.finish(0);
    }

    process::RunResult verify(const std::string& config_file, Process& process) {
        auto config = json::parse_json_text(read_file(config_file), "config");
        auto& tables = m_store->by_path[config["destination_path"].GetString()];
        for (const auto& [name, rows] : tables) {
            for (const auto& row : rows) {
                process.emit(R"({"stream":")" + name + R"(","data":)" + row.data + "}");
            }
        }
        return process.finish(0);
    }

    void start(Tables& tables, const Stream& stream) {
        auto& rows = tables[stream.name];
        if (stream.mode == "overwrite" && m_model.overwrite_truncates_first) {
            int newest = 0;
            for (const auto& row : rows) {
                newest = std::max(newest, row.gen);
            }
            if (newest < stream.generation) {
                rows.clear();
            }
        }
        if (stream.mode == "append" && m_model.retry_discards_attempt) {
            std::erase_if(rows, [&](const Row& row) { return row.sync == stream.sync; });
        }
    }

    void flush(Tables& tables, Stream& stream) {
        auto& rows = tables[stream.name];
        for (const auto& data : stream.pending) {
            auto document = json::parse_json_text(data, "record");
            Row row{stream.generation, stream.sync, member_text(document, stream.key_field.c_str()),
                    member_text(document, "updated_at"), data};
            if (stream.mode != "append_dedup") {
                rows.push_back(row);
                continue;
            }
            auto found = std::find_if(rows.begin(), rows.end(),
                                      [&](const Row& kept) { return kept.key == row.key; });
            if (found == rows.end()) {
                rows.push_back(row);
            } else if (!m_model.dedup_keeps_first && row.cursor >= found->cursor) {
                *found = row;
            }
        }
        stream.pending.clear();
    }

    void finish(Tables& tables, std::vector<Stream>& streams) {
        for (auto& stream : streams) {
            flush(tables, stream);
            auto& rows = tables[stream.name];
            if (stream.mode == "overwrite" && !m_model.overwrite_keeps_old) {
                std::erase_if(rows,
                              [&](const Row& row) { return row.gen < stream.minimum_generation; });
            }
            if (stream.mode == "append" && m_model.append_replaces_on_success) {
                std::erase_if(rows, [&](const Row& row) { return row.sync < stream.sync; });
            }
        }
    }

    std::string echo_of(rapidjson::Document& message, std::uint64_t count) {
        auto& state = message["state"];
        if (!m_model.no_stats) {
            rapidjson::Value stats(rapidjson::kObjectType);
            stats.AddMember("recordCount",
                            static_cast<double>(count + (m_model.stats_off_by_one ? 1 : 0)),
                            message.GetAllocator());
            state.AddMember("destinationStats", stats, message.GetAllocator());
        }
        return json::to_json(message);
    }

    // Waits, as a process reading its stdin would, until conform ends the input.
    static void wait_for_end_of_input(Process& process, std::uint64_t bytes) {
        std::chrono::milliseconds elapsed{0};
        while (!process.stopped() && !process.observer().end_input({bytes, 0})) {
            elapsed += std::chrono::milliseconds(50);
            process.observer().on_tick(elapsed);
        }
    }

    process::RunResult write(const rapidjson::Document& config, const rapidjson::Document& catalog,
                             const std::string& input, Process& process) {
        auto& tables = m_store->by_path[config["destination_path"].GetString()];
        if (m_model.leak_secret) {
            process.stderr_text(std::string("api_key=") + config["api_key"].GetString() + "\n");
        }
        if (m_model.log_invalid_level) {
            process.log("LOUD", "starting");
        }
        std::vector<Stream> streams;
        for (const auto& configured : catalog["streams"].GetArray()) {
            streams.push_back({configured["stream"]["name"].GetString(),
                               configured["destination_sync_mode"].GetString(),
                               key_field_of(configured),
                               configured["generation_id"].GetInt(),
                               configured["minimum_generation_id"].GetInt(),
                               configured["sync_id"].GetInt(),
                               {},
                               0});
            start(tables, streams.back());
        }
        auto find = [&streams](const std::string& name) -> Stream* {
            auto found = std::find_if(streams.begin(), streams.end(),
                                      [&](const Stream& stream) { return stream.name == name; });
            return found == streams.end() ? nullptr : &*found;
        };
        std::istringstream lines(input);
        std::string line;
        std::uint64_t consumed = 0;
        std::optional<std::string> held;
        std::string held_stream;
        bool held_once = false;
        bool completed = false;
        while (std::getline(lines, line)) {
            consumed += line.size() + 1;
            auto message = json::parse_json_text(line, "input");
            std::string type = message["type"].GetString();
            if (type == "RECORD") {
                auto* stream = find(message["record"]["stream"].GetString());
                if (stream == nullptr) {
                    if (m_model.crash_on_unknown_stream) {
                        return process.crash(SIGSEGV);
                    }
                    process.log("WARN", "dropping a record of an unknown stream");
                    continue;
                }
                stream->pending.push_back(json::to_json(message["record"]["data"]));
                ++stream->since_state;
                if (m_model.echo_before_commit && stream->pending.size() >= 3) {
                    flush(tables, *stream);
                }
            } else if (type == "STATE") {
                auto name = std::string(
                    message["state"]["stream"]["stream_descriptor"]["name"].GetString());
                auto* stream = find(name);
                if (!m_model.echo_before_commit) {
                    flush(tables, *stream);
                }
                auto echo = echo_of(message, stream->since_state);
                stream->since_state = 0;
                if (m_model.echo_out_of_order && !held_once) {
                    held = echo;
                    held_stream = name;
                    held_once = true;
                    continue;
                }
                if (!process.emit(echo)) {
                    break;
                }
                if (held && name == held_stream && !process.emit(*std::exchange(held, {}))) {
                    break;
                }
            } else if (type == "TRACE" && line.find("\"COMPLETE\"") != std::string::npos) {
                completed = true;
                if (m_model.stops_reading_early) {
                    process.result().stdin_unread = input.size() - consumed;
                    break;
                }
            }
        }
        if (process.stopped()) {
            return process.finish(0);
        }
        if (process.result().stdin_unread == 0) {
            wait_for_end_of_input(process, input.size());
        }
        if (process.stopped()) {
            return process.finish(0);
        }
        finish(tables, streams);
        if (held) {
            process.emit(*held);
        }
        return process.finish(m_model.write_exit_nonzero && completed ? 1 : 0);
    }

    DestinationModel m_model;
    std::shared_ptr<Store> m_store;
};

}  // namespace

destination::TestConfig fake_destination_config() {
    destination::TestConfig config;
    config.origin = "fake-destination.json";
    config.base_dir = ".";
    config.command = {"fake-destination"};
    config.config_text =
        R"({"destination_path": "${CONFORM_SCRATCH}/out", "api_key": "fake-secret-4242"})";
    config.invalid_config_text = R"({"destination_path": "${CONFORM_SCRATCH}/out", "api_key": ""})";
    config.catalog_text = k_catalog;
    config.catalog_origin = "fake catalog";
    config.expected_spec = config::ExpectedSpec{
        std::string(R"({"supported_destination_sync_modes":["append","overwrite","append_dedup"],)"
                    R"("connectionSpecification":)") +
            k_connection_specification + "}",
        "fake spec", false, "spec.json"};
    config.input.records_per_stream = 20;
    config.input.state_every = 5;
    config.verify_command = {"fake-verify", "${CONFORM_CONFIG}"};
    config.end_input_after = std::chrono::milliseconds(0);
    return config;
}

destination::Executor executor_for(const DestinationModel& model) {
    auto fake = std::make_shared<Fake>(model, std::make_shared<Store>());
    return [fake](const process::LaunchSpec& spec, process::Observer& observer) {
        return fake->run(spec, observer);
    };
}

report::RunReport run_destination(const DestinationModel& model, std::vector<std::string> only,
                                  bool strict, const destination::TestConfig& config) {
    engine::RunOptions options;
    options.only = std::move(only);
    options.strict = strict;
    report::Reporter quiet;
    return destination::run_destination_suite(config, checks::destination_checks(), options, quiet,
                                              executor_for(model));
}

std::string status_of(const report::RunReport& report, const std::string& check,
                      const std::string& scenario) {
    std::string status = "absent";
    auto rank = [](const std::string& name) {
        for (int i = 0; const char* known : {"absent", "passed", "skipped", "warned", "failed"}) {
            if (name == known) {
                return i;
            }
            ++i;
        }
        return 0;
    };
    for (const auto& each : report.scenarios) {
        if (!scenario.empty() && each.id != scenario) {
            continue;
        }
        for (const auto& result : each.checks) {
            std::string seen(report::status_name(result.status));
            if (result.id == check && rank(seen) > rank(status)) {
                status = seen;
            }
        }
    }
    return status;
}

std::string message_of(const report::RunReport& report, const std::string& check) {
    std::string text;
    for (const auto& scenario : report.scenarios) {
        for (const auto& result : scenario.checks) {
            if (result.id != check) {
                continue;
            }
            for (const auto& example : result.examples) {
                text += "[" + scenario.id + "] " + example.message + "\n";
            }
            text += "[" + scenario.id + "] note: " + result.note + "\n";
        }
    }
    return text;
}

}  // namespace conform::testing
