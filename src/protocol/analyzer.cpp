#include "protocol/analyzer.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <thread>

#include "estuary/projection.hpp"
#include "estuary/state.hpp"
#include "json/bounded_parse.hpp"
#include "json/digest.hpp"
#include "json/member.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "protocol/batch_pipeline.hpp"
#include "protocol/line_json.hpp"
#include "protocol/schemas.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::protocol {

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
// What the checks read after the run: the first message of each of these types, whole.
constexpr std::array<std::string_view, 3> k_kept_first{"SPEC", "CATALOG", "CONNECTION_STATUS"};
// TRACE messages, the first 50: whole while they fit in 1 MiB together, beyond that as a summary
// of their type and the start of their error message (what the checks read of a TRACE).
constexpr std::size_t k_kept_traces = 50;
constexpr std::size_t k_kept_trace_bytes = 1024 * 1024;
constexpr std::size_t k_trace_message_excerpt = 200;
// What an example keeps of the line it saw and of its message.
constexpr std::size_t k_example_excerpt = 300;
constexpr std::size_t k_example_message = 1000;
// Unknown type names are counted by at most this many bytes of their name.
constexpr std::size_t k_type_name_limit = 256;
constexpr std::size_t k_error_logs_kept = 5;
constexpr std::size_t k_key_text_limit = 40;

std::string_view string_of(const rapidjson::Value& value) {
    return {value.GetString(), value.GetStringLength()};
}

// A key part that writes as it reads: an integer, or a string of printable ASCII that JSON
// leaves unescaped.
bool plain_key_part(const rapidjson::Value& part) {
    if (part.IsInt64() || part.IsUint64()) {
        return true;
    }
    if (!part.IsString()) {
        return false;
    }
    auto text = string_of(part);
    return std::all_of(text.begin(), text.end(),
                       [](char c) { return c >= 0x20 && c < 0x7f && c != '"' && c != '\\'; });
}

// A primary key as the short text examples show: excerpt(to_json(key)), written directly for
// the usual keys of integers and plain strings.
std::string key_text(const rapidjson::Value& key) {
    const auto& parts = key.GetArray();
    if (!std::all_of(parts.begin(), parts.end(), plain_key_part)) {
        return excerpt(json::to_json(key), k_key_text_limit);
    }
    std::string text = "[";
    for (const auto& part : parts) {
        if (text.size() > 1) {
            text += ',';
        }
        if (part.IsString()) {
            text += '"';
            text += string_of(part);
            text += '"';
        } else if (part.IsInt64()) {
            text += fmt::format_int(part.GetInt64()).c_str();
        } else {
            text += fmt::format_int(part.GetUint64()).c_str();
        }
    }
    text += ']';
    return text.size() <= k_key_text_limit ? text : excerpt(text, k_key_text_limit);
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

struct KeyRead {
    const FieldPath* missing = nullptr;  // the first key field absent or null
    bool null = false;
    const FieldPath* structured = nullptr;  // the first key field holding an object or array
};

// Makes `keyed` [stream index, [key values]], what a record's identity digests.
KeyRead read_key(std::uint32_t stream_index, const CatalogStream& stream,
                 const rapidjson::Value& data, rapidjson::Value& keyed,
                 json::Allocator& allocator) {
    KeyRead read;
    rapidjson::Value key(rapidjson::kArrayType);
    for (const auto& path : stream.primary_key) {
        const auto* value = find_path(data, path);
        if (value == nullptr || value->IsNull()) {
            read.missing = &path;
            read.null = value != nullptr;
            return read;
        }
        if ((value->IsObject() || value->IsArray()) && read.structured == nullptr) {
            read.structured = &path;
        }
        key.PushBack(rapidjson::Value(*value, allocator), allocator);
    }
    keyed.SetArray().PushBack(stream_index, allocator).PushBack(key, allocator);
    return read;
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

EnvelopePart part_of(std::string_view instance_path) {
    if (instance_path.starts_with("/record/emitted_at")) {
        return EnvelopePart::emitted_at;
    }
    if (instance_path.starts_with("/state")) {
        return EnvelopePart::state;
    }
    return EnvelopePart::other;
}

// A RECORD whose stream and data can be read is analysed even when other parts of its envelope are
// wrong; a STATE whose `state` is an object goes to the reducer, which judges it. One broken
// clause is reported once and does not hide the message from the other checks.
bool usable_payload(std::string_view type, const rapidjson::Value& message) {
    if (type == "RECORD") {
        const auto* record = json::member(message, "record");
        const auto* stream = record ? json::member(*record, "stream") : nullptr;
        const auto* data = record ? json::member(*record, "data") : nullptr;
        return stream != nullptr && stream->IsString() && data != nullptr && data->IsObject();
    }
    if (type == "STATE") {
        const auto* state = json::member(message, "state");
        return state != nullptr && state->IsObject();
    }
    return false;
}

// A RECORD's catalog stream, its members the judge reads, and the digest of its data when
// prepare() took it.
struct LineRecord {
    const rapidjson::Value* data = nullptr;
    std::uint32_t stream = 0;
    std::string_view stream_name;
    const rapidjson::Value* emitted_at = nullptr;
    std::optional<json::Digest> content;
};

// What a line holds on its own, found before the line is judged: by Impl::prepare, on the
// caller's thread or on the pipeline's worker.
struct PreparedLine {
    std::string_view text;
    std::uint64_t number = 0;
    bool truncated = false;
    json::BoundedParse parse;
    bool object = false;  // parsed, and a JSON object
    rapidjson::Value message;
    // The message's `type`, found here so that judging, on the other thread, reads no member
    // names of a document this thread built.
    const rapidjson::Value* type = nullptr;
    std::optional<std::string> duplicate_key;
    std::optional<LineRecord> record;  // a RECORD of a catalog stream, with usable data
    bool envelope_valid = false;
    std::vector<schema::Violation> violations;  // of the envelope
    bool data_validated = false;
    std::vector<schema::Violation> data_violations;
};

// Lines are prepared in batches of at most this many lines or bytes, many batches at a time but
// at most about k_in_flight_bytes of lines: with few batches the caller often found nothing left
// to prepare and waited for the worker's batch, and a live read left a core idle 10-20% of the
// time.
constexpr std::size_t k_batches = 16;
constexpr std::size_t k_batch_lines = 64;
constexpr std::size_t k_batch_bytes = 16 * 1024;
constexpr std::size_t k_in_flight_bytes = 512 * 1024;
// A longer line is prepared and judged on its own, after the lines before it, so that what the
// batches hold stays small whatever the connector writes.
constexpr std::size_t k_batched_line_bytes = 128 * 1024;

struct Batch {
    std::string text;  // the lines back to back; reserved so that their views stay valid
    std::vector<PreparedLine> lines;
    std::vector<char> chunk = std::vector<char>(64 * 1024);
    rapidjson::MemoryPoolAllocator<> pool{chunk.data(), chunk.size()};

    Batch() {
        text.reserve(k_batch_bytes + k_batched_line_bytes);
        lines.reserve(k_batch_lines);
    }
    bool full() const { return lines.size() >= k_batch_lines || text.size() >= k_batch_bytes; }
    void clear() {
        lines.clear();
        text.clear();
        pool.Clear();
    }
};

}  // namespace

struct Analyzer::Impl {
    AnalyzerSetup setup;
    Observation observation;
    std::vector<LineTally*> tallies;        // per judge, in Observation::tallies
    std::vector<json::Digester> digesters;  // per stream, excluding its volatile fields
    json::Digester key_digester;
    estuary::StateReducer reducer;
    // What the judging of a line builds (keys, projected copies), cleared for each line.
    std::vector<char> scratch_chunk = std::vector<char>(16 * 1024);
    rapidjson::MemoryPoolAllocator<> scratch{scratch_chunk.data(), scratch_chunk.size()};
    std::chrono::milliseconds now{0};
    SecretStreamScanner stderr_secrets{nullptr};
    Secrets no_secrets;
    std::size_t unknown_type_names = 0;
    std::size_t kept_traces = 0;
    std::size_t kept_trace_bytes = 0;
    std::vector<std::uint64_t> records_since_stream_state;  // per catalog stream
    std::uint64_t records_since_any_state = 0;

    std::shared_ptr<TranscriptFile> transcript;
    bool defer_keyed = false;  // setup.defer_keyed_contents, where the lines can be read again
    SeenIdentities seen_identities;  // of the keyed records whose digest was deferred
    bool every_key_seen = true;      // every keyed record's identity went to seen_identities

    // What a thread that prepares lines uses: a digester per catalog stream, made for a stream's
    // first record (a catalog may list many thousands of streams).
    struct Preparer {
        const Catalog* catalog = nullptr;
        std::vector<std::unique_ptr<json::Digester>> digesters;

        json::Digester& digester(std::uint32_t stream) {
            if (digesters.empty()) {
                digesters.resize(catalog->streams.size());
            }
            auto& digester = digesters[stream];
            if (!digester) {
                digester =
                    std::make_unique<json::Digester>(catalog->streams[stream].volatile_pointers);
            }
            return *digester;
        }
    };
    Preparer caller_preparer;
    Preparer worker_preparer;
    bool validate_data = false;             // a judge reads RecordFacts::schema_violations
    const PreparedLine* current = nullptr;  // the line being judged
    // Records judged but not yet in observation.records, and the checkpoints there: the stores
    // take a lock per call, which costs an atomic operation once a second thread exists.
    std::vector<RecordEntry> unstored;
    std::uint32_t checkpoint_count = 0;

    // Lines in batches (Batch), prepared on two threads and judged in order (docs/ARCHITECTURE.md).
    bool batched = false;
    std::vector<std::unique_ptr<Batch>> batches;
    std::size_t filling = 0;          // the batch lines are added to
    std::size_t in_flight_bytes = 0;  // the lines of the batches submitted and not judged yet
    std::vector<std::size_t> submitted_bytes;  // per batch, its lines' bytes when submitted
    PreparedLine single;                       // a line prepared and judged at once
    std::vector<char> single_chunk = std::vector<char>(64 * 1024);
    rapidjson::MemoryPoolAllocator<> single_pool{single_chunk.data(), single_chunk.size()};
    // Declared last: its worker uses the members above, so it is stopped before they go.
    std::unique_ptr<BatchPipeline> pipeline;

    // The transcript and the spill files of the records and checkpoints are conform's own: they
    // live in unnamed files of conform's temporary folder, never in the run's scratch folder
    // (setup.transcript_path's), which the connector can write and which containers mount.
    explicit Impl(AnalyzerSetup analyzer_setup)
        : setup(std::move(analyzer_setup)),
          reducer(setup.states_are_patches),
          stderr_secrets(setup.secrets) {
        if (!setup.transcript_path.empty()) {
            try {
                transcript = std::make_shared<TranscriptFile>();
            } catch (const Error&) {
                // No room for it: examples go without their surroundings.
            }
            observation.transcript = transcript;
        }
        defer_keyed =
            setup.defer_keyed_contents && (setup.transcript_path.empty() || transcript != nullptr);
        if (setup.catalog != nullptr) {
            for (const auto& stream : setup.catalog->streams) {
                digesters.emplace_back(stream.volatile_pointers);
            }
            observation.max_cursor.resize(setup.catalog->streams.size());
            records_since_stream_state.resize(setup.catalog->streams.size());
        }
        caller_preparer.catalog = setup.catalog;
        worker_preparer.catalog = setup.catalog;
        for (const auto* judge : setup.judges) {
            tallies.push_back(&observation.tallies[std::string(judge->id())]);
            validate_data = validate_data || judge->reads_schema_violations();
        }
        batched = setup.prepare_on_worker && setup.catalog != nullptr;
        if (batched) {
            for (std::size_t i = 0; i < k_batches; ++i) {
                batches.push_back(std::make_unique<Batch>());
            }
            submitted_bytes.resize(k_batches);
            pipeline = std::make_unique<BatchPipeline>(
                k_batches,
                [this](std::size_t slot, bool on_worker) {
                    prepare_batch(*batches[slot], on_worker ? worker_preparer : caller_preparer);
                },
                [this](std::size_t slot) { judge_batch(*batches[slot]); });
        }
    }

    const Secrets& secrets() const {
        return setup.secrets != nullptr ? *setup.secrets : no_secrets;
    }

    // Calls `judge_with(judge, tally)` for every judge, with a tally for line `line`.
    template <typename Visit>
    void dispatch(std::uint64_t line, Visit judge_with) {
        for (std::size_t i = 0; i < setup.judges.size(); ++i) {
            Tally tally(*tallies[i], setup.secrets, line, setup.examples_per_check);
            judge_with(*setup.judges[i], tally);
        }
    }

    void keep_line(std::string_view line) {
        if (transcript) {
            transcript->append_line(line);
        }
    }

    // A line as it arrives: prepared and judged at once, or added to the batch being filled.
    void analyze(std::string_view line, std::uint64_t line_number, bool truncated) {
        if (!batched || line.size() > k_batched_line_bytes) {
            drain();
            single = PreparedLine{};
            single_pool.Clear();
            single.text = line;
            single.number = line_number;
            single.truncated = truncated;
            prepare(single, single_pool, caller_preparer);
            judge_prepared(single);
            store_records();
            // A long line's document is not kept while the lines after it go to batches.
            single = PreparedLine{};
            single_pool.Clear();
            return;
        }
        auto& batch = *batches[filling];
        std::size_t offset = batch.text.size();
        batch.text.append(line);
        auto& added = batch.lines.emplace_back();
        added.text = std::string_view(batch.text).substr(offset);
        added.number = line_number;
        added.truncated = truncated;
        if (batch.full()) {
            submit_filling();
        }
    }

    void store_records() {
        observation.records.append(unstored);
        unstored.clear();
    }

    void submit_filling() {
        hand_over_filling();
        // Every batch is in flight (the next one to fill is the oldest), or enough lines are: the
        // oldest batches are judged first.
        while (pipeline->in_flight() == batches.size() || in_flight_bytes >= k_in_flight_bytes) {
            take_back_oldest_batch();
        }
    }

    void hand_over_filling() {
        submitted_bytes[filling] = batches[filling]->text.size();
        in_flight_bytes += submitted_bytes[filling];
        pipeline->submit(filling);
        filling = (filling + 1) % batches.size();
    }

    // Judges every line received so far, so that the observation is up to date.
    void drain() {
        if (!batched) {
            return;
        }
        if (!batches[filling]->lines.empty()) {
            hand_over_filling();
        }
        while (pipeline->in_flight() > 0) {
            take_back_oldest_batch();
        }
    }

    // Takes back the oldest batch once it is judged (judge_batch, on the thread that prepared it).
    void take_back_oldest_batch() {
        auto taken = pipeline->take_oldest();
        in_flight_bytes -= submitted_bytes[taken.slot];
        if (taken.error) {
            batches[taken.slot]->clear();
            std::rethrow_exception(taken.error);
        }
    }

    void judge_batch(Batch& batch) {
        struct Cleared {
            Batch& batch;
            ~Cleared() { batch.clear(); }
        } cleared{batch};
        for (auto& line : batch.lines) {
            judge_prepared(line);
        }
        store_records();
    }

    void prepare_batch(Batch& batch, Preparer& preparer) {
        for (auto& line : batch.lines) {
            prepare(line, batch.pool, preparer);
        }
    }

    // What a line holds on its own: its parse, duplicate member names, a RECORD's stream and
    // digest, the envelope's and the data's schema violations. It reads only the setup, never
    // what judging lines changes, so the worker can prepare lines the caller has not judged yet.
    void prepare(PreparedLine& line, rapidjson::MemoryPoolAllocator<>& pool, Preparer& preparer) {
        if (line.truncated) {
            return;
        }
        auto* in_place = static_cast<char*>(pool.Malloc(line.text.size() + 1));
        std::memcpy(in_place, line.text.data(), line.text.size());
        in_place[line.text.size()] = '\0';
        rapidjson::Document document(&pool);
        line.parse = parse_untrusted_line(document, line.text, in_place);
        line.object = !line.parse.failed() && document.IsObject();
        if (!line.object) {
            return;
        }
        line.message.Swap(document);
        line.type = json::member(line.message, "type");
        line.duplicate_key = duplicate_key_of(line, preparer);
        line.envelope_valid = is_plain_valid_record(line.message) ||
                              airbyte_message_schema().validate(line.message, &line.violations, 4);
        if (validate_data && line.record) {
            const auto& stream = setup.catalog->streams[line.record->stream];
            if (stream.schema != nullptr && !stream.schema_empty) {
                line.data_validated = true;
                stream.schema->validate(*line.record->data, &line.data_violations,
                                        k_schema_violations_kept);
            }
        }
    }

    // Judges a prepared line, in line order: everything that depends on the lines before it.
    void judge_prepared(PreparedLine& line) {
        ++observation.lines;
        keep_line(line.text);
        scratch.Clear();
        LineFacts facts;
        facts.text = line.text;
        facts.number = line.number;
        facts.truncated = line.truncated;
        if (line.truncated) {
            ++observation.invalid_lines;
            facts.problem = LineProblem{true, "line too long: cut at the size limit, not parsed"};
            judge_line(facts);
        } else if (!line.object) {
            ++observation.invalid_lines;
            auto problem = line.parse.failed() ? classify_parse_error(line.parse) : std::nullopt;
            facts.problem =
                problem ? *problem : LineProblem{false, "not a JSON object: not an AirbyteMessage"};
            judge_line(facts);
        } else {
            facts.duplicate_key = std::move(line.duplicate_key);
            current = &line;
            inspect_message(line.message, facts);
            current = nullptr;
        }
        if (setup.on_progress) {
            setup.on_progress(observation);
        }
    }

    // A RECORD's data is digested here, before the line's judges run, because the canonical
    // walk finds duplicate member names in passing: only the rest of the message is searched.
    std::optional<std::string> duplicate_key_of(PreparedLine& line, Preparer& preparer) const {
        const auto& message = line.message;
        const auto* record = json::member(message, "record");
        const auto* type = line.type;
        if (setup.catalog == nullptr || record == nullptr || type == nullptr || !type->IsString() ||
            string_of(*type) != "RECORD" || !usable_payload("RECORD", message)) {
            return find_duplicate_key(message);
        }
        auto stream_index = stream_of(*record);
        if (!stream_index) {
            return find_duplicate_key(message);
        }
        const auto& data = (*record)["data"];
        line.record = LineRecord{&data, *stream_index, string_of((*record)["stream"]),
                                 json::member(*record, "emitted_at"), std::nullopt};
        if (!digested(setup.catalog->streams[*stream_index])) {
            return find_duplicate_key(message);
        }
        auto checked = preparer.digester(*stream_index).digest_checking_names(data);
        line.record->content = checked.digest;
        if (checked.names.duplicate) {
            return std::move(checked.names.duplicate);
        }
        return find_duplicate_key(message, checked.names.every_object ? &data : nullptr);
    }

    bool digested(const CatalogStream& stream) const {
        return stream.primary_key.empty() ? setup.keyless_contents : !defer_keyed;
    }

    // What stands for the content of a record that is not digested now.
    json::Digest placeholder_of(const CatalogStream& stream, std::uint64_t line) const {
        return stream.primary_key.empty() ? undigested(line) : DeferredContents::placeholder(line);
    }

    // What stands for the content of a record that is not digested: its line, equal to no other.
    static json::Digest undigested(std::uint64_t line) {
        constexpr std::uint64_t k_undigested = 0x756e646967657374ULL;  // "undigest"
        return json::Digest{k_undigested, line};
    }

    void judge_line(const LineFacts& facts) {
        dispatch(facts.number, [&](const LineJudge& judge, Tally& tally) {
            judge.on_line(facts, secrets(), tally);
        });
    }

    void inspect_message(const rapidjson::Value& message, LineFacts& facts) {
        const auto& violations = current->violations;
        bool envelope_valid = current->envelope_valid;
        const auto* type_value = current->type;
        std::string type = type_value != nullptr && type_value->IsString()
                               ? std::string(string_of(*type_value))
                               : std::string();
        bool usable = envelope_valid || usable_payload(type, message);
        facts.state_to_reducer = usable && type == "STATE";
        for (const auto& violation : violations) {
            facts.violations.push_back({part_of(violation.instance_path),
                                        fmt::format("not a valid AirbyteMessage: at '{}': {}",
                                                    violation.instance_path, violation.message)});
        }
        // A wrong emitted_at is AP-READ-3's finding alone; the message stays valid for AP-IO-1.
        bool only_emitted_at = std::all_of(violations.begin(), violations.end(), [](const auto& v) {
            return part_of(v.instance_path) == EnvelopePart::emitted_at;
        });
        if (!envelope_valid && !only_emitted_at) {
            ++observation.invalid_lines;
        }
        facts.type = type;
        facts.known_type = contains(k_known_types, type);
        if (!type.empty() && !facts.known_type) {
            count_unknown_type(type, facts);
        }
        judge_line(facts);
        if (type.empty() || !facts.known_type) {
            return;
        }
        ++observation.type_counts[type];
        if (!envelope_valid && !only_emitted_at && !usable) {
            return;
        }
        if (envelope_valid || only_emitted_at) {
            keep_message(type, message, facts);
        }
        if (type == "RECORD") {
            inspect_record(message["record"], facts);
        } else if (type == "STATE") {
            inspect_state(message["state"], facts, message);
        } else if (type == "TRACE") {
            note_stream_status(message);
        } else if (type == "LOG") {
            note_error_log(message, facts);
        }
    }

    void keep_message(const std::string& type, const rapidjson::Value& message,
                      const LineFacts& facts) {
        if (contains(k_kept_first, type)) {
            if (observation.first_kept(type) == nullptr) {
                observation.kept.push_back({type, facts.number, std::string(facts.text)});
            }
            return;
        }
        if (type != "TRACE" || kept_traces >= k_kept_traces) {
            return;
        }
        ++kept_traces;
        if (kept_trace_bytes + facts.text.size() <= k_kept_trace_bytes) {
            kept_trace_bytes += facts.text.size();
            observation.kept.push_back({type, facts.number, std::string(facts.text)});
            return;
        }
        observation.kept.push_back({type, facts.number, trace_summary(message)});
    }

    // {"type":"TRACE","trace":{"type":T,"error":{"message":M}}} with M cut: valid JSON that
    // says what a long TRACE was without keeping it.
    static std::string trace_summary(const rapidjson::Value& message) {
        const auto* trace = json::member(message, "trace");
        const auto* kind = trace != nullptr ? json::member(*trace, "type") : nullptr;
        const auto* error = trace != nullptr ? json::member(*trace, "error") : nullptr;
        const auto* text = error != nullptr ? json::member(*error, "message") : nullptr;
        rapidjson::Document summary(rapidjson::kObjectType);
        auto& allocator = summary.GetAllocator();
        rapidjson::Value trace_summary(rapidjson::kObjectType);
        if (kind != nullptr && kind->IsString()) {
            std::string name = excerpt(string_of(*kind), k_trace_message_excerpt);
            trace_summary.AddMember("type", rapidjson::Value(name.c_str(), allocator), allocator);
        }
        if (text != nullptr && text->IsString()) {
            std::string cut = valid_utf8(excerpt(string_of(*text), k_trace_message_excerpt));
            rapidjson::Value error_summary(rapidjson::kObjectType);
            error_summary.AddMember("message", rapidjson::Value(cut.c_str(), allocator), allocator);
            trace_summary.AddMember("error", error_summary, allocator);
        }
        summary.AddMember("type", "TRACE", allocator);
        summary.AddMember("trace", trace_summary, allocator);
        return json::to_json(summary);
    }

    // A STREAM_STATUS trace: the stream's status, when it changed.
    void note_stream_status(const rapidjson::Value& message) {
        const auto* trace = json::member(message, "trace");
        const auto* kind = trace ? json::member(*trace, "type") : nullptr;
        if (kind == nullptr || !kind->IsString() || string_of(*kind) != "STREAM_STATUS") {
            return;
        }
        const auto* status = json::member(*trace, "stream_status");
        const auto* descriptor = status ? json::member(*status, "stream_descriptor") : nullptr;
        const auto* name = descriptor ? json::member(*descriptor, "name") : nullptr;
        const auto* value = status ? json::member(*status, "status") : nullptr;
        if (name == nullptr || !name->IsString() || value == nullptr || !value->IsString()) {
            return;
        }
        const auto* name_space = json::member(*descriptor, "namespace");
        std::string stream(string_of(*name));
        if (name_space != nullptr && name_space->IsString()) {
            stream = std::string(string_of(*name_space)) + "." + stream;
        }
        // Keyed by the name as kept (cut), so that a long name is found again.
        std::string key = excerpt(stream, 200);
        auto found = observation.stream_statuses.find(key);
        if (found == observation.stream_statuses.end() &&
            observation.stream_statuses.size() >= Observation::k_status_streams) {
            return;
        }
        auto& statuses = observation.stream_statuses[key];
        if (statuses.empty() || statuses.back() != string_of(*value)) {
            statuses.emplace_back(excerpt(string_of(*value), 40));
        }
    }

    void note_error_log(const rapidjson::Value& message, const LineFacts& facts) {
        const auto* log = json::member(message, "log");
        const auto* level = log ? json::member(*log, "level") : nullptr;
        if (level == nullptr || !level->IsString() ||
            (string_of(*level) != "ERROR" && string_of(*level) != "FATAL")) {
            return;
        }
        if (++observation.error_log_count > k_error_logs_kept) {
            return;
        }
        const auto* text = json::member(*log, "message");
        std::string shown =
            text != nullptr && text->IsString() ? std::string(string_of(*text)) : "";
        observation.error_logs.push_back(
            {std::string(string_of(*level)), facts.number,
             excerpt(setup.secrets != nullptr ? setup.secrets->redact(shown) : shown, 300)});
    }

    void count_unknown_type(const std::string& full_type, LineFacts& facts) {
        // A name is counted by its first bytes: a million distinct 1 MiB names cost 1,000 of
        // these, not gigabytes.
        std::string type = full_type.size() > k_type_name_limit
                               ? excerpt(full_type, k_type_name_limit)
                               : full_type;
        auto found = observation.type_counts.find(type);
        if (found != observation.type_counts.end() ||
            unknown_type_names < Observation::k_unknown_type_names) {
            unknown_type_names += found == observation.type_counts.end() ? 1 : 0;
            ++observation.type_counts[type];
            return;
        }
        facts.counted_apart = true;
        ++observation.type_counts[std::string(Observation::k_other_types)];
    }

    // The catalog stream of a RECORD's `record`, its members read once.
    std::optional<std::uint32_t> stream_of(const rapidjson::Value& record) const {
        const rapidjson::Value* name = nullptr;
        const rapidjson::Value* name_space = nullptr;
        for (const auto& member : record.GetObject()) {
            auto key = string_of(member.name);
            if (key == "stream" && name == nullptr) {
                name = &member.value;
            } else if (key == "namespace" && name_space == nullptr) {
                name_space = &member.value;
            }
        }
        if (name == nullptr || !name->IsString()) {
            return std::nullopt;
        }
        auto index =
            setup.catalog->find(string_of(*name), name_space != nullptr && name_space->IsString()
                                                      ? std::optional(string_of(*name_space))
                                                      : std::nullopt);
        return index ? std::optional(static_cast<std::uint32_t>(*index)) : std::nullopt;
    }

    void inspect_record(const rapidjson::Value& record, const LineFacts& line) {
        observation.last_record_line = line.number;
        if (!observation.first_record_at) {
            observation.first_record_at = now;
        }
        if (observation.mark_set) {
            ++observation.records_after_mark;
        }
        if (setup.catalog == nullptr) {
            return;
        }
        const LineRecord* known = current->record ? &*current->record : nullptr;
        const auto& data = known != nullptr ? *known->data : record["data"];
        RecordFacts facts{line, nullptr,
                          known != nullptr ? known->stream_name : string_of(record["stream"]),
                          data};
        facts.emitted_at =
            known != nullptr ? known->emitted_at : json::member(record, "emitted_at");
        if (known != nullptr && current->data_validated) {
            facts.schema_violations = &current->data_violations;
        }
        auto stream_index = known != nullptr ? std::optional(known->stream) : stream_of(record);
        if (!stream_index) {
            judge_record(facts);
            return;
        }
        const auto& stream = setup.catalog->streams[*stream_index];
        facts.stream = &stream;
        RecordEntry entry;
        entry.stream = *stream_index;
        entry.line = line.number;
        entry.checkpoint = checkpoint_count;
        const auto* early = known != nullptr && known->content ? &*known->content : nullptr;
        bool deferred = early == nullptr && !digested(stream);
        entry.content = early != nullptr ? *early
                        : deferred       ? placeholder_of(stream, line.number)
                                         : digesters[*stream_index].digest(data);
        bool has_key = read_primary_key(stream, data, entry, facts);
        if (deferred && has_key && seen_identities.add(entry.identity)) {
            entry.content = digesters[*stream_index].digest(data);
        }
        every_key_seen = every_key_seen && (deferred || !has_key);
        entry.identity = has_key ? entry.identity : entry.content;
        entry.key_missing = facts.missing_key.has_value();
        observation.records_without_key += entry.key_missing ? 1 : 0;
        entry.projected = projected_digest(*stream_index, data).value_or(entry.content);
        note_unprojected(*stream_index, data, line.number);
        if (stream.incremental()) {
            read_cursor(stream, *stream_index, data, facts);
        }
        judge_record(facts);
        unstored.push_back(std::move(entry));
        ++records_since_stream_state[*stream_index];
        ++records_since_any_state;
    }

    void judge_record(const RecordFacts& facts) {
        dispatch(facts.line.number,
                 [&](const LineJudge& judge, Tally& tally) { judge.on_record(facts, tally); });
    }

    // Sets entry.identity and entry.key from the primary key; false when the stream has none or
    // the record lacks a key field (facts.missing_key says which).
    bool read_primary_key(const CatalogStream& stream, const rapidjson::Value& data,
                          RecordEntry& entry, RecordFacts& facts) {
        if (stream.primary_key.empty()) {
            return false;
        }
        rapidjson::Value keyed(rapidjson::kArrayType);
        auto read = read_key(entry.stream, stream, data, keyed, scratch);
        if (read.missing != nullptr) {
            facts.missing_key = to_pointer(*read.missing);
            facts.null_key = read.null;
            return false;
        }
        if (read.structured != nullptr && !facts.structured_key) {
            facts.structured_key = to_pointer(*read.structured);
        }
        entry.identity = key_digester.digest(keyed);
        entry.key = key_text(keyed[1]);
        return true;
    }

    // The digest of `data` after conform applies the stream's projections; none without any.
    std::optional<json::Digest> projected_digest(std::uint32_t stream_index,
                                                 const rapidjson::Value& data) {
        if (setup.apply_projections.size() <= stream_index ||
            setup.apply_projections[stream_index].empty()) {
            return std::nullopt;
        }
        rapidjson::Value copy(data, scratch);
        estuary::apply_projections(copy, setup.apply_projections[stream_index], scratch);
        return digesters[stream_index].digest(copy);
    }

    void note_unprojected(std::uint32_t stream_index, const rapidjson::Value& data,
                          std::uint64_t line) {
        if (setup.expect_projections.size() <= stream_index) {
            return;
        }
        const auto& projections = setup.expect_projections[stream_index];
        for (const auto& field : estuary::unapplied_projections(data, projections)) {
            if (observation.unprojected.size() < setup.examples_per_check) {
                auto at = std::find_if(projections.begin(), projections.end(),
                                       [&field](const auto& p) { return p.first == field; });
                observation.unprojected.push_back({line, field, at->second});
            }
            ++observation.unprojected_count;
        }
    }

    void read_cursor(const CatalogStream& stream, std::uint32_t stream_index,
                     const rapidjson::Value& data, RecordFacts& facts) {
        if (stream.cursor_field.empty()) {
            return;
        }
        facts.cursor_expected = true;
        const auto* value = find_path(data, stream.cursor_field);
        if (value == nullptr) {
            facts.cursor_missing = true;
            return;
        }
        facts.cursor = cursor_of(*value);
        if (!facts.cursor) {
            return;
        }
        auto& max = observation.max_cursor[stream_index];
        if (!max || facts.cursor->compare(*max).value_or(0) > 0) {
            max = facts.cursor;
        }
        if (setup.cursor_floor.size() > stream_index) {
            const auto& floor = setup.cursor_floor[stream_index];
            facts.floor = floor ? &*floor : nullptr;
        }
    }

    // The RECORDs since the previous STATE that commits what `state` commits; resets the count.
    std::optional<std::uint64_t> records_since(const rapidjson::Value& state) {
        if (setup.catalog == nullptr) {
            return std::nullopt;
        }
        auto stream = committed_stream(state);
        if (!stream) {
            auto since = records_since_any_state;
            records_since_any_state = 0;
            std::fill(records_since_stream_state.begin(), records_since_stream_state.end(), 0);
            return since;
        }
        if (!*stream) {
            return std::nullopt;
        }
        auto since = records_since_stream_state[**stream];
        records_since_stream_state[**stream] = 0;
        return since;
    }

    void inspect_state(const rapidjson::Value& state, const LineFacts& line,
                       const rapidjson::Value& state_message) {
        observation.last_state_line = line.number;
        bool merge_patch = setup.states_are_patches || estuary::has_merge_flag(state);
        if (merge_patch) {
            ++observation.merge_states;
        }
        auto problems = reducer.apply(state);
        StateFacts facts{line, problems, merge_patch, &state_message, records_since(state)};
        dispatch(line.number,
                 [&](const LineJudge& judge, Tally& tally) { judge.on_state(facts, tally); });
        bool refused = std::any_of(problems.begin(), problems.end(),
                                   [](const auto& problem) { return !problem.advisory; });
        // A malformed STATE the reducer refused is no checkpoint: nothing could resume from it.
        // The state it left unchanged is the one the last checkpoint recorded.
        auto materialized = reducer.materialized_json();
        const auto& checkpoints = observation.checkpoints;
        if (refused && (checkpoints.empty() ? materialized.empty()
                                            : checkpoints.back().materialized == materialized)) {
            return;
        }
        Checkpoint checkpoint;
        checkpoint.line = line.number;
        store_records();
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
        ++checkpoint_count;
    }

    // For a STREAM state, the catalog stream it names (nullopt inside when none); nullopt for a
    // state that commits every stream (legacy, GLOBAL).
    std::optional<std::optional<std::size_t>> committed_stream(
        const rapidjson::Value& state) const {
        const auto* stream = json::member(state, "stream");
        const auto* type = json::member(state, "type");
        bool per_stream = (type != nullptr && type->IsString() && string_of(*type) == "STREAM") ||
                          (type == nullptr && stream != nullptr);
        if (!per_stream) {
            return std::nullopt;
        }
        const auto* descriptor = stream ? json::member(*stream, "stream_descriptor") : nullptr;
        const auto* name = descriptor ? json::member(*descriptor, "name") : nullptr;
        if (setup.catalog == nullptr || name == nullptr || !name->IsString()) {
            return std::optional<std::size_t>{};
        }
        const auto* name_space = json::member(*descriptor, "namespace");
        return setup.catalog->find(string_of(*name), name_space && name_space->IsString()
                                                         ? std::optional(string_of(*name_space))
                                                         : std::nullopt);
    }

    void judge_end(const process::RunResult& result) {
        EndFacts facts;
        facts.secrets_known = setup.secrets != nullptr && !setup.secrets->empty();
        facts.secret_on_stderr =
            setup.secrets != nullptr &&
            (stderr_secrets.found() || setup.secrets->found_in(result.stderr_text));
        facts.stderr_text = result.stderr_text;
        facts.other_types = observation.count(std::string(Observation::k_other_types));
        dispatch(0, [&](const LineJudge& judge, Tally& tally) { judge.on_end(facts, tally); });
    }
};

std::optional<PrimaryKey> primary_key_of(std::uint32_t stream_index, const CatalogStream& stream,
                                         const rapidjson::Value& data) {
    if (stream.primary_key.empty()) {
        return std::nullopt;
    }
    rapidjson::Document keyed;
    if (read_key(stream_index, stream, data, keyed, keyed.GetAllocator()).missing != nullptr) {
        return std::nullopt;
    }
    return PrimaryKey{json::Digester().digest(keyed), key_text(keyed[1])};
}

bool prepare_on_worker_by_default() {
    const char* threads = std::getenv("CONFORM_ANALYSIS_THREADS");
    if (threads == nullptr || *threads == '\0') {
        return std::thread::hardware_concurrency() > 1;
    }
    std::string_view value(threads);
    if (value != "1" && value != "2") {
        throw Error(ErrorKind::usage,
                    fmt::format("CONFORM_ANALYSIS_THREADS is '{}': expected 1 (lines analysed on "
                                "one thread) or 2 (a worker thread as well)",
                                excerpt(value, 40)));
    }
    return value == "2";
}

Tally::Tally(LineTally& tally, const Secrets* secrets, std::uint64_t line, std::size_t examples)
    : m_tally(tally), m_secrets(secrets), m_line(line), m_examples(examples) {}

void Tally::keep(std::string message, std::string_view seen, bool advisory) {
    if (m_tally.failures + m_tally.advisories > m_examples) {
        return;
    }
    // Masked whole, then cut, so that no part of a secret survives the cut; a message naming
    // what the connector sent (a stream, a type) is cut too: it is copied into every example.
    bool masks = m_secrets != nullptr && !m_secrets->empty();
    auto shown = excerpt(masks ? m_secrets->redact(seen) : seen, k_example_excerpt);
    std::string text = masks ? m_secrets->redact(message) : std::move(message);
    m_tally.examples.push_back(
        {excerpt(text, k_example_message), m_line, std::move(shown), advisory});
}

void Tally::fail(std::string message, std::string_view seen) {
    ++m_tally.failures;
    keep(std::move(message), seen, false);
}

void Tally::advise(std::string message, std::string_view seen) {
    ++m_tally.advisories;
    keep(std::move(message), seen, true);
}

void Tally::headline(std::string message) {
    m_tally.examples.insert(m_tally.examples.begin(), Finding{std::move(message), 0, "", false});
}

Analyzer::Analyzer(AnalyzerSetup setup) : m_impl(std::make_unique<Impl>(std::move(setup))) {}

Analyzer::~Analyzer() = default;

process::Decision Analyzer::on_stdout_line(std::string_view line, std::uint64_t line_number,
                                           bool truncated) {
    m_impl->analyze(line, line_number, truncated);
    return process::Decision::keep_going;
}

process::Decision Analyzer::on_tick(std::chrono::milliseconds elapsed) {
    m_impl->drain();
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
    m_impl->drain();
    m_impl->observation.mark_set = true;
    m_impl->observation.mark_line = m_impl->observation.lines;
}

Observation Analyzer::finish(process::RunResult result) {
    auto& impl = *m_impl;
    impl.drain();
    if (impl.transcript) {
        impl.transcript->flush();
    }
    impl.judge_end(result);
    if (impl.setup.secrets != nullptr) {
        result.stderr_text = impl.setup.secrets->redact(result.stderr_text);
    }
    impl.observation.process = std::move(result);
    if (impl.defer_keyed && impl.setup.catalog != nullptr) {
        std::vector<json::Digester> digesters;
        for (const auto& stream : impl.setup.catalog->streams) {
            digesters.emplace_back(stream.volatile_pointers);
        }
        impl.observation.deferred_contents = std::make_shared<DeferredContents>(
            std::move(digesters), process::LaunchSpec{}.max_line_bytes,
            impl.every_key_seen ? impl.seen_identities.maybe_repeated() : std::nullopt);
    }
    return std::move(impl.observation);
}

const Observation& Analyzer::observation() const {
    // Lines still in batches are judged first: the observation is of every line received.
    m_impl->drain();
    return m_impl->observation;
}

}  // namespace conform::protocol
