#include "diff/records.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <set>

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

std::string identity_of(const std::string& data, const std::vector<std::string>& key) {
    if (key.empty()) {
        return data;
    }
    rapidjson::Document document;
    document.Parse(data.c_str(), data.size());
    std::string identity = "[";
    for (const auto& pointer : key) {
        const Value* part = json::find_value(document, pointer);
        identity += (identity.size() > 1 ? "," : "") +
                    (part == nullptr ? std::string("null") : json::to_canonical_json(*part));
    }
    return identity + "]";
}

using ByIdentity = std::map<std::string, const ReadCapture::Record*>;

ByIdentity by_identity(const std::vector<ReadCapture::Record>& records,
                       const std::vector<std::string>& key) {
    ByIdentity result;
    for (const auto& record : records) {
        result.emplace(identity_of(record.data, key), &record);
    }
    return result;
}

const std::vector<std::string>& key_for(const StreamKeys& keys, const std::string& stream) {
    static const std::vector<std::string> none;
    auto found = keys.find(stream);
    return found == keys.end() ? none : found->second;
}

std::string examples(const std::vector<std::string>& identities) {
    constexpr std::size_t k_examples = 3;
    std::string text;
    for (std::size_t i = 0; i < identities.size() && i < k_examples; ++i) {
        text += (i == 0 ? "" : ", ") + identities[i];
    }
    return identities.size() > k_examples ? text + ", ..." : text;
}

struct FieldChange {
    std::string pointer;
    std::string text;  // "/name: \"a\" -> \"b\""
};

void list_field_changes(const Value& before, const Value& after, const std::string& path,
                        std::vector<FieldChange>& out) {
    if (before.IsObject() && after.IsObject()) {
        for (const auto& member : before.GetObject()) {
            auto child = path + "/" + json::escape_pointer_token(member.name.GetString());
            auto found = after.FindMember(member.name);
            if (found == after.MemberEnd()) {
                out.push_back({child, fmt::format("{}: {} -> absent", child,
                                                  json::to_canonical_json(member.value))});
            } else {
                list_field_changes(member.value, found->value, child, out);
            }
        }
        for (const auto& member : after.GetObject()) {
            if (!before.HasMember(member.name)) {
                auto child = path + "/" + json::escape_pointer_token(member.name.GetString());
                out.push_back({child, fmt::format("{}: absent -> {}", child,
                                                  json::to_canonical_json(member.value))});
            }
        }
        return;
    }
    auto old_text = json::to_canonical_json(before);
    auto new_text = json::to_canonical_json(after);
    if (old_text != new_text) {
        auto pointer = path.empty() ? std::string("/") : path;
        out.push_back({pointer, fmt::format("{}: {} -> {}", pointer, old_text, new_text)});
    }
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

}  // namespace

struct ReadCollector::Impl {
    std::map<std::string, std::vector<std::string>> volatile_fields;
    ReadCapture capture;
    StateAccumulator states;

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
};

ReadCollector::ReadCollector(std::map<std::string, std::vector<std::string>> volatile_fields)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->volatile_fields = std::move(volatile_fields);
}

ReadCollector::~ReadCollector() = default;

void ReadCollector::add_line(std::string_view line) {
    rapidjson::Document message;
    message.Parse(line.data(), line.size());
    if (message.HasParseError() || !message.IsObject()) {
        return;
    }
    auto type = string_member(message, "type");
    if (type == "RECORD" && message.HasMember("record") && message["record"].IsObject()) {
        m_impl->add_record(message["record"]);
    } else if (type == "STATE" && message.HasMember("state") && message["state"].IsObject()) {
        m_impl->states.add(message["state"]);
        m_impl->capture.states.push_back(m_impl->states.file_text());
    }
}

ReadCapture ReadCollector::take() {
    return std::move(m_impl->capture);
}

StreamKeys keys_of_catalog(std::string_view catalog_json) {
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
        for (const Value* holder : {&entry, &stream}) {
            for (const char* name : {"primary_key", "source_defined_primary_key"}) {
                auto found = holder->FindMember(name);
                if (key == nullptr && found != holder->MemberEnd() && found->value.IsArray() &&
                    !found->value.Empty()) {
                    key = &found->value;
                }
            }
        }
        auto& pointers = keys[stream_key(stream)];
        if (key != nullptr) {
            for (const auto& path : key->GetArray()) {
                pointers.push_back(pointer_of_path(path));
            }
        }
    }
    return keys;
}

std::string changed_fields(std::string_view before, std::string_view after, std::size_t limit) {
    return describe_fields(field_changes(before, after, {}), limit);
}

StreamPointers unstable_fields(const ReadCapture& first, const ReadCapture& second,
                               const StreamKeys& keys) {
    StreamPointers unstable;
    for (const auto& [stream, records] : first.streams) {
        auto other = second.streams.find(stream);
        if (other == second.streams.end()) {
            continue;
        }
        const auto& key = key_for(keys, stream);
        auto again = by_identity(other->second, key);
        for (const auto& [identity, record] : by_identity(records, key)) {
            auto found = again.find(identity);
            if (found != again.end() && found->second->data != record->data) {
                for (const auto& field : field_changes(record->data, found->second->data, {})) {
                    unstable[stream].insert(field.pointer);
                }
            }
        }
    }
    return unstable;
}

std::vector<Change> diff_records(const ReadCapture& control, const ReadCapture& target,
                                 const StreamKeys& keys, std::vector<StreamSummary>& summary,
                                 const StreamPointers& unstable) {
    std::vector<Change> changes;
    std::set<std::string> streams;
    for (const auto* capture : {&control, &target}) {
        for (const auto& [stream, records] : capture->streams) {
            streams.insert(stream);
        }
    }
    static const std::vector<ReadCapture::Record> none;
    for (const auto& stream : streams) {
        auto control_records = control.streams.count(stream) ? &control.streams.at(stream) : &none;
        auto target_records = target.streams.count(stream) ? &target.streams.at(stream) : &none;
        const auto& key = key_for(keys, stream);
        auto before = by_identity(*control_records, key);
        auto after = by_identity(*target_records, key);
        StreamSummary row{stream, control_records->size(), target_records->size(), 0, 0, 0};
        std::vector<std::string> removed;
        std::vector<std::string> added;
        std::string first_change;
        for (const auto& [identity, record] : before) {
            auto found = after.find(identity);
            if (found == after.end()) {
                removed.push_back(key.empty() ? "a record without key" : identity);
            } else if (found->second->data != record->data) {
                auto fields = field_changes(record->data, found->second->data,
                                            pointers_for(unstable, stream));
                if (!fields.empty() && row.changed++ == 0) {
                    first_change = fmt::format("{}: {}", key.empty() ? "" : identity,
                                               describe_fields(fields, 3));
                }
            }
        }
        for (const auto& [identity, record] : after) {
            if (before.count(identity) == 0) {
                added.push_back(key.empty() ? "a record without key" : identity);
            }
        }
        row.removed = removed.size();
        row.added = added.size();
        summary.push_back(row);
        if (!removed.empty()) {
            changes.push_back(
                {"records.removed",
                 stream,
                 fmt::format("{} record(s) missing, e.g. {}", removed.size(), examples(removed)),
                 true,
                 {}});
        }
        if (row.changed > 0) {
            changes.push_back(
                {"records.changed",
                 stream,
                 fmt::format("{} record(s) changed, e.g. {}", row.changed, first_change),
                 true,
                 {}});
        }
        if (!added.empty()) {
            changes.push_back(
                {"records.added",
                 stream,
                 fmt::format("{} new record(s), e.g. {}", added.size(), examples(added)),
                 false,
                 {}});
        }
    }
    return changes;
}

std::vector<Change> resume_losses(const ReadCapture& control, std::size_t checkpoint,
                                  const ReadCapture& target_full, const ReadCapture& target_resumed,
                                  const StreamKeys& keys) {
    std::vector<Change> changes;
    for (const auto& [stream, records] : target_full.streams) {
        const auto& key = key_for(keys, stream);
        std::set<std::string> covered;
        if (auto found = control.streams.find(stream); found != control.streams.end()) {
            for (const auto& record : found->second) {
                if (record.checkpoint <= checkpoint) {
                    covered.insert(identity_of(record.data, key));
                }
            }
        }
        if (auto found = target_resumed.streams.find(stream);
            found != target_resumed.streams.end()) {
            for (const auto& record : found->second) {
                covered.insert(identity_of(record.data, key));
            }
        }
        std::vector<std::string> lost;
        for (const auto& record : records) {
            auto identity = identity_of(record.data, key);
            if (covered.count(identity) == 0) {
                lost.push_back(key.empty() ? "a record without key" : identity);
            }
        }
        if (!lost.empty()) {
            changes.push_back({"state.resume_loss",
                               stream,
                               fmt::format("resumed from the control's state after STATE {}, the "
                                           "target skipped {} record(s), e.g. {}",
                                           checkpoint + 1, lost.size(), examples(lost)),
                               true,
                               {}});
        }
    }
    return changes;
}

}  // namespace conform::diff
