#include "fake_connector.hpp"

#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <chrono>
#include <csignal>

#include "checks/checks.hpp"
#include "config/test_config.hpp"
#include "json/parse.hpp"
#include "suite/scenario.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

namespace conform::testing {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds k_tick{50};
// A following connector nobody stops would loop forever; the runner's timeout ends it here.
constexpr milliseconds k_longest_follow{600'000};

std::string file_after(const std::vector<std::string>& argv, std::string_view flag) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
        if (argv[i] == flag) {
            return read_text_file(argv[i + 1]);
        }
    }
    return {};
}

const rapidjson::Value* catalog_key(const rapidjson::Document& catalog, std::string_view name) {
    for (auto spelling : {"estuary.dev/", ""}) {
        auto key = std::string(spelling) + std::string(name);
        if (catalog.IsObject() && catalog.HasMember(key.c_str())) {
            return &catalog[key.c_str()];
        }
    }
    return nullptr;
}

void read_catalog_extensions(Invocation& invocation) {
    if (invocation.catalog.empty()) {
        return;
    }
    auto document = json::parse_json_text(invocation.catalog, "catalog");
    if (const auto* tail = catalog_key(document, "tail"); tail != nullptr && tail->IsBool()) {
        invocation.tail = tail->GetBool();
    }
    if (const auto* range = catalog_key(document, "range")) {
        invocation.range_given = true;
        try {
            invocation.range = estuary::parse_key_range(*range);
        } catch (const Error&) {
            invocation.range_malformed = true;
        }
    }
}

Invocation invocation_of(const process::LaunchSpec& spec) {
    Invocation invocation;
    invocation.argv = spec.argv;
    bool connector = !spec.argv.empty() && spec.argv[0] == "fake-connector";
    invocation.command = connector && spec.argv.size() > 1 ? spec.argv[1]
                         : spec.argv.empty()               ? ""
                                                           : spec.argv[0];
    invocation.config = file_after(spec.argv, "--config");
    invocation.catalog = file_after(spec.argv, "--catalog");
    auto state = file_after(spec.argv, "--state");
    if (!state.empty()) {
        invocation.state = state;
    }
    invocation.range = estuary::KeyRange::full();
    read_catalog_extensions(invocation);
    return invocation;
}

// Ticks until the observer asks for the stop (or the timeout), writing what `follow` gives.
void follow_until_stopped(const Answer& answer, const process::LaunchSpec& spec,
                          process::Observer& observer, std::uint64_t& number,
                          process::RunResult& result) {
    auto limit = spec.timeout.count() > 0 ? spec.timeout : k_longest_follow;
    milliseconds elapsed{0};
    result.stop_reason = process::StopReason::timeout;
    while (elapsed < limit) {
        elapsed += k_tick;
        if (answer.follow) {
            for (const auto& line : answer.follow()) {
                observer.on_stdout_line(line, ++number, false);
            }
        }
        if (observer.on_tick(elapsed) == process::Decision::stop) {
            result.stop_reason = process::StopReason::requested;
            break;
        }
    }
    result.elapsed = elapsed;
    result.killed_after_grace = answer.ignores_sigterm;
    result.exit.signal = answer.ignores_sigterm ? SIGKILL : SIGTERM;
    result.exit_after_stop = answer.ignores_sigterm ? spec.grace : k_tick;
}

suite::Executor executor_for(const Behaviour& behaviour) {
    return [behaviour](const process::LaunchSpec& spec, process::Observer& observer) {
        auto answer = behaviour(invocation_of(spec));
        process::RunResult result;
        std::uint64_t number = 0;
        for (const auto& line : answer.lines) {
            observer.on_stdout_line(line, ++number, false);
        }
        if (answer.follow || answer.hangs) {
            follow_until_stopped(answer, spec, observer, number, result);
        } else {
            result.exit.code = answer.exit_code;
        }
        observer.on_stderr(answer.stderr_text);
        result.stderr_text = answer.stderr_text;
        result.stdout_lines = number;
        return result;
    };
}

report::RunReport run_scenarios(const Behaviour& behaviour, const config::TestConfig& test_config,
                                std::vector<suite::Scenario> scenarios,
                                const engine::RunOptions& options) {
    suite::SourceOptions source;
    source.executor = executor_for(behaviour);
    report::Reporter silent;
    return suite::run_suites(test_config, std::move(scenarios), checks::airbyte_checks(), options,
                             std::move(source), silent);
}

}  // namespace

const report::CheckResult* find_result(const report::RunReport& report, const std::string& scenario,
                                       const std::string& check) {
    for (const auto& result : report.scenarios) {
        if (result.id != scenario) {
            continue;
        }
        for (const auto& checked : result.checks) {
            if (checked.id == check) {
                return &checked;
            }
        }
    }
    return nullptr;
}

config::TestConfig fake_test_config(const std::string& catalog_json,
                                    std::vector<std::string> extensions) {
    config::TestConfig config;
    config.origin = "<fake>";
    config.command = {"fake-connector"};
    config.config_text = "{}";
    config.catalog_text = catalog_json;
    config.extensions = std::move(extensions);
    config.resume.sample = 0;
    return config;
}

report::RunReport run_fake(const Behaviour& behaviour, const config::TestConfig& test_config,
                           const std::string& suite_json, bool strict) {
    engine::RunOptions options;
    options.strict = strict;
    return run_scenarios(
        behaviour, test_config,
        suite::load_suite_text(suite_json, "test-suite.json", checks::airbyte_checks()), options);
}

report::RunReport run_builtin(const Behaviour& behaviour, const config::TestConfig& test_config,
                              std::vector<std::string> only, bool strict) {
    engine::RunOptions options;
    options.strict = strict;
    options.only = std::move(only);
    return run_scenarios(behaviour, test_config,
                         suite::load_builtin_suites(checks::airbyte_checks()), options);
}

std::string status_of(const report::RunReport& report, const std::string& scenario,
                      const std::string& check) {
    const auto* found = find_result(report, scenario, check);
    return found == nullptr ? "absent" : std::string(report::status_name(found->status));
}

std::string first_message(const report::RunReport& report, const std::string& scenario,
                          const std::string& check) {
    const auto* found = find_result(report, scenario, check);
    if (found == nullptr) {
        return "absent";
    }
    return found->examples.empty() ? found->note : found->examples.front().message;
}

std::string all_messages(const report::RunReport& report, const std::string& scenario,
                         const std::string& check) {
    const auto* found = find_result(report, scenario, check);
    if (found == nullptr) {
        return "absent";
    }
    std::string text;
    for (const auto& example : found->examples) {
        text += example.message + "\n";
    }
    return text + found->note;
}

std::string record_line(const std::string& stream, const std::string& data_json) {
    return fmt::format(
        R"({{"type":"RECORD","record":{{"stream":"{}","data":{},"emitted_at":1700000000000}}}})",
        stream, data_json);
}

// --- SourceModel ---

const std::string k_source_catalog = R"({"streams":[
  {"stream":{"name":"items","json_schema":{"type":"object","properties":{
      "id":{"type":"integer"},"name":{"type":"string"}}},
    "supported_sync_modes":["full_refresh"]},
   "sync_mode":"full_refresh","destination_sync_mode":"overwrite","primary_key":[["id"]]},
  {"stream":{"name":"events","json_schema":{"type":"object","properties":{
      "id":{"type":"integer"},"seq":{"type":"integer"},"note":{"type":"string"}}},
    "supported_sync_modes":["full_refresh","incremental"],"source_defined_cursor":true,
    "default_cursor_field":["seq"]},
   "sync_mode":"incremental","destination_sync_mode":"append","cursor_field":["seq"],
   "primary_key":[["id"]]}]})";

namespace {

const std::string k_discovered_streams = R"([
  {"name":"items","json_schema":{"type":"object","properties":{"id":{"type":"integer"},
    "name":{"type":"string"}}},"supported_sync_modes":["full_refresh"],
   "source_defined_primary_key":[["id"]]},
  {"name":"events","json_schema":{"type":"object","properties":{"id":{"type":"integer"},
    "seq":{"type":"integer"},"note":{"type":"string"}}},
   "supported_sync_modes":["full_refresh","incremental"],"source_defined_cursor":true,
   "default_cursor_field":["seq"],"source_defined_primary_key":[["id"]]}])";

const std::string k_trace_error =
    R"({"type":"TRACE","trace":{"type":"ERROR","emitted_at":1,"error":{"message":"cannot read"}}})";

constexpr std::uint32_t k_items_offset = 0x08000000u;

enum class StateFormat { per_stream, merge_patch, full };

struct Shared {
    int injected = 0;
    int reads = 0;
    int specs = 0;
    int discovers = 0;
};

bool contains(const std::string& text, std::string_view part) {
    return text.find(part) != std::string::npos;
}

std::string stream_state_line(const std::string& stream, const std::string& state_json) {
    return fmt::format(R"({{"type":"STATE","state":{{"type":"STREAM","stream":{{)"
                       R"("stream_descriptor":{{"name":"{}","namespace":null}},)"
                       R"("stream_state":{}}}}}}})",
                       stream, state_json);
}

std::string legacy_state_line(const std::string& data_json, bool merge) {
    return fmt::format(R"({{"type":"STATE","state":{{"data":{}{}}}}})", data_json,
                       merge ? R"(,"estuary.dev/merge":true)" : "");
}

// The seq the state file holds for events, per-stream or legacy (0 when none).
int resumed_events_seq(const Invocation& invocation) {
    if (!invocation.state) {
        return 0;
    }
    auto state = json::parse_json_text(*invocation.state, "state");
    if (state.IsArray()) {
        for (const auto& entry : state.GetArray()) {
            const auto& body = entry["stream"];
            if (std::string_view(body["stream_descriptor"]["name"].GetString()) == "events" &&
                body["stream_state"].HasMember("seq")) {
                return body["stream_state"]["seq"].GetInt();
            }
        }
        return 0;
    }
    const auto& data = state.HasMember("data") ? state["data"] : state;
    return data.HasMember("events") && data["events"].HasMember("seq")
               ? data["events"]["seq"].GetInt()
               : 0;
}

// Where the catalog projects events' "note" ("/note" when it does not).
std::string note_pointer(const Invocation& invocation) {
    auto catalog = json::parse_json_text(invocation.catalog, "catalog");
    for (const auto& configured : catalog["streams"].GetArray()) {
        for (const char* key : {"estuary.dev/projections", "projections"}) {
            if (configured.HasMember(key) && configured[key].HasMember("note")) {
                return configured[key]["note"].GetString();
            }
        }
    }
    return "/note";
}

// {"note":"n"} placed at `pointer` ("/payload/note" gives "payload":{"note":"n"}).
std::string placed_note(const std::string& pointer) {
    std::vector<std::string> parts;
    for (std::size_t start = 1; start <= pointer.size();) {
        auto end = pointer.find('/', start);
        end = end == std::string::npos ? pointer.size() : end;
        parts.push_back(pointer.substr(start, end - start));
        start = end + 1;
    }
    std::string text = R"("n")";
    for (auto part = parts.rbegin(); part != parts.rend(); ++part) {
        text = fmt::format(R"({{"{}":{}}})", *part, text);
    }
    return text.substr(1, text.size() - 2);
}

constexpr int k_far_beyond_data = 1000;

class SourceRun {
public:
    SourceRun(const SourceModel& model, const Invocation& invocation, Shared& shared)
        : m_model(model), m_invocation(invocation), m_shared(shared) {
        m_format = contains(invocation.config, "\"merge\"")        ? StateFormat::merge_patch
                   : contains(invocation.config, "\"full_state\"") ? StateFormat::full
                                                                   : StateFormat::per_stream;
        m_range = m_model.ignores_range ? estuary::KeyRange::full() : invocation.range;
        if (m_model.absent_range_reads_half && !invocation.range_given) {
            m_range = estuary::KeyRange{0, 0x3fffffffu};
        }
        m_note = placed_note(m_model.ignores_projections ? "/note" : note_pointer(invocation));
    }

    Answer read() {
        ++m_shared.reads;
        Answer answer;
        int from = resumed_events_seq(m_invocation);
        if (from > k_far_beyond_data && m_model.future_state_rereads) {
            from = 0;
        }
        if (from > 0 && m_model.resume_inclusive) {
            --from;
        }
        if (m_model.resume_ignores_state) {
            from = 0;
        }
        if (from > 0 && m_model.merge_resume_skips_one && m_format == StateFormat::merge_patch) {
            ++from;
        }
        int last = last_seq();
        if (m_model.resume_skips_new_data && m_invocation.state && from >= 6) {
            last = from;
        }
        bool skips_backlog = m_invocation.tail && m_model.tail_skips_backlog;
        if (skips_backlog) {
            from = last;
        }
        for (int id = 1; id <= 3 && !skips_backlog && !m_model.items_empty; ++id) {
            if (!(m_model.drops_item_3 && id == 3) &&
                m_range.includes(id * 0x10000000u + k_items_offset)) {
                answer.lines.push_back(record_line("items", item_data(id)));
                if (m_model.duplicates_item_2 && id == 2) {
                    answer.lines.push_back(record_line("items", item_data(id)));
                }
            }
        }
        if (m_model.logs_upstream_error) {
            answer.lines.push_back(
                R"({"type":"LOG","log":{"level":"ERROR","message":"list 103: HTTP 500, skipped"}})");
        }
        answer.lines.push_back(items_state());
        if (m_model.items_incomplete) {
            answer.lines.push_back(items_status("STARTED"));
            answer.lines.push_back(items_status("INCOMPLETE"));
        }
        events(from, last, answer.lines);
        m_emitted = last;
        if (m_invocation.tail) {
            follow(answer);
        } else if (m_model.hangs_without_tail) {
            answer.hangs = true;
        }
        return answer;
    }

private:
    int last_seq() const {
        bool sees_injected = !m_model.inject_adds_nothing &&
                             (m_invocation.tail || !m_model.plain_read_misses_injected);
        return 6 + (sees_injected ? 2 * m_shared.injected : 0);
    }

    std::string item_data(int id) const {
        auto name = m_model.items_change_between_reads
                        ? fmt::format("item {} v{}", id, m_shared.reads)
                        : fmt::format("item {}", id);
        return fmt::format(R"({{"id":{},"name":"{}"}})", id, name);
    }

    std::string items_state() const {
        switch (m_format) {
            case StateFormat::merge_patch:
                return legacy_state_line(R"({"items":{"done":true}})", true);
            case StateFormat::full:
                return legacy_state_line(R"({"items":{"done":true}})", false);
            case StateFormat::per_stream:
                break;
        }
        return stream_state_line("items", R"({"__ab_full_refresh_state_message":true})");
    }

    static std::string items_status(std::string_view status) {
        return fmt::format(R"({{"type":"TRACE","trace":{{"type":"STREAM_STATUS",)"
                           R"("emitted_at":1700000000000,"stream_status":{{"stream_descriptor":)"
                           R"({{"name":"items"}},"status":"{}"}}}}}})",
                           status);
    }

    // A per-stream STATE of events; with `records`, the sourceStats a CDK adds.
    std::string events_state(int seq, std::optional<int> records = std::nullopt) const {
        switch (m_format) {
            case StateFormat::merge_patch:
                return legacy_state_line(
                    fmt::format(R"({{"events":{{"seq":{}{}}}}})", seq,
                                m_model.merge_patch_keeps_pending ? R"(,"pending":true)" : ""),
                    true);
            case StateFormat::full:
                return legacy_state_line(
                    fmt::format(R"({{"items":{{"done":true}},"events":{{"seq":{}}}}})", seq),
                    false);
            case StateFormat::per_stream:
                break;
        }
        auto line = stream_state_line("events", fmt::format(R"({{"seq":{}}})", seq));
        if (records) {
            int count = *records + (m_model.wrong_record_count ? 1 : 0);
            line.insert(line.size() - 2,
                        fmt::format(R"(,"sourceStats":{{"recordCount":{}.0}})", count));
        }
        return line;
    }

    // A generator seeded once per read gives a resumed read other values.
    std::string note_after(int from) const {
        if (from == 0 || !m_model.resume_regenerates_notes) {
            return m_note;
        }
        auto regenerated = m_note;
        regenerated.replace(regenerated.rfind(R"("n")"), 3, R"("n2")");
        return regenerated;
    }

    // Events after `from` up to `last`, in range, with a STATE after every 2 (or 4).
    void events(int from, int last, std::vector<std::string>& lines) const {
        int every = m_model.states_every_4 ? 4 : 2;
        int since_state = 0;
        for (int seq = from + 1; seq <= last; ++seq) {
            bool skipped = from > 0 && m_model.resume_skips_second && seq == from + 2;
            if (!skipped && m_range.includes(static_cast<std::uint32_t>(seq) * 0x10000000u)) {
                lines.push_back(record_line(
                    "events", fmt::format(R"({{"id":{0},"seq":{0},{1}}})", seq, note_after(from))));
                ++since_state;
            }
            if (seq % every == 0) {
                lines.push_back(
                    events_state(m_model.state_ahead && seq < last ? seq + 1 : seq, since_state));
                since_state = 0;
            }
        }
    }

    // Tailing: on each tick, what was injected since, with a STATE after it.
    void follow(Answer& answer) {
        answer.ignores_sigterm = m_model.tail_ignores_sigterm;
        if (m_model.tail_exits) {
            return;
        }
        auto emitted = std::make_shared<int>(m_emitted);
        answer.follow = [self = *this, emitted]() {
            std::vector<std::string> lines;
            int last = self.last_seq();
            if (last <= *emitted || self.m_model.tail_misses_new_data) {
                return lines;
            }
            if (self.m_model.tail_state_before_new_data) {
                lines.push_back(self.events_state(last));
            }
            for (int seq = *emitted + 1; seq <= last; ++seq) {
                lines.push_back(record_line(
                    "events", fmt::format(R"({{"id":{0},"seq":{0},{1}}})", seq, self.m_note)));
            }
            if (!self.m_model.tail_state_before_new_data) {
                lines.push_back(self.events_state(last));
            }
            *emitted = last;
            return lines;
        };
    }

    SourceModel m_model;
    Invocation m_invocation;
    Shared& m_shared;
    StateFormat m_format;
    estuary::KeyRange m_range;
    std::string m_note;
    int m_emitted = 0;
};

Answer failing_read() {
    return answer_with({k_trace_error}, 1, "Error: cannot read");
}

Answer answer_spec(const SourceModel& model, Shared& shared) {
    if (model.spec_silent) {
        return {};
    }
    int call = ++shared.specs;
    auto extra = model.spec_unstable ? fmt::format(R"(,"documentationUrl":"https://x/{}")", call)
                                     : std::string();
    auto line = model.spec_reorders_keys && call % 2 == 0
                    ? fmt::format(R"({{"spec":{{"connectionSpecification":{}{}}},"type":"SPEC"}})",
                                  model.connection_specification, extra)
                    : fmt::format(R"({{"type":"SPEC","spec":{{"connectionSpecification":{}{}}}}})",
                                  model.connection_specification, extra);
    return model.spec_twice ? answer_with({line, line}) : answer_with({line});
}

Answer answer_check(const SourceModel& model, const Invocation& invocation) {
    if (model.check_crashes_without_region && !contains(invocation.config, "region")) {
        return answer_with({}, 1, "KeyError: 'region'");
    }
    bool keyless = !contains(invocation.config, "api_key");
    if (model.check_crashes_without_key && keyless) {
        return answer_with({}, 1, "KeyError: 'api_key'");
    }
    if (model.check_traces_without_key && keyless) {
        return answer_with({k_trace_error}, 1, "KeyError: 'api_key'");
    }
    bool invalid = contains(invocation.config, "invalid-key");
    auto status = (invalid || keyless) && !model.check_accepts_invalid ? std::string("FAILED")
                  : invalid                                            ? std::string("SUCCEEDED")
                                                                       : model.check_status;
    auto message = status == "FAILED" && !model.check_fails_silently
                       ? R"(,"message":"the api_key was refused")"
                       : "";
    if (model.check_echoes_key && !keyless) {
        message = R"(,"message":"checked with k-0123456789")";
    }
    return answer_with({fmt::format(R"({{"type":"CONNECTION_STATUS","connectionStatus":)"
                                    R"({{"status":"{}"{}}}}})",
                                    status, message)});
}

Answer answer_discover(const SourceModel& model, Shared& shared) {
    if (model.discover_silent) {
        return {};
    }
    int call = ++shared.discovers;
    auto streams =
        model.discovered_streams.empty() ? k_discovered_streams : model.discovered_streams;
    if (model.discover_unstable) {
        streams.insert(streams.size() - 2, fmt::format(R"(,"description":"call {}")", call));
    }
    return answer_with(
        {fmt::format(R"({{"type":"CATALOG","catalog":{{"streams":{}}}}})", streams)});
}

bool invalid_catalog(const Invocation& invocation) {
    return contains(invocation.catalog, "conform_unknown_stream") ||
           contains(invocation.catalog, "\"INVALID\"");
}

Answer answer_read(const SourceModel& model, const Invocation& invocation, Shared& shared) {
    bool invalid = contains(invocation.config, "invalid-key");
    if (model.read_crashes) {
        return answer_with({}, 1, "Segmentation fault");
    }
    if ((invalid && !model.invalid_config_read_succeeds) ||
        (invalid_catalog(invocation) && !model.accepts_invalid_catalog) ||
        (invocation.range_malformed && !model.accepts_malformed_range) ||
        (model.fails_on_extension_keys && contains(invocation.catalog, "projections")) ||
        model.read_fails) {
        return failing_read();
    }
    return SourceRun(model, invocation, shared).read();
}

}  // namespace

Behaviour SourceModel::behaviour() const {
    auto shared = std::make_shared<Shared>();
    return [model = *this, shared](const Invocation& invocation) -> Answer {
        if (invocation.command == "spec") {
            return answer_spec(model, *shared);
        }
        if (invocation.command == "check") {
            return answer_check(model, invocation);
        }
        if (invocation.command == "discover") {
            return answer_discover(model, *shared);
        }
        if (invocation.command == "read") {
            return answer_read(model, invocation, *shared);
        }
        if (model.inject_fails) {
            return answer_with({}, 1, "inject.sh: the stub API is down\n");
        }
        ++shared->injected;  // the tail inject command
        return {};
    };
}

config::TestConfig source_test_config(std::vector<std::string> extensions) {
    auto config = fake_test_config(k_source_catalog, std::move(extensions));
    config.config_text = R"({"api_key":"k-0123456789","page_size":2,"region":"eu"})";
    config.invalid_config_text = R"({"api_key":"invalid-key","page_size":2,"region":"eu"})";
    config.merge_config_text =
        R"({"api_key":"k-0123456789","page_size":2,"region":"eu","states":"merge"})";
    config.full_state_config_text =
        R"({"api_key":"k-0123456789","page_size":2,"region":"eu","states":"full_state"})";
    config.inject_command = {"inject"};
    config.inject_after = milliseconds(100);
    config.observe = milliseconds(200);
    config.tail_wait = milliseconds(2'000);
    config.read_timeout = milliseconds(30'000);
    config.projections = {{"events", {{"note", "/payload/note"}}}};
    config.expected_records = {{"items", R"({"id":1,"name":"item 1"})", 1},
                               {"items", R"({"id":3,"name":"item 3"})", 2}};
    config.expected_origin = "expected_records.jsonl";
    // What the source's spec emits, a default spelled out as Airbyte's model reads it.
    config.expected_spec = config::TestConfig::ExpectedSpec{
        fmt::format(R"({{"supportsNormalization":false,"connectionSpecification":{}}})",
                    SourceModel{}.connection_specification),
        "spec.json", false, "spec.json"};
    return config;
}

void expect_verdict(const report::RunReport& report, const std::string& scenario,
                    const std::string& check, const std::string& status,
                    const std::string& message_part) {
    auto messages = all_messages(report, scenario, check);
    INFO(scenario, " / ", check, ": ", messages);
    CHECK(status_of(report, scenario, check) == status);
    CHECK(messages.find(message_part) != std::string::npos);
}

namespace {
std::vector<std::string>& covered() {
    static std::vector<std::string> ids;
    return ids;
}
}  // namespace

bool note_covered(const std::vector<std::string>& check_ids) {
    covered().insert(covered().end(), check_ids.begin(), check_ids.end());
    return true;
}

const std::vector<std::string>& covered_checks() {
    return covered();
}

Answer answer_with(std::vector<std::string> lines, int exit_code, std::string stderr_text) {
    Answer answer;
    answer.lines = std::move(lines);
    answer.exit_code = exit_code;
    answer.stderr_text = std::move(stderr_text);
    return answer;
}

std::string spec_line() {
    return R"({"type":"SPEC","spec":{"connectionSpecification":{"type":"object"}}})";
}

}  // namespace conform::testing
