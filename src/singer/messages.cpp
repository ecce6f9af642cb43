#include "singer/messages.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "json/bounded_parse.hpp"
#include "json/digest.hpp"
#include "json/member.hpp"
#include "json/write.hpp"
#include "protocol/instant.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::singer {

namespace {

constexpr std::size_t k_examples = 5;
constexpr std::size_t k_stdout_kept = 1024 * 1024;
constexpr int k_max_schema_depth = 500;

void draft7_at(rapidjson::Value& schema, rapidjson::Document::AllocatorType& alloc, int depth);

void each_subschema(rapidjson::Value& schema, rapidjson::Document::AllocatorType& alloc,
                    int depth) {
    for (const char* name : {"properties", "patternProperties", "definitions", "dependencies"}) {
        auto it = schema.FindMember(name);
        if (it != schema.MemberEnd() && it->value.IsObject()) {
            for (auto& member : it->value.GetObject()) {
                draft7_at(member.value, alloc, depth + 1);
            }
        }
    }
    for (const char* name : {"additionalProperties", "additionalItems", "not", "items"}) {
        auto it = schema.FindMember(name);
        if (it != schema.MemberEnd()) {
            draft7_at(it->value, alloc, depth + 1);
        }
    }
    for (const char* name : {"allOf", "anyOf", "oneOf", "items"}) {
        auto it = schema.FindMember(name);
        if (it != schema.MemberEnd() && it->value.IsArray()) {
            for (auto& item : it->value.GetArray()) {
                draft7_at(item, alloc, depth + 1);
            }
        }
    }
}

// Draft-04's {"maximum": 5, "exclusiveMaximum": true} is draft-07's {"exclusiveMaximum": 5}.
void exclusive_bound(rapidjson::Value& schema, const char* bound, const char* exclusive,
                     rapidjson::Document::AllocatorType& alloc) {
    auto flag = schema.FindMember(exclusive);
    if (flag == schema.MemberEnd() || !flag->value.IsBool()) {
        return;
    }
    bool on = flag->value.GetBool();
    schema.RemoveMember(exclusive);
    auto limit = schema.FindMember(bound);
    if (on && limit != schema.MemberEnd() && limit->value.IsNumber()) {
        rapidjson::Value value(limit->value, alloc);
        schema.RemoveMember(bound);
        schema.AddMember(rapidjson::Value(exclusive, alloc), value, alloc);
    }
}

// Draft-04 has no `time` format, and Singer's writers emit it without an offset (the Meltano SDK
// types TIME columns `{"format": "time"}` and writes Python's time.isoformat(), PipelineWise's
// tap-postgres "11:51:00"): the time is checked, its offset left optional, the rule Airbyte's
// `airbyte_type: time_without_timezone` selects in conform's validator.
void time_offset_optional(rapidjson::Value& schema, rapidjson::Document::AllocatorType& alloc) {
    auto format = schema.FindMember("format");
    if (format != schema.MemberEnd() && format->value.IsString() &&
        std::string_view(format->value.GetString()) == "time" &&
        !schema.HasMember("airbyte_type")) {
        schema.AddMember("airbyte_type", "time_without_timezone", alloc);
    }
}

void draft7_at(rapidjson::Value& schema, rapidjson::Document::AllocatorType& alloc, int depth) {
    if (!schema.IsObject() || depth > k_max_schema_depth) {
        return;
    }
    exclusive_bound(schema, "maximum", "exclusiveMaximum", alloc);
    exclusive_bound(schema, "minimum", "exclusiveMinimum", alloc);
    auto id = schema.FindMember("id");
    if (id != schema.MemberEnd() && id->value.IsString() && !schema.HasMember("$id")) {
        rapidjson::Value value(id->value, alloc);
        schema.RemoveMember("id");
        schema.AddMember("$id", value, alloc);
    }
    auto meta = schema.FindMember("$schema");
    if (meta != schema.MemberEnd()) {
        schema.RemoveMember("$schema");
    }
    time_offset_optional(schema, alloc);
    each_subschema(schema, alloc, depth);
}

std::string upper(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

std::string string_of(const rapidjson::Value* value) {
    return value != nullptr && value->IsString() ? std::string(value->GetString()) : std::string();
}

// What the message of `type` lacks, or "".
std::string shape_problem(const std::string& type, const rapidjson::Value& message) {
    auto needs_string = [&message](const char* name) {
        const auto* value = json::member(message, name);
        return value == nullptr || !value->IsString();
    };
    if (type == "SCHEMA") {
        if (needs_string("stream")) {
            return "a SCHEMA needs a string \"stream\"";
        }
        const auto* schema = json::member(message, "schema");
        if (schema == nullptr || !(schema->IsObject() || schema->IsBool())) {
            return "a SCHEMA needs a \"schema\" (a JSON Schema)";
        }
        const auto* keys = json::member(message, "key_properties");
        if (keys == nullptr || !keys->IsArray()) {
            return "a SCHEMA needs \"key_properties\" (an array, which may be empty)";
        }
        for (const auto& key : keys->GetArray()) {
            if (!key.IsString()) {
                return "\"key_properties\" must hold strings";
            }
        }
        const auto* bookmarks = json::member(message, "bookmark_properties");
        if (bookmarks != nullptr && !bookmarks->IsArray() && !bookmarks->IsNull()) {
            return "\"bookmark_properties\" must be an array";
        }
    } else if (type == "RECORD") {
        if (needs_string("stream")) {
            return "a RECORD needs a string \"stream\"";
        }
        const auto* record = json::member(message, "record");
        if (record == nullptr || !record->IsObject()) {
            return "a RECORD needs a \"record\" object";
        }
        const auto* extracted = json::member(message, "time_extracted");
        if (extracted != nullptr && !extracted->IsString() && !extracted->IsNull()) {
            return "\"time_extracted\" must be an RFC 3339 string";
        }
    } else if (type == "STATE") {
        if (json::member(message, "value") == nullptr) {
            return "a STATE needs a \"value\"";
        }
    } else if (type == "ACTIVATE_VERSION") {
        if (needs_string("stream")) {
            return "an ACTIVATE_VERSION needs a string \"stream\"";
        }
        const auto* version = json::member(message, "version");
        if (version == nullptr || !version->IsInt64()) {
            return "an ACTIVATE_VERSION needs an integer \"version\"";
        }
    } else if (type == "BATCH") {
        if (needs_string("stream")) {
            return "a BATCH needs a string \"stream\"";
        }
        const auto* encoding = json::member(message, "encoding");
        if (encoding == nullptr || !encoding->IsObject() ||
            string_of(json::member(*encoding, "format")).empty()) {
            return "a BATCH needs an \"encoding\" with a \"format\"";
        }
        const auto* manifest = json::member(message, "manifest");
        if (manifest == nullptr || !manifest->IsArray()) {
            return "a BATCH needs a \"manifest\" array of file URIs";
        }
    }
    return {};
}

std::string bookmark_key(const Bookmark& bookmark) {
    return bookmark.partition.empty() ? bookmark.stream
                                      : bookmark.stream + " " + bookmark.partition;
}

}  // namespace

void to_draft7(rapidjson::Value& schema, rapidjson::Document::AllocatorType& alloc) {
    draft7_at(schema, alloc, 0);
}

std::optional<protocol::CursorValue> cursor_of(const rapidjson::Value& value) {
    if (value.IsNumber()) {
        return protocol::CursorValue{value.GetDouble(), std::nullopt};
    }
    if (value.IsString()) {
        return protocol::CursorValue{std::nullopt, std::string(value.GetString())};
    }
    return std::nullopt;
}

std::pair<const protocol::CursorValue*, const StreamFloor::Partition*> StreamFloor::for_record(
    const rapidjson::Value& record) const {
    std::pair<const protocol::CursorValue*, const Partition*> found{&lowest, nullptr};
    // Each context member's value in the record as canonical JSON, once per record however many
    // partitions name it (a tap keeps one per project, repository, ...).
    std::map<std::string_view, std::optional<std::string>> canonical;
    auto field_of = [&](const std::string& name) -> const std::optional<std::string>& {
        auto [at, fresh] = canonical.try_emplace(name);
        if (fresh) {
            if (const auto* field = json::member(record, name.c_str()); field != nullptr) {
                at->second = json::to_canonical_json(*field);
            }
        }
        return at->second;
    };
    for (const auto& partition : partitions) {
        bool agrees = true;
        bool shares = false;
        for (const auto& [name, value] : partition.context) {
            if (const auto& field = field_of(name)) {
                shares = true;
                agrees = agrees && *field == value;
            }
        }
        if (partition.named_by_field && record.IsObject()) {
            shares = std::any_of(record.MemberBegin(), record.MemberEnd(), [&](const auto& field) {
                return field.value.IsString() && partition.label == field.value.GetString();
            });
        }
        if (agrees && shares &&
            (found.second == nullptr || partition.value.compare(*found.first).value_or(0) < 0)) {
            found = {&partition.value, &partition};
        }
    }
    return found;
}

const rapidjson::Value* keyed_partition_bookmark(const rapidjson::Value& holder) {
    if (!holder.IsObject() || holder.MemberCount() != 1) {
        return nullptr;
    }
    const auto& value = holder.MemberBegin()->value;
    return value.IsString() && protocol::parse_instant(value.GetString()) ? &value : nullptr;
}

namespace {

void read_keyed_partitions(const rapidjson::Value& stream_bookmark, const std::string& stream,
                           std::vector<Bookmark>& found) {
    for (const auto& member : stream_bookmark.GetObject()) {
        if (const auto* value = keyed_partition_bookmark(member.value)) {
            found.push_back({stream, member.name.GetString(),
                             protocol::CursorValue{std::nullopt, value->GetString()}});
        }
    }
}

}  // namespace

std::string bookmark_key(const rapidjson::Value& bookmarks, const CatalogStream& stream) {
    if (bookmarks.IsObject() && !bookmarks.HasMember(stream.tap_stream_id.c_str()) &&
        bookmarks.HasMember(stream.stream.c_str())) {
        return stream.stream;
    }
    return stream.tap_stream_id;
}

std::vector<Bookmark> bookmarks_of(const rapidjson::Value& state_value,
                                   const std::map<std::string, std::string>& replication_keys,
                                   const Catalog* catalog) {
    std::vector<Bookmark> found;
    const auto* bookmarks = json::member(state_value, "bookmarks");
    if (bookmarks == nullptr || !bookmarks->IsObject()) {
        return found;
    }
    for (const auto& entry : bookmarks->GetObject()) {
        std::string stream = entry.name.GetString();
        if (const auto* named = catalog != nullptr ? catalog->find(stream) : nullptr) {
            stream = named->stream;
        }
        auto key = replication_keys.find(stream);
        auto read = [&](const rapidjson::Value& holder, std::string partition) {
            const auto* value = json::member(holder, "replication_key_value");
            if (value == nullptr && key != replication_keys.end()) {
                value = json::member(holder, key->second.c_str());
            }
            if (value != nullptr) {
                if (auto cursor = cursor_of(*value)) {
                    found.push_back({stream, std::move(partition), *cursor});
                }
            }
        };
        auto before = found.size();
        read(entry.value, "");
        const auto* partitions = json::member(entry.value, "partitions");
        if (partitions != nullptr && partitions->IsArray()) {
            for (const auto& partition : partitions->GetArray()) {
                const auto* context = json::member(partition, "context");
                read(partition, context != nullptr ? json::to_canonical_json(*context) : "{}");
            }
        }
        if (found.size() == before && entry.value.IsObject()) {
            read_keyed_partitions(entry.value, stream, found);
        }
    }
    return found;
}

std::map<std::string, std::set<std::int64_t>> TapRun::activated_before(
    std::size_t state_index) const {
    std::map<std::string, std::set<std::int64_t>> versions;
    for (const auto& activation : activations) {
        if (activation.states_before <= state_index) {
            versions[activation.stream].insert(activation.version);
        }
    }
    return versions;
}

std::string TapRun::outcome() const {
    if (!started) {
        return "could not start: " + start_error;
    }
    if (timed_out) {
        return fmt::format("timed out after {:.1f} s",
                           static_cast<double>(process.elapsed.count()) / 1000);
    }
    return process.exit.describe();
}

std::vector<Bookmark> TapRun::final_bookmarks() const {
    return states.empty() ? std::vector<Bookmark>{} : states.back().bookmarks;
}

struct Reader::Impl {
    ReaderSetup setup;
    TapRun& run;
    rapidjson::Document document;
    json::Digester digester;
    std::map<std::string, StreamSchema> schemas;
    std::map<std::string, std::string, std::less<>> catalog_names;  // by the name messages use
    std::map<std::string, std::int64_t> versions;  // the latest ACTIVATE_VERSION per stream
    std::map<std::string, std::set<std::int64_t>> activated;
    std::map<std::string, std::int64_t> last_record_versions;
    std::map<std::string, protocol::CursorValue> last_bookmarks;
    std::set<std::string> full_table_record_streams;
    std::optional<protocol::SecretStreamScanner> stderr_scanner;
    bool final_progress_known = false;
    std::string final_state;
    std::vector<std::string> progress_markers;
    struct PendingBatch {
        std::string stream;
        std::uint64_t line;
        std::string format;
        std::string compression;
        std::vector<std::string> manifest;
    };
    std::vector<PendingBatch> batches;

    Impl(ReaderSetup reader_setup, TapRun& target) : setup(std::move(reader_setup)), run(target) {
        if (setup.secrets != nullptr && !setup.secrets->empty()) {
            stderr_scanner.emplace(setup.secrets);
        }
        if (!setup.scratch.empty()) {
            run.records.records.set_folder(setup.scratch);
        }
        run.records.label = run.label;
        activated = setup.activated;
    }

    template <typename Visit>
    void judge(std::uint64_t line, Visit visit) {
        for (const auto* judge : setup.judges) {
            Tally tally(run.tallies[std::string(judge->id())], setup.secrets, line, k_examples);
            visit(*judge, tally);
        }
    }

    // The stream a message names, as the catalog names it (Catalog::stream_name_of), looked up
    // once per name rather than per message.
    std::string stream_of(const rapidjson::Value& message) {
        std::string_view name = message["stream"].GetString();
        if (setup.catalog == nullptr) {
            return std::string(name);
        }
        auto known = catalog_names.find(name);
        if (known == catalog_names.end()) {
            known = catalog_names.emplace(name, setup.catalog->stream_name_of(name)).first;
        }
        return known->second;
    }

    void on_schema(const LineFacts& facts, const rapidjson::Value& message) {
        auto stream = stream_of(message);
        StreamSchema compiled;
        compiled.key_properties = strings_member(message, "key_properties");
        compiled.bookmark_properties = strings_member(message, "bookmark_properties");
        rapidjson::Document copy;
        copy.CopyFrom(message["schema"], copy.GetAllocator());
        to_draft7(copy, copy.GetAllocator());
        if (const auto* properties = json::member(copy, "properties");
            properties != nullptr && properties->IsObject()) {
            for (const auto& property : properties->GetObject()) {
                compiled.properties.emplace_back(property.name.GetString());
            }
        }
        try {
            compiled.compiled =
                std::make_shared<const schema::Schema>(schema::Schema::compile(copy));
        } catch (const Error& error) {
            compiled.problem = error.what();
        }
        auto& seen = run.streams[stream];
        ++seen.schemas;
        if (std::find(run.schema_streams.begin(), run.schema_streams.end(), stream) ==
            run.schema_streams.end()) {
            run.schema_streams.push_back(stream);
        }
        const auto& kept = schemas[stream] = std::move(compiled);
        SchemaFacts schema_facts{facts, stream, kept};
        judge(facts.number, [&](const MessageJudge& judge, Tally& tally) {
            judge.on_schema(schema_facts, tally);
        });
    }

    void keep_record(const std::string& stream, const rapidjson::Value& record,
                     const StreamSchema* schema, const LineFacts& facts) {
        protocol::RecordEntry entry;
        entry.line = facts.number;
        entry.checkpoint = static_cast<std::uint32_t>(run.state_count);
        entry.stream = setup.catalog != nullptr ? setup.catalog->index_of(stream) : 0;
        entry.content = digester.digest(record);
        entry.identity = entry.content;
        // Without a SCHEMA yet (sg.schema_before_record's finding), the catalog's keys.
        const std::vector<std::string>* keys =
            schema != nullptr ? &schema->key_properties : nullptr;
        const auto* known = setup.catalog != nullptr ? setup.catalog->find(stream) : nullptr;
        if (keys == nullptr && known != nullptr) {
            keys = &known->key_properties;
        }
        if (keys != nullptr && !keys->empty()) {
            rapidjson::Document key(rapidjson::kArrayType);
            for (const auto& name : *keys) {
                const auto* value = json::member(record, name.c_str());
                rapidjson::Value copy;
                if (value != nullptr) {
                    copy.CopyFrom(*value, key.GetAllocator());
                }
                // sg.key_properties_present's finding: no identity to compare across syncs.
                entry.key_missing = entry.key_missing || value == nullptr || value->IsNull();
                key.PushBack(copy, key.GetAllocator());
            }
            entry.identity = digester.digest(key);
            entry.key = excerpt(json::to_json(key), 120);
        }
        run.records.records.push_back(entry);
    }

    void track_stream(const std::string& stream, const rapidjson::Value& record,
                      const LineFacts& facts) {
        auto& seen = run.streams[stream];
        if (seen.records++ == 0) {
            seen.first_record_line = facts.number;
            run.stream_order.push_back(stream);
        }
        seen.last_record_line = facts.number;
        std::set<std::string> fields;
        for (const auto& field : record.GetObject()) {
            fields.emplace(field.name.GetString());
        }
        seen.fields.insert(fields.begin(), fields.end());
        if (!seen.always) {
            seen.always = fields;
        } else {
            std::erase_if(*seen.always,
                          [&fields](const std::string& field) { return !fields.contains(field); });
        }
        auto key = setup.replication_keys.find(stream);
        if (key == setup.replication_keys.end()) {
            return;
        }
        const auto* value = json::member(record, key->second.c_str());
        auto cursor = value != nullptr ? cursor_of(*value) : std::nullopt;
        if (!cursor) {
            seen.key_missing = true;
            return;
        }
        if (!seen.min_key || cursor->compare(*seen.min_key).value_or(0) < 0) {
            seen.min_key = cursor;
        }
        if (!seen.max_key || cursor->compare(*seen.max_key).value_or(0) > 0) {
            seen.max_key = cursor;
        }
        if (seen.keys.size() < TapRun::k_kept_keys) {
            seen.keys.push_back(*cursor);
        } else {
            seen.keys_complete = false;
        }
        auto floor = setup.floors.find(stream);
        if (floor == setup.floors.end()) {
            return;
        }
        const auto held_to = floor->second.for_record(record);
        const auto* floor_value = held_to.first;
        const auto* partition = held_to.second;
        auto order = cursor->compare(*floor_value);
        auto example = [&] {
            auto text =
                fmt::format("line {}: {} = {}", facts.number, key->second, cursor->describe());
            if (partition != nullptr) {
                text += fmt::format(" (partition {}: bookmark {})", partition->label,
                                    floor_value->describe());
            }
            return text;
        };
        if (order && *order < 0) {
            if (seen.below_floor++ == 0) {
                seen.below_example = example();
            }
        } else if (order && *order == 0) {
            if (seen.at_floor++ == 0) {
                seen.at_example = example();
            }
        }
    }

    void track_version(StreamSeen& seen, std::optional<std::int64_t> version) const {
        auto checkpoint = static_cast<std::uint32_t>(run.state_count);
        if (!seen.versions.empty() && seen.versions.back().version == version) {
            seen.versions.back().last_checkpoint = checkpoint;
        } else if (seen.versions.size() < StreamSeen::k_kept_spans) {
            seen.versions.push_back({version, checkpoint, checkpoint});
        } else {
            seen.versions_complete = false;
        }
    }

    void on_record(const LineFacts& facts, const rapidjson::Value& message) {
        auto stream = stream_of(message);
        const auto& record = message["record"];
        auto found = schemas.find(stream);
        const StreamSchema* schema = found == schemas.end() ? nullptr : &found->second;
        ++run.record_count;
        keep_record(stream, record, schema, facts);
        track_stream(stream, record, facts);
        RecordFacts record_facts{facts, stream, record, schema, {}, {}, {}, false};
        if (schema != nullptr && schema->compiled && !schema->compiled->validate(record)) {
            schema->compiled->validate(record, &record_facts.violations, 5);
        }
        if (const auto* version = json::member(message, "version");
            version != nullptr && !version->IsNull()) {
            if (version->IsInt64()) {
                record_facts.version = version->GetInt64();
                last_record_versions[stream] = *record_facts.version;
            } else {
                record_facts.version_not_integer = true;
            }
        }
        if (auto active = versions.find(stream); active != versions.end()) {
            record_facts.active_version = active->second;
        }
        track_version(run.streams[stream], record_facts.version);
        if (setup.full_table_streams.contains(stream)) {
            full_table_record_streams.insert(stream);
        }
        judge(facts.number, [&](const MessageJudge& judge, Tally& tally) {
            judge.on_record(record_facts, tally);
        });
    }

    void on_state(const LineFacts& facts, const rapidjson::Value& message) {
        const auto& value = message["value"];
        StateSeen state;
        state.line = facts.number;
        state.records_before = run.record_count;
        state.value = json::to_canonical_json(value);
        state.bookmarks = bookmarks_of(value, setup.replication_keys, setup.catalog);
        if (const auto* syncing = json::member(value, "currently_syncing");
            syncing != nullptr && syncing->IsString()) {
            run.named_currently_syncing.insert(syncing->GetString());
        }
        StateFacts state_facts{facts, value, state.bookmarks.size(), {}};
        std::map<std::string, protocol::CursorValue> now;
        for (const auto& bookmark : state.bookmarks) {
            auto key = bookmark_key(bookmark);
            auto before = last_bookmarks.find(key);
            if (before != last_bookmarks.end()) {
                auto order = bookmark.value.compare(before->second);
                if (order && *order < 0) {
                    state_facts.regressions.emplace_back(
                        Bookmark{bookmark.stream, bookmark.partition, before->second}, bookmark);
                }
            }
            now[key] = bookmark.value;
        }
        for (auto& [key, cursor] : now) {
            last_bookmarks[key] = cursor;
        }
        progress_markers.clear();
        if (const auto* bookmarks = json::member(value, "bookmarks");
            bookmarks != nullptr && bookmarks->IsObject()) {
            for (const auto& entry : bookmarks->GetObject()) {
                bool unfinished = json::member(entry.value, "progress_markers") != nullptr;
                const auto* partitions = json::member(entry.value, "partitions");
                if (partitions != nullptr && partitions->IsArray()) {
                    for (const auto& partition : partitions->GetArray()) {
                        unfinished =
                            unfinished || json::member(partition, "progress_markers") != nullptr;
                    }
                }
                if (unfinished) {
                    progress_markers.emplace_back(entry.name.GetString());
                }
            }
        }
        final_state = state.value;
        ++run.state_count;
        if (run.states.size() < TapRun::k_kept_states) {
            run.states.push_back(std::move(state));
        }
        judge(facts.number,
              [&](const MessageJudge& judge, Tally& tally) { judge.on_state(state_facts, tally); });
    }

    void on_activate_version(const LineFacts& facts, const rapidjson::Value& message) {
        auto stream = stream_of(message);
        ActivateVersionFacts version_facts{facts, stream, message["version"].GetInt64(), {}};
        if (auto previous = versions.find(stream); previous != versions.end()) {
            version_facts.previous = previous->second;
        }
        versions[stream] = *version_facts.version;
        activated[stream].insert(*version_facts.version);
        run.streams[stream].activated = version_facts.version;
        if (run.activations.size() < TapRun::k_kept_states) {
            run.activations.push_back({stream, *version_facts.version, run.state_count});
        }
        judge(facts.number, [&](const MessageJudge& judge, Tally& tally) {
            judge.on_activate_version(version_facts, tally);
        });
    }

    void on_batch(const LineFacts& facts, const rapidjson::Value& message) {
        auto stream = stream_of(message);
        auto found = schemas.find(stream);
        BatchFacts batch{facts, stream, message, found == schemas.end() ? nullptr : &found->second};
        PendingBatch pending{stream,
                             facts.number,
                             string_of(json::member(message["encoding"], "format")),
                             string_of(json::member(message["encoding"], "compression")),
                             {}};
        for (const auto& uri : message["manifest"].GetArray()) {
            pending.manifest.emplace_back(uri.IsString() ? uri.GetString() : "");
        }
        batches.push_back(std::move(pending));
        judge(facts.number,
              [&](const MessageJudge& judge, Tally& tally) { judge.on_batch(batch, tally); });
    }

    void read(std::string_view line, std::uint64_t number, bool truncated) {
        ++run.lines;
        if (run.stdout_text.size() < k_stdout_kept) {
            run.stdout_text.append(line);
            run.stdout_text += '\n';
        }
        if (setup.secrets != nullptr && setup.secrets->found_in(line)) {
            run.secret_on_stdout = true;
        }
        LineFacts facts;
        facts.text = line;
        facts.number = number;
        facts.truncated = truncated;
        auto parse = json::parse_bounded(document, line);
        if (truncated) {
            facts.problem = "the line is longer than 16 MiB and was cut";
        } else if (parse.too_deep) {
            facts.problem = fmt::format("not parsed: {}", json::reason_of(parse));
        } else if (parse.failed()) {
            facts.problem =
                fmt::format("not JSON ({} at column {})", json::reason_of(parse), parse.offset + 1);
        } else if (!document.IsObject()) {
            facts.problem = "not a JSON object";
        } else {
            facts.message = &document;
            const auto* type = json::member(document, "type");
            if (type == nullptr || !type->IsString()) {
                facts.problem = "a message needs a string \"type\"";
            } else {
                facts.type = upper(type->GetString());
                facts.problem = shape_problem(facts.type, document);
            }
        }
        if (facts.problem.empty() && facts.message != nullptr) {
            ++run.messages;
        }
        judge(number, [&](const MessageJudge& judge, Tally& tally) {
            judge.on_line(facts, setup.secrets != nullptr ? *setup.secrets : k_none, tally);
        });
        if (!facts.problem.empty() || facts.message == nullptr) {
            return;
        }
        if (facts.type == "SCHEMA") {
            on_schema(facts, document);
        } else if (facts.type == "RECORD") {
            on_record(facts, document);
        } else if (facts.type == "STATE") {
            on_state(facts, document);
        } else if (facts.type == "ACTIVATE_VERSION") {
            on_activate_version(facts, document);
        } else if (facts.type == "BATCH") {
            on_batch(facts, document);
        }
    }

    void finish(std::string_view stderr_text) {
        EndFacts end;
        end.stderr_text = stderr_text;
        end.secrets_known = stderr_scanner.has_value();
        run.secret_on_stderr = (stderr_scanner && stderr_scanner->found()) ||
                               (setup.secrets != nullptr && setup.secrets->found_in(stderr_text));
        end.secret_on_stderr = run.secret_on_stderr;
        run.secrets_scanned = end.secrets_known;
        end.final_state = final_state;
        end.progress_markers = progress_markers;
        end.completed = run.exited_with(0);
        end.activate_version_claimed = setup.activate_version_claimed;
        end.full_table_streams_with_records = full_table_record_streams.size();
        for (const auto& stream : full_table_record_streams) {
            if (!activated.contains(stream)) {
                end.unversioned_full_table_streams.push_back(stream);
            }
        }
        for (const auto& [stream, version] : last_record_versions) {
            if (!activated[stream].contains(version)) {
                end.unactivated_versions.emplace_back(stream, version);
            }
        }
        end.batch_files = read_batches();
        judge(0, [&](const MessageJudge& judge, Tally& tally) { judge.on_end(end, tally); });
    }

    // Each file of each BATCH, its lines read (gzip through `gzip -dc`) and validated.
    std::vector<BatchFile> read_batches() {
        std::vector<BatchFile> files;
        for (const auto& batch : batches) {
            auto found = schemas.find(batch.stream);
            const StreamSchema* schema = found == schemas.end() ? nullptr : &found->second;
            for (const auto& uri : batch.manifest) {
                BatchFile file{batch.stream, uri, batch.line, {}, 0, 0, {}};
                read_batch_file(batch, schema, file);
                run.batch_records += file.records;
                files.push_back(std::move(file));
            }
        }
        return files;
    }

    class BatchLines : public process::Observer {
    public:
        BatchLines(const StreamSchema* schema, BatchFile& file) : m_schema(schema), m_file(file) {}
        process::Decision on_stdout_line(std::string_view line, std::uint64_t number,
                                         bool /*truncated*/) override {
            if (line.empty()) {
                return process::Decision::keep_going;
            }
            auto parse = json::parse_bounded(m_document, line);
            ++m_file.records;
            std::string problem;
            if (parse.too_deep) {
                problem = json::reason_of(parse);
            } else if (parse.failed() || !m_document.IsObject()) {
                problem = "not a JSON object";
            } else if (m_schema != nullptr && m_schema->compiled &&
                       !m_schema->compiled->validate(m_document)) {
                std::vector<schema::Violation> violations;
                m_schema->compiled->validate(m_document, &violations, 1);
                problem = violations.empty() ? "breaks the stream's SCHEMA"
                                             : fmt::format("breaks the stream's SCHEMA at '{}': {}",
                                                           violations.front().instance_path,
                                                           violations.front().message);
            }
            if (!problem.empty() && m_file.invalid++ == 0) {
                m_file.first_invalid = fmt::format("line {}: {}", number, problem);
            }
            return process::Decision::keep_going;
        }

    private:
        const StreamSchema* m_schema;
        BatchFile& m_file;
        rapidjson::Document m_document;
    };

    static void read_batch_file(const PendingBatch& batch, const StreamSchema* schema,
                                BatchFile& file) {
        constexpr std::string_view k_file = "file://";
        if (!file.uri.starts_with(k_file)) {
            file.problem = "not a local file:// URI (conform reads only those)";
            return;
        }
        std::filesystem::path path = file.uri.substr(k_file.size());
        std::error_code missing;
        if (!std::filesystem::is_regular_file(path, missing)) {
            file.problem = "the file does not exist";
            return;
        }
        if (batch.format != "jsonl") {
            file.problem =
                fmt::format("encoding '{}' is not read by conform (only jsonl)", batch.format);
            return;
        }
        process::LaunchSpec spec;
        bool gzip = batch.compression == "gzip" || file.uri.ends_with(".gz");
        spec.argv = gzip ? std::vector<std::string>{"gzip", "-dc", path.string()}
                         : std::vector<std::string>{"cat", path.string()};
        spec.timeout = std::chrono::milliseconds(60'000);
        BatchLines lines(schema, file);
        try {
            auto result = process::run(spec, lines);
            if (!result.exit.succeeded()) {
                file.problem =
                    fmt::format("`{}` gave {}", spec.argv.front(), result.exit.describe());
            }
        } catch (const Error& error) {
            file.problem = error.what();
        }
    }

    inline static const protocol::Secrets k_none{};
};

Reader::Reader(ReaderSetup setup, TapRun& run)
    : m_impl(std::make_unique<Impl>(std::move(setup), run)) {}

Reader::~Reader() = default;

process::Decision Reader::on_stdout_line(std::string_view line, std::uint64_t line_number,
                                         bool truncated) {
    m_impl->read(line, line_number, truncated);
    return process::Decision::keep_going;
}

void Reader::on_stderr(std::string_view chunk) {
    if (m_impl->stderr_scanner) {
        m_impl->stderr_scanner->feed(chunk);
    }
}

void Reader::finish(std::string_view stderr_text) {
    m_impl->finish(stderr_text);
}

}  // namespace conform::singer
