#include "protocol/analyzer.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <memory>
#include <set>

#include "checks/registry.hpp"
#include "ext/projection.hpp"
#include "ext/state.hpp"
#include "json/digest.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "protocol/line_json.hpp"
#include "protocol/schemas.hpp"
#include "schema/schema.hpp"
#include "util/text.hpp"

namespace conform::protocol {

namespace ids = checks::ids;

namespace {

constexpr std::array<std::string_view, 9> k_known_types{"RECORD",
                                                        "STATE",
                                                        "LOG",
                                                        "SPEC",
                                                        "CONNECTION_STATUS",
                                                        "CATALOG",
                                                        "TRACE",
                                                        "CONTROL",
                                                        "DESTINATION_CATALOG"};
constexpr std::array<std::string_view, 4> k_kept_types{"SPEC", "CATALOG", "CONNECTION_STATUS",
                                                       "TRACE"};
constexpr std::size_t k_kept_limit = 50;
constexpr std::size_t k_key_text_limit = 40;
// Distinct unknown type names counted by name; beyond, they share one count, so a connector that
// invents a new type per line cannot grow memory without bound.
constexpr std::size_t k_unknown_type_names_limit = 1000;
// Epoch milliseconds below this (2001-09-09) are almost surely seconds.
constexpr double k_min_plausible_epoch_ms = 1e12;

std::string_view string_of(const rapidjson::Value& value) {
    return {value.GetString(), value.GetStringLength()};
}

bool contains(const auto& list, std::string_view item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}

const rapidjson::Value* find_path(const rapidjson::Value& data, const FieldPath& path) {
    const rapidjson::Value* current = &data;
    for (const auto& part : path) {
        if (!current->IsObject()) {
            return nullptr;
        }
        auto member = current->FindMember(part.c_str());
        if (member == current->MemberEnd()) {
            return nullptr;
        }
        current = &member->value;
    }
    return current;
}

std::optional<CursorValue> cursor_of(const rapidjson::Value& value) {
    if (value.IsNumber()) {
        return CursorValue{value.GetDouble(), std::nullopt};
    }
    if (value.IsString()) {
        return CursorValue{std::nullopt, std::string(string_of(value))};
    }
    return std::nullopt;
}

// Envelope violations are attributed to the check that owns the part of the message they are in.
std::string_view check_for_violation(std::string_view instance_path) {
    if (instance_path.starts_with("/record/emitted_at")) {
        return ids::read_emitted_at;
    }
    if (instance_path.starts_with("/state")) {
        return ids::state_well_formed;
    }
    return ids::io_messages;
}

const rapidjson::Value* member_of(const rapidjson::Value& object, const char* name) {
    if (!object.IsObject()) {
        return nullptr;
    }
    auto member = object.FindMember(name);
    return member == object.MemberEnd() ? nullptr : &member->value;
}

// A RECORD whose stream and data can be read is analysed even when other parts of its envelope are
// wrong; a STATE whose `state` is an object goes to the reducer, which judges it. One broken
// clause is reported once and does not hide the message from the other checks.
bool usable_payload(std::string_view type, const rapidjson::Value& message) {
    if (type == "RECORD") {
        const auto* record = member_of(message, "record");
        const auto* stream = record ? member_of(*record, "stream") : nullptr;
        const auto* data = record ? member_of(*record, "data") : nullptr;
        return stream != nullptr && stream->IsString() && data != nullptr && data->IsObject();
    }
    if (type == "STATE") {
        const auto* state = member_of(message, "state");
        return state != nullptr && state->IsObject();
    }
    return false;
}

}  // namespace

struct Analyzer::Impl {
    AnalyzerSetup setup;
    Observation observation;
    std::vector<json::Digester> digesters;  // per stream, excluding its volatile fields
    json::Digester key_digester;
    ext::StateReducer reducer;
    std::string buffer;
    std::vector<char> chunk = std::vector<char>(64 * 1024);
    rapidjson::MemoryPoolAllocator<> allocator{chunk.data(), chunk.size()};
    std::vector<schema::Violation> violations;
    std::chrono::milliseconds now{0};
    SecretStreamScanner stderr_secrets{nullptr};
    std::size_t unknown_type_names = 0;

    std::unique_ptr<std::FILE, int (*)(std::FILE*)> transcript{nullptr, &std::fclose};

    explicit Impl(AnalyzerSetup analyzer_setup)
        : setup(std::move(analyzer_setup)),
          reducer(setup.states_are_patches),
          stderr_secrets(setup.secrets) {
        if (!setup.transcript_path.empty()) {
            transcript.reset(std::fopen(setup.transcript_path.c_str(), "w"));
            observation.transcript_path = transcript ? setup.transcript_path.string() : "";
            observation.records.set_folder(setup.transcript_path.parent_path());
            observation.checkpoints.set_folder(setup.transcript_path.parent_path());
        }
        if (setup.catalog != nullptr) {
            for (const auto& stream : setup.catalog->streams) {
                digesters.emplace_back(stream.volatile_pointers);
            }
            observation.max_cursor.resize(setup.catalog->streams.size());
        }
    }

    void add_finding(std::string_view check, std::string message, std::uint64_t line,
                     std::string_view text, bool advisory = false) {
        auto& count = observation.finding_counts[std::string(check)];
        if (advisory) {
            ++observation.advisory_counts[std::string(check)];
        }
        if (++count > setup.examples_per_check) {
            return;
        }
        std::string shown =
            setup.secrets != nullptr ? setup.secrets->redact(text) : std::string(text);
        observation.findings.push_back(
            Finding{std::string(check), std::move(message), line, excerpt(shown, 300), advisory});
    }

    void keep_line(std::string_view line) {
        if (transcript) {
            std::fwrite(line.data(), 1, line.size(), transcript.get());
            std::fputc('\n', transcript.get());
        }
    }

    void analyze(std::string_view line, std::uint64_t line_number, bool truncated) {
        ++observation.lines;
        keep_line(line);
        if (setup.secrets != nullptr && setup.secrets->found_in(line)) {
            add_finding(ids::secrets, "a secret config value appears in this stdout line",
                        line_number, line);
        }
        if (truncated) {
            ++observation.invalid_lines;
            add_finding(ids::io_messages, "line too long: cut at the size limit, not parsed",
                        line_number, line);
            return;
        }
        buffer.assign(line);
        allocator.Clear();
        rapidjson::Document message(&allocator);
        message.ParseInsitu<k_line_parse_flags>(buffer.data());
        if (message.HasParseError() || !message.IsObject()) {
            ++observation.invalid_lines;
            auto problem = message.HasParseError() ? classify_parse_error(message) : std::nullopt;
            add_finding(problem ? problem->check : ids::io_json_lines,
                        problem ? problem->message : "not a JSON object: not an AirbyteMessage",
                        line_number, line);
            return;
        }
        if (auto duplicate = find_duplicate_key(message)) {
            add_finding(ids::io_json_lines,
                        fmt::format("duplicate key \"{}\" in one object: RFC 8259 says names "
                                    "SHOULD be unique, and readers disagree on which value wins",
                                    *duplicate),
                        line_number, line);
        }
        inspect_message(message, line, line_number);
    }

    void inspect_message(const rapidjson::Document& message, std::string_view line,
                         std::uint64_t line_number) {
        violations.clear();
        bool envelope_valid = airbyte_message_schema().validate(message, &violations, 4);
        auto type_member = message.FindMember("type");
        std::string type = type_member != message.MemberEnd() && type_member->value.IsString()
                               ? std::string(string_of(type_member->value))
                               : std::string();
        bool usable = envelope_valid || usable_payload(type, message);
        // The reducer judges a usable STATE itself, with messages more precise than the schema's.
        bool reducer_judges = usable && type == "STATE";
        std::vector<std::pair<std::string_view, std::string>> state_violations;
        for (const auto& violation : violations) {
            auto check = check_for_violation(violation.instance_path);
            auto text = fmt::format("not a valid AirbyteMessage: at '{}': {}",
                                    violation.instance_path, violation.message);
            if (reducer_judges && check == ids::state_well_formed) {
                state_violations.emplace_back(check, std::move(text));
            } else {
                add_finding(check, std::move(text), line_number, line);
            }
        }
        // A wrong emitted_at is AP-READ-3's finding alone; the message stays valid for AP-IO-1.
        bool only_emitted_at = std::all_of(violations.begin(), violations.end(), [](const auto& v) {
            return check_for_violation(v.instance_path) == ids::read_emitted_at;
        });
        if (!envelope_valid && !only_emitted_at) {
            ++observation.invalid_lines;
        }
        if (type.empty()) {
            return;
        }
        if (!contains(k_known_types, type)) {
            count_unknown_type(type, line, line_number);
            return;
        }
        ++observation.type_counts[type];
        if (!envelope_valid && !only_emitted_at && !usable) {
            return;
        }
        if (contains(k_kept_types, type) && observation.kept.size() < k_kept_limit &&
            (envelope_valid || only_emitted_at)) {
            observation.kept.push_back({type, line_number, std::string(line)});
        }
        if (type == "RECORD") {
            inspect_record(message["record"], line, line_number);
        } else if (type == "STATE") {
            bool reducer_found = inspect_state(message["state"], line, line_number);
            if (!reducer_found) {
                for (auto& [check, text] : state_violations) {
                    add_finding(check, std::move(text), line_number, line);
                }
            }
        }
    }

    void count_unknown_type(const std::string& type, std::string_view line,
                            std::uint64_t line_number) {
        auto found = observation.type_counts.find(type);
        if (found != observation.type_counts.end() ||
            unknown_type_names < k_unknown_type_names_limit) {
            unknown_type_names += found == observation.type_counts.end() ? 1 : 0;
            ++observation.type_counts[type];
            add_finding(ids::io_known_types, fmt::format("unknown message type '{}'", type),
                        line_number, line);
            return;
        }
        ++observation.type_counts[std::string(Observation::k_other_types)];
        add_finding(ids::io_known_types,
                    fmt::format("unknown message type '{}' (beyond {} distinct unknown types, "
                                "counted as \"{}\")",
                                type, k_unknown_type_names_limit, Observation::k_other_types),
                    line_number, line);
    }

    // Shown first among the check's examples, which are full by then: the counts by name are
    // incomplete.
    void note_other_types() {
        auto other = observation.count(std::string(Observation::k_other_types));
        if (other == 0) {
            return;
        }
        auto& findings = observation.findings;
        auto first = std::find_if(findings.begin(), findings.end(), [](const Finding& finding) {
            return finding.check == ids::io_known_types;
        });
        findings.insert(
            first,
            Finding{
                std::string(ids::io_known_types),
                fmt::format("{} messages of unknown types beyond the first {} distinct names were "
                            "counted together as \"{}\"",
                            other, k_unknown_type_names_limit, Observation::k_other_types),
                0, "", false});
    }

    std::optional<std::uint32_t> stream_of(const rapidjson::Value& record, std::string_view line,
                                           std::uint64_t line_number) {
        std::optional<std::string_view> name_space;
        if (record.HasMember("namespace") && record["namespace"].IsString()) {
            name_space = string_of(record["namespace"]);
        }
        auto name = string_of(record["stream"]);
        auto index = setup.catalog->find(name, name_space);
        if (!index) {
            add_finding(
                ids::read_streams,
                fmt::format("record for stream '{}', which is not in the configured catalog", name),
                line_number, line);
            return std::nullopt;
        }
        return static_cast<std::uint32_t>(*index);
    }

    void inspect_record(const rapidjson::Value& record, std::string_view line,
                        std::uint64_t line_number) {
        observation.last_record_line = line_number;
        if (!observation.first_record_at) {
            observation.first_record_at = now;
        }
        if (observation.mark_set) {
            ++observation.records_after_mark;
        }
        if (record.HasMember("emitted_at")) {
            check_emitted_at(record["emitted_at"], line, line_number);
        }
        if (setup.catalog == nullptr) {
            return;
        }
        auto stream_index = stream_of(record, line, line_number);
        if (!stream_index) {
            return;
        }
        const auto& stream = setup.catalog->streams[*stream_index];
        const auto& data = record["data"];
        violations.clear();
        if (!stream.schema->validate(data, &violations, 3)) {
            for (const auto& violation : violations) {
                add_finding(
                    ids::read_schema,
                    fmt::format("{} record does not match its schema: at '{}': {}",
                                stream.display_name(), violation.instance_path, violation.message),
                    line_number, line);
            }
        }
        RecordEntry entry;
        entry.stream = *stream_index;
        entry.line = line_number;
        entry.checkpoint = static_cast<std::uint32_t>(observation.checkpoints.size());
        entry.content = digesters[*stream_index].digest(data);
        bool has_key = read_primary_key(stream, data, entry, line, line_number);
        entry.identity = has_key ? entry.identity : entry.content;
        entry.projected = projected_digest(*stream_index, data).value_or(entry.content);
        if (stream.incremental()) {
            check_cursor(stream, *stream_index, data, line, line_number);
        }
        observation.records.push_back(entry);
    }

    void check_emitted_at(const rapidjson::Value& emitted_at, std::string_view line,
                          std::uint64_t line_number) {
        if (emitted_at.IsNumber() && emitted_at.GetDouble() < k_min_plausible_epoch_ms &&
            emitted_at.GetDouble() > 0) {
            add_finding(ids::read_emitted_at,
                        fmt::format("emitted_at {} looks like seconds, not milliseconds",
                                    emitted_at.GetDouble()),
                        line_number, line);
        }
    }

    // Sets entry.identity and entry.key from the primary key; false when the stream has none.
    bool read_primary_key(const CatalogStream& stream, const rapidjson::Value& data,
                          RecordEntry& entry, std::string_view line, std::uint64_t line_number) {
        if (stream.primary_key.empty()) {
            return false;
        }
        rapidjson::Value key(rapidjson::kArrayType);
        for (const auto& path : stream.primary_key) {
            const auto* value = find_path(data, path);
            if (value == nullptr || value->IsNull()) {
                add_finding(
                    ids::read_primary_key,
                    fmt::format("{} record has {} primary-key field '{}'", stream.display_name(),
                                value ? "a null" : "no", to_pointer(path)),
                    line_number, line);
                return false;
            }
            key.PushBack(rapidjson::Value(*value, allocator), allocator);
        }
        rapidjson::Value keyed(rapidjson::kArrayType);
        keyed.PushBack(entry.stream, allocator).PushBack(key, allocator);
        entry.identity = key_digester.digest(keyed);
        entry.key = excerpt(json::to_json(keyed[1]), k_key_text_limit);
        return true;
    }

    // The digest of `data` after conform applies the stream's projections; none without any.
    std::optional<json::Digest> projected_digest(std::uint32_t stream_index,
                                                 const rapidjson::Value& data) {
        if (setup.apply_projections.size() <= stream_index ||
            setup.apply_projections[stream_index].empty()) {
            return std::nullopt;
        }
        rapidjson::Value copy(data, allocator);
        ext::apply_projections(copy, setup.apply_projections[stream_index], allocator);
        return digesters[stream_index].digest(copy);
    }

    void check_cursor(const CatalogStream& stream, std::uint32_t stream_index,
                      const rapidjson::Value& data, std::string_view line,
                      std::uint64_t line_number) {
        if (stream.cursor_field.empty()) {
            return;
        }
        const auto* value = find_path(data, stream.cursor_field);
        if (value == nullptr) {
            add_finding(ids::read_cursor,
                        fmt::format("{} record has no cursor field '{}'", stream.display_name(),
                                    to_pointer(stream.cursor_field)),
                        line_number, line);
            return;
        }
        auto cursor = cursor_of(*value);
        if (!cursor) {
            return;
        }
        auto& max = observation.max_cursor[stream_index];
        if (!max || cursor->compare(*max).value_or(0) > 0) {
            max = cursor;
        }
        if (setup.cursor_floor.size() > stream_index && setup.cursor_floor[stream_index]) {
            const auto& floor = *setup.cursor_floor[stream_index];
            if (cursor->compare(floor).value_or(0) < 0) {
                add_finding(
                    ids::state_no_older,
                    fmt::format("{} record with cursor {} is older than the state's "
                                "cursor {}",
                                stream.display_name(), cursor->describe(), floor.describe()),
                    line_number, line);
            }
        }
    }

    // Returns true when the reducer found something wrong with the STATE.
    bool inspect_state(const rapidjson::Value& state, std::string_view line,
                       std::uint64_t line_number) {
        observation.last_state_line = line_number;
        if (setup.states_are_patches || ext::has_merge_flag(state)) {
            ++observation.merge_states;
        }
        auto problems = reducer.apply(state);
        for (const auto& problem : problems) {
            add_finding(
                problem.clause == "X-MERGE-1" ? ids::merge_reduction : ids::state_well_formed,
                problem.message, line_number, line, problem.advisory);
        }
        bool refused = std::any_of(problems.begin(), problems.end(),
                                   [](const auto& problem) { return !problem.advisory; });
        // A malformed STATE the reducer refused is no checkpoint: nothing could resume from it.
        // The state it left unchanged is the one the last checkpoint recorded.
        auto materialized = reducer.materialized_json();
        const auto& checkpoints = observation.checkpoints;
        if (refused && (checkpoints.empty() ? materialized.empty()
                                            : checkpoints.back().materialized == materialized)) {
            return true;
        }
        Checkpoint checkpoint;
        checkpoint.line = line_number;
        checkpoint.records_before = observation.records.size();
        checkpoint.state_file = reducer.state_file_json();
        checkpoint.materialized = std::move(materialized);
        if (auto stream = committed_stream(state)) {
            checkpoint.all_streams = false;
            if (*stream) {
                checkpoint.streams.push_back(static_cast<std::uint32_t>(**stream));
            }
        }
        observation.checkpoints.push_back(checkpoint);
        return !problems.empty();
    }

    // For a STREAM state, the catalog stream it names (nullopt inside when none); nullopt for a
    // state that commits every stream (legacy, GLOBAL).
    std::optional<std::optional<std::size_t>> committed_stream(
        const rapidjson::Value& state) const {
        const auto* stream = member_of(state, "stream");
        const auto* type = member_of(state, "type");
        bool per_stream = (type != nullptr && type->IsString() && string_of(*type) == "STREAM") ||
                          (type == nullptr && stream != nullptr);
        if (!per_stream) {
            return std::nullopt;
        }
        const auto* descriptor = stream ? member_of(*stream, "stream_descriptor") : nullptr;
        const auto* name = descriptor ? member_of(*descriptor, "name") : nullptr;
        if (setup.catalog == nullptr || name == nullptr || !name->IsString()) {
            return std::optional<std::size_t>{};
        }
        const auto* name_space = member_of(*descriptor, "namespace");
        return setup.catalog->find(string_of(*name), name_space && name_space->IsString()
                                                         ? std::optional(string_of(*name_space))
                                                         : std::nullopt);
    }
};

Analyzer::Analyzer(AnalyzerSetup setup) : m_impl(std::make_unique<Impl>(std::move(setup))) {}

Analyzer::~Analyzer() = default;

process::Decision Analyzer::on_stdout_line(std::string_view line, std::uint64_t line_number,
                                           bool truncated) {
    m_impl->analyze(line, line_number, truncated);
    if (m_impl->setup.on_progress) {
        m_impl->setup.on_progress(m_impl->observation);
    }
    return process::Decision::keep_going;
}

process::Decision Analyzer::on_tick(std::chrono::milliseconds elapsed) {
    m_impl->now = elapsed;
    if (m_impl->setup.on_progress) {
        m_impl->setup.on_progress(m_impl->observation);
    }
    return m_impl->setup.on_tick ? m_impl->setup.on_tick(elapsed) : process::Decision::keep_going;
}

void Analyzer::on_stderr(std::string_view chunk) {
    m_impl->stderr_secrets.feed(chunk);
}

void Analyzer::set_mark() {
    m_impl->observation.mark_set = true;
    m_impl->observation.mark_line = m_impl->observation.lines;
}

Observation Analyzer::finish(process::RunResult result) {
    auto& impl = *m_impl;
    impl.transcript.reset();
    if (impl.setup.secrets != nullptr &&
        (impl.stderr_secrets.found() || impl.setup.secrets->found_in(result.stderr_text))) {
        impl.add_finding(ids::secrets, "a secret config value appears on stderr", 0,
                         result.stderr_text);
    }
    if (impl.setup.secrets != nullptr) {
        result.stderr_text = impl.setup.secrets->redact(result.stderr_text);
    }
    impl.note_other_types();
    impl.observation.process = std::move(result);
    return std::move(impl.observation);
}

const Observation& Analyzer::observation() const {
    return m_impl->observation;
}

}  // namespace conform::protocol
