#include "diff/records.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "json/bounded_parse.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"

namespace conform::diff {

namespace {

using Value = rapidjson::Value;

std::string string_member(const Value& object, const char* name) {
    auto found = object.FindMember(name);
    return found != object.MemberEnd() && found->value.IsString() ? found->value.GetString() : "";
}

std::string stream_key(const Value& object) {
    auto name = string_member(object, "name").empty() ? string_member(object, "stream")
                                                      : string_member(object, "name");
    auto ns = string_member(object, "namespace");
    return ns.empty() ? name : ns + "." + name;
}

// The --state file of the states seen so far: the newest STREAM state per stream plus the newest
// GLOBAL state as an array, or the newest legacy `data` when the connector writes only those.
class StateAccumulator {
public:
    void add(const Value& state) {
        auto type = string_member(state, "type");
        if (type == "STREAM" && state.HasMember("stream") && state["stream"].IsObject() &&
            state["stream"].HasMember("stream_descriptor")) {
            auto descriptor = json::to_canonical_json(state["stream"]["stream_descriptor"]);
            m_streams[descriptor] = json::to_canonical_json(state);
        } else if (type == "GLOBAL") {
            m_global = json::to_canonical_json(state);
        } else if (state.HasMember("data")) {
            m_legacy = json::to_canonical_json(state["data"]);
        }
    }

    std::string file_text() const {
        if (m_streams.empty() && m_global.empty()) {
            return m_legacy.empty() ? "[]" : m_legacy;
        }
        std::string text = "[";
        if (!m_global.empty()) {
            text += m_global;
        }
        for (const auto& [descriptor, state] : m_streams) {
            text += (text.size() > 1 ? "," : "") + state;
        }
        return text + "]";
    }

private:
    std::map<std::string, std::string> m_streams;
    std::string m_global;
    std::string m_legacy;
};

enum class FieldChangeKind { removed, added, retyped, value };

struct FieldChange {
    std::string pointer;
    std::string text;  // "/name: \"a\" -> \"b\""
    FieldChangeKind kind = FieldChangeKind::value;
    std::string types;  // "string -> integer" when retyped
};

// A field that is gone, or appeared, with a null value loses or adds nothing a consumer stores.
FieldChangeKind presence_change(const Value& value, FieldChangeKind kind) {
    return value.IsNull() ? FieldChangeKind::value : kind;
}

// The old type includes the new one when a consumer built for it can store the new value.
bool type_includes(std::string_view before, std::string_view after) {
    return before == after || (before == "number" && after == "integer");
}

void list_field_changes(const Value& before, const Value& after, const std::string& path,
                        std::vector<FieldChange>& out) {
    if (before.IsObject() && after.IsObject()) {
        for (const auto& member : before.GetObject()) {
            auto child = path + "/" + json::escape_pointer_token(member.name.GetString());
            auto found = after.FindMember(member.name);
            if (found == after.MemberEnd()) {
                out.push_back(
                    {child,
                     fmt::format("{}: {} -> absent", child, json::to_canonical_json(member.value)),
                     presence_change(member.value, FieldChangeKind::removed),
                     {}});
            } else {
                list_field_changes(member.value, found->value, child, out);
            }
        }
        for (const auto& member : after.GetObject()) {
            if (!before.HasMember(member.name)) {
                auto child = path + "/" + json::escape_pointer_token(member.name.GetString());
                out.push_back(
                    {child,
                     fmt::format("{}: absent -> {}", child, json::to_canonical_json(member.value)),
                     presence_change(member.value, FieldChangeKind::added),
                     {}});
            }
        }
        return;
    }
    auto old_text = json::to_canonical_json(before);
    auto new_text = json::to_canonical_json(after);
    if (old_text == new_text) {
        return;
    }
    auto pointer = path.empty() ? std::string("/") : path;
    FieldChange change{pointer,
                       fmt::format("{}: {} -> {}", pointer, old_text, new_text),
                       FieldChangeKind::value,
                       {}};
    auto old_type = json_type_name(before);
    auto new_type = json_type_name(after);
    if (!before.IsNull() && !after.IsNull() && !type_includes(old_type, new_type)) {
        change.kind = FieldChangeKind::retyped;
        change.types = fmt::format("{} -> {}", old_type, new_type);
    }
    out.push_back(std::move(change));
}

// The fields that differ between two records, without those in `ignored`.
std::vector<FieldChange> field_changes(std::string_view before, std::string_view after,
                                       const std::set<std::string>& ignored) {
    rapidjson::Document old_document;
    rapidjson::Document new_document;
    old_document.Parse(before.data(), before.size());
    new_document.Parse(after.data(), after.size());
    std::vector<FieldChange> fields;
    list_field_changes(old_document, new_document, "", fields);
    std::erase_if(fields, [&](const FieldChange& field) { return ignored.count(field.pointer); });
    return fields;
}

std::string describe_fields(const std::vector<FieldChange>& fields, std::size_t limit) {
    std::string text;
    for (std::size_t i = 0; i < fields.size() && i < limit; ++i) {
        text += (i == 0 ? "" : "; ") + fields[i].text;
    }
    return fields.size() > limit ? text + fmt::format("; {} more", fields.size() - limit) : text;
}

// ["address", "city"] -> "/address/city"
std::string pointer_of_path(const Value& path) {
    std::string pointer;
    if (path.IsArray()) {
        for (const auto& part : path.GetArray()) {
            if (part.IsString()) {
                pointer += "/" + json::escape_pointer_token(part.GetString());
            }
        }
    }
    return pointer;
}

const std::set<std::string>& pointers_for(const StreamPointers& pointers,
                                          const std::string& stream) {
    static const std::set<std::string> none;
    auto found = pointers.find(stream);
    return found == pointers.end() ? none : found->second;
}

// Each stream's key pointers in `catalog_json`, from the members `names` of each entry and of its
// stream object (a configured catalog) or of the stream itself (a discovered one), first found.
StreamKeys keys_named(std::string_view catalog_json, std::initializer_list<const char*> names,
                      bool keep_keyless) {
    auto document = json::parse_json_text(catalog_json, "catalog");
    StreamKeys keys;
    if (!document.IsObject() || !document.HasMember("streams") || !document["streams"].IsArray()) {
        return keys;
    }
    for (const auto& entry : document["streams"].GetArray()) {
        if (!entry.IsObject()) {
            continue;
        }
        bool configured = entry.HasMember("stream") && entry["stream"].IsObject();
        const Value& stream = configured ? entry["stream"] : entry;
        const Value* key = nullptr;
        for (const char* name : names) {
            for (const Value* holder : {&entry, &stream}) {
                auto found = holder->FindMember(name);
                if (key == nullptr && found != holder->MemberEnd() && found->value.IsArray() &&
                    !found->value.Empty()) {
                    key = &found->value;
                }
            }
        }
        if (key == nullptr && !keep_keyless) {
            continue;
        }
        auto& pointers = keys[stream_key(stream)];
        if (key != nullptr) {
            for (const auto& path : key->GetArray()) {
                if (auto pointer = pointer_of_path(path); !pointer.empty()) {
                    pointers.push_back(pointer);
                }
            }
        }
        if (pointers.empty() && !keep_keyless) {
            keys.erase(stream_key(stream));
        }
    }
    return keys;
}

// Per field pointer, how the matched records of one stream differ there.
struct FieldTally {
    std::size_t records = 0;
    std::string example;  // "[11]: /x: 1 -> absent"
    std::set<std::string> types;
};

using Tallies = std::map<std::string, FieldTally>;

constexpr std::size_t k_fields_listed = 10;

// One change per field of `tallies` (the first k_fields_listed, then one for the rest).
void add_field_changes(const std::string& stream, const Tallies& tallies, const char* rule,
                       bool breaking, std::string_view what, std::vector<Change>& changes) {
    std::size_t listed = 0;
    std::vector<std::string> rest;
    for (const auto& [pointer, tally] : tallies) {
        if (listed++ >= k_fields_listed) {
            rest.push_back(pointer);
            continue;
        }
        auto types = tally.types.empty() ? std::string()
                                         : fmt::format(" ({})", fmt::join(tally.types, ", "));
        changes.push_back({rule,
                           fmt::format("{}:{}", stream, pointer),
                           fmt::format("{} in {} matched record(s){}, e.g. {}", what, tally.records,
                                       types, tally.example),
                           breaking,
                           {}});
    }
    if (!rest.empty()) {
        changes.push_back(
            {rule,
             stream,
             fmt::format("{} more field(s) {}: {}", rest.size(), what, first_examples(rest)),
             breaking,
             {}});
    }
}

// What the matched records of one stream differ in.
struct Matched {
    Tallies removed;
    Tallies added;
    Tallies retyped;
    std::size_t changed = 0;  // records with any difference
    std::size_t values_changed = 0;
    std::string first_values;
    std::size_t expected_changed = 0;
    std::string first_expected;

    void add(const std::string& identity, const std::vector<FieldChange>& fields, bool expected) {
        ++changed;
        std::vector<FieldChange> values;
        for (const auto& field : fields) {
            auto tally = field.kind == FieldChangeKind::removed   ? &removed
                         : field.kind == FieldChangeKind::added   ? &added
                         : field.kind == FieldChangeKind::retyped ? &retyped
                                                                  : nullptr;
            if (tally == nullptr) {
                values.push_back(field);
                continue;
            }
            auto& entry = (*tally)[field.pointer];
            if (entry.records++ == 0) {
                entry.example = fmt::format("{}: {}", identity, field.text);
            }
            if (!field.types.empty()) {
                entry.types.insert(field.types);
            }
        }
        // A record the test config expects is held to its values: they break, once.
        if (expected && expected_changed++ == 0) {
            first_expected = fmt::format("{}: {}", identity, describe_fields(fields, 3));
        } else if (!expected && !values.empty() && values_changed++ == 0) {
            first_values = fmt::format("{}: {}", identity, describe_fields(values, 3));
        }
    }
};

bool is_expected(const std::set<std::string>& expected, const CapturedRecord& record) {
    return expected.count(record.data) > 0;
}

std::set<std::string> expected_of(const ExpectedRecords& expected, const std::string& stream) {
    std::set<std::string> texts;
    if (auto found = expected.find(stream); found != expected.end()) {
        for (const auto& data : found->second) {
            rapidjson::Document document;
            document.Parse(data.c_str(), data.size());
            if (!document.HasParseError()) {
                texts.insert(json::to_canonical_json(document));
            }
        }
    }
    return texts;
}

const std::vector<CapturedRecord>& records(const ReadCapture& capture, const std::string& stream) {
    static const std::vector<CapturedRecord> none;
    auto found = capture.streams.find(stream);
    return found == capture.streams.end() ? none : found->second;
}

// Every record has a value at every pointer: a key only the target declares identifies the
// control's records too.
bool all_carry(const std::vector<CapturedRecord>& records,
               const std::vector<std::string>& pointers) {
    return std::all_of(records.begin(), records.end(), [&](const CapturedRecord& record) {
        rapidjson::Document data;
        data.Parse(record.data.c_str(), record.data.size());
        return std::all_of(pointers.begin(), pointers.end(), [&](const std::string& pointer) {
            const Value* part = data.HasParseError() ? nullptr : json::find_value(data, pointer);
            return part != nullptr && !part->IsNull();
        });
    });
}

}  // namespace

struct ReadCollector::Impl {
    std::map<std::string, std::vector<std::string>> volatile_fields;
    ReadCapture capture;
    StateAccumulator states;
    std::string trace_error;
    std::string log_error;

    void add_record(const Value& record) {
        if (!record.HasMember("data") || !record["data"].IsObject()) {
            return;
        }
        auto stream = stream_key(record);
        auto& kept = capture.streams[stream];
        if (kept.size() >= k_max_records_per_stream) {
            ++capture.dropped[stream];
            return;
        }
        rapidjson::Document data;
        data.CopyFrom(record["data"], data.GetAllocator());
        if (auto found = volatile_fields.find(stream); found != volatile_fields.end()) {
            for (const auto& pointer : found->second) {
                json::remove_value(data, pointer);
            }
        }
        kept.push_back(
            {json::to_canonical_json(data), static_cast<std::uint32_t>(capture.states.size())});
    }

    void count_state(const Value& state) {
        auto type = string_member(state, "type");
        if (type == "STREAM" && state.HasMember("stream") && state["stream"].IsObject() &&
            state["stream"].HasMember("stream_descriptor") &&
            state["stream"]["stream_descriptor"].IsObject()) {
            ++capture.states_per_stream[stream_key(state["stream"]["stream_descriptor"])];
        } else {
            ++capture.states_per_stream["*"];
        }
    }

    // CDKs put a generic message for users and the exception's own text in internal_message.
    void add_trace(const Value& trace) {
        if (string_member(trace, "type") != "ERROR" || !trace.HasMember("error") ||
            !trace["error"].IsObject() || !trace_error.empty()) {
            return;
        }
        trace_error = string_member(trace["error"], "message");
        auto internal = string_member(trace["error"], "internal_message");
        if (!internal.empty() && internal != trace_error) {
            trace_error +=
                (trace_error.empty() ? "" : " (") + internal + (trace_error.empty() ? "" : ")");
        }
    }

    void add_log(const Value& log) {
        auto level = string_member(log, "level");
        if (level == "ERROR" || level == "FATAL") {
            auto text = string_member(log, "message");
            log_error = text.substr(0, text.find('\n'));
        }
    }
};

ReadCollector::ReadCollector(std::map<std::string, std::vector<std::string>> volatile_fields)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->volatile_fields = std::move(volatile_fields);
}

ReadCollector::~ReadCollector() = default;

void ReadCollector::add_line(std::string_view line) {
    rapidjson::Document message;
    if (json::parse_bounded(message, line).failed() || !message.IsObject()) {
        return;
    }
    auto type = string_member(message, "type");
    if (!type.empty()) {
        ++m_impl->capture.messages[type];
    }
    auto object = [&](const char* name) {
        return message.HasMember(name) && message[name].IsObject();
    };
    if (type == "RECORD" && object("record")) {
        m_impl->add_record(message["record"]);
    } else if (type == "STATE" && object("state")) {
        m_impl->states.add(message["state"]);
        m_impl->count_state(message["state"]);
        m_impl->capture.states.push_back(m_impl->states.file_text());
    } else if (type == "TRACE" && object("trace")) {
        m_impl->add_trace(message["trace"]);
    } else if (type == "LOG" && object("log")) {
        m_impl->add_log(message["log"]);
    }
}

ReadCapture ReadCollector::take() {
    m_impl->capture.error = m_impl->trace_error.empty() ? m_impl->log_error : m_impl->trace_error;
    return std::move(m_impl->capture);
}

std::string first_examples(const std::vector<std::string>& items) {
    constexpr std::size_t k_examples = 3;
    std::string text;
    for (std::size_t i = 0; i < items.size() && i < k_examples; ++i) {
        text += (i == 0 ? "" : ", ") + items[i];
    }
    return items.size() > k_examples ? text + ", ..." : text;
}

std::string_view json_type_name(const rapidjson::Value& value) {
    if (value.IsNull()) {
        return "null";
    }
    if (value.IsBool()) {
        return "boolean";
    }
    if (value.IsInt64() || value.IsUint64()) {
        return "integer";
    }
    if (value.IsNumber()) {
        return "number";
    }
    if (value.IsString()) {
        return "string";
    }
    return value.IsArray() ? "array" : "object";
}

StreamKeys keys_of_catalog(std::string_view catalog_json) {
    return keys_named(catalog_json, {"primary_key", "source_defined_primary_key"}, true);
}

StreamKeys configured_keys(std::string_view catalog_json) {
    return keys_named(catalog_json, {"primary_key"}, false);
}

StreamKeys source_defined_keys(std::string_view catalog_json) {
    return keys_named(catalog_json, {"source_defined_primary_key"}, false);
}

StreamIdentities choose_identities(const KeySources& keys, const ReadCapture& control,
                                   const ReadCapture& target) {
    std::set<std::string> streams;
    for (const auto* capture : {&control, &target}) {
        for (const auto& [stream, records] : capture->streams) {
            streams.insert(stream);
        }
    }
    StreamIdentities identities;
    for (const auto& stream : streams) {
        using Kind = StreamIdentity::Kind;
        std::optional<StreamIdentity> chosen;
        for (const auto& [source, kind] : {std::pair{&keys.configured, Kind::configured_key},
                                           std::pair{&keys.control, Kind::source_key},
                                           std::pair{&keys.target, Kind::target_key}}) {
            auto found = source->find(stream);
            if (!chosen && found != source->end() && !found->second.empty() &&
                (kind != Kind::target_key || all_carry(records(control, stream), found->second))) {
                chosen = StreamIdentity{kind, found->second};
            }
        }
        if (!chosen) {
            chosen = infer_identity(records(control, stream), records(target, stream));
        }
        identities[stream] = *chosen;
    }
    return identities;
}

StreamIdentities identities_of_keys(const StreamKeys& keys) {
    StreamIdentities identities;
    for (const auto& [stream, pointers] : keys) {
        if (!pointers.empty()) {
            identities[stream] = {StreamIdentity::Kind::configured_key, pointers};
        }
    }
    return identities;
}

std::string changed_fields(std::string_view before, std::string_view after, std::size_t limit) {
    return describe_fields(field_changes(before, after, {}), limit);
}

StreamPointers unstable_fields(const ReadCapture& first, const ReadCapture& second,
                               const StreamIdentities& identities) {
    StreamPointers unstable;
    for (const auto& [stream, records] : first.streams) {
        auto other = second.streams.find(stream);
        if (other == second.streams.end()) {
            continue;
        }
        const auto& identity = identity_for(identities, stream);
        auto again = group_by_identity(other->second, identity);
        for (const auto& [key, group] : group_by_identity(records, identity)) {
            auto found = again.find(key);
            if (found == again.end()) {
                continue;
            }
            for (std::size_t i = 0; i < group.size() && i < found->second.size(); ++i) {
                if (found->second[i]->data == group[i]->data) {
                    continue;
                }
                for (const auto& field :
                     field_changes(group[i]->data, found->second[i]->data, {})) {
                    unstable[stream].insert(field.pointer);
                }
            }
        }
    }
    return unstable;
}

std::vector<Change> diff_records(const ReadCapture& control, const ReadCapture& target,
                                 const StreamIdentities& identities,
                                 std::vector<StreamSummary>& summary,
                                 const StreamPointers& unstable, const ExpectedRecords& expected) {
    std::vector<Change> changes;
    std::set<std::string> streams;
    for (const auto* capture : {&control, &target}) {
        for (const auto& [stream, records] : capture->streams) {
            streams.insert(stream);
        }
    }
    static const std::vector<CapturedRecord> none;
    auto count = [](const std::map<std::string, std::uint64_t>& counts, const std::string& name) {
        auto found = counts.find(name);
        return found == counts.end() ? std::uint64_t{0} : found->second;
    };
    for (const auto& stream : streams) {
        auto control_records = control.streams.count(stream) ? &control.streams.at(stream) : &none;
        auto target_records = target.streams.count(stream) ? &target.streams.at(stream) : &none;
        const auto& identity = identity_for(identities, stream);
        auto before = group_by_identity(*control_records, identity);
        auto after = group_by_identity(*target_records, identity);
        auto expected_texts = expected_of(expected, stream);
        StreamSummary row{stream,
                          control_records->size(),
                          target_records->size(),
                          0,
                          0,
                          0,
                          count(control.states_per_stream, stream),
                          count(target.states_per_stream, stream),
                          identity.describe()};
        std::vector<std::string> removed;
        std::vector<std::string> added;
        Matched matched;
        for (const auto& [key, group] : before) {
            auto found = after.find(key);
            std::size_t pairs = found == after.end() ? 0 : found->second.size();
            for (std::size_t i = 0; i < group.size(); ++i) {
                if (i >= pairs) {
                    removed.push_back(key);
                    continue;
                }
                const auto* now = found->second[i];
                if (now->data == group[i]->data) {
                    continue;
                }
                auto fields =
                    field_changes(group[i]->data, now->data, pointers_for(unstable, stream));
                if (!fields.empty()) {
                    matched.add(key, fields, is_expected(expected_texts, *group[i]));
                }
            }
        }
        for (const auto& [key, group] : after) {
            auto found = before.find(key);
            std::size_t pairs = found == before.end() ? 0 : found->second.size();
            for (std::size_t i = pairs; i < group.size(); ++i) {
                added.push_back(key);
            }
        }
        row.removed = removed.size();
        row.added = added.size();
        row.changed = matched.changed;
        summary.push_back(row);
        if (!removed.empty()) {
            changes.push_back({"records.removed",
                               stream,
                               fmt::format("{} record(s) missing, e.g. {}", removed.size(),
                                           first_examples(removed)),
                               true,
                               {}});
        }
        add_field_changes(stream, matched.removed, "records.field_removed", true, "absent",
                          changes);
        add_field_changes(stream, matched.retyped, "records.field_retyped", true, "another type",
                          changes);
        if (matched.expected_changed > 0) {
            changes.push_back({"records.expected_changed",
                               stream,
                               fmt::format("{} record(s) the test config expects "
                                           "(expected_records) changed, e.g. {}",
                                           matched.expected_changed, matched.first_expected),
                               true,
                               {}});
        }
        if (matched.values_changed > 0) {
            changes.push_back({"records.changed",
                               stream,
                               fmt::format("{} record(s) with other values (same fields and "
                                           "types), e.g. {}",
                                           matched.values_changed, matched.first_values),
                               false,
                               {}});
        }
        add_field_changes(stream, matched.added, "records.field_added", false, "new", changes);
        if (!added.empty()) {
            changes.push_back(
                {"records.added",
                 stream,
                 fmt::format("{} new record(s), e.g. {}", added.size(), first_examples(added)),
                 false,
                 {}});
        }
    }
    return changes;
}

}  // namespace conform::diff
