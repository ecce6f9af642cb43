#include "diff/baseline.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "config/test_config.hpp"
#include "json/digest.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "util/error.hpp"
#include "util/files.hpp"

namespace conform::diff {

namespace {

using Value = rapidjson::Value;

constexpr std::size_t k_max_identity_text = 64;

// The key values as short text, or their digest when they are long (or there is no key).
std::string identity_text(const rapidjson::Document& data, const std::vector<std::string>& key) {
    if (key.empty()) {
        return json::digest_of(data).hex();
    }
    rapidjson::Document parts(rapidjson::kArrayType);
    for (const auto& pointer : key) {
        const Value* part = json::find_value(data, pointer);
        Value copy;
        if (part != nullptr) {
            copy.CopyFrom(*part, parts.GetAllocator());
        }
        parts.PushBack(copy, parts.GetAllocator());
    }
    auto text = json::to_canonical_json(parts);
    return text.size() <= k_max_identity_text ? text : json::digest_of(parts).hex();
}

// Every field with a value, by JSON pointer, with its JSON type ("/address/city:string"):
// records of the same shape differ only in values.
void list_leaves(const Value& value, const std::string& path, std::vector<std::string>& out) {
    if (value.IsObject()) {
        for (const auto& member : value.GetObject()) {
            list_leaves(member.value,
                        path + "/" + json::escape_pointer_token(member.name.GetString()), out);
        }
        return;
    }
    if (value.IsNull()) {
        return;
    }
    out.push_back(path + ":" + std::string(json_type_name(value)));
}

std::string shape_digest(const rapidjson::Document& data) {
    std::vector<std::string> leaves;
    list_leaves(data, "", leaves);
    std::sort(leaves.begin(), leaves.end());
    rapidjson::Document list(rapidjson::kArrayType);
    for (const auto& leaf : leaves) {
        list.PushBack(Value(leaf.c_str(), list.GetAllocator()), list.GetAllocator());
    }
    return json::digest_of(list).hex();
}

// A record's digests as the baseline keeps them: "CONTENT/SHAPE" (older baselines: CONTENT).
struct RecordDigest {
    std::string content;
    std::string shape;  // empty when unknown
};

RecordDigest split_digest(const std::string& text) {
    auto slash = text.find('/');
    return slash == std::string::npos ? RecordDigest{text, ""}
                                      : RecordDigest{text.substr(0, slash), text.substr(slash + 1)};
}

std::string string_of(const Value& object, const char* name, const std::string& origin) {
    auto found = object.FindMember(name);
    if (found == object.MemberEnd() || !found->value.IsString()) {
        throw_input_error(
            fmt::format("{}: expected a string '{}' in every entry (a JSON report of conform run)",
                        origin, name));
    }
    return found->value.GetString();
}

report::Status status_named(const std::string& name) {
    for (auto status : {report::Status::passed, report::Status::warned, report::Status::failed,
                        report::Status::skipped}) {
        if (report::status_name(status) == name) {
            return status;
        }
    }
    return report::Status::skipped;
}

StreamDigests stream_of(const Value& entry, const std::string& origin) {
    StreamDigests stream;
    stream.stream = string_of(entry, "stream", origin);
    stream.digest = string_of(entry, "digest", origin);
    stream.count =
        entry.HasMember("count") && entry["count"].IsUint64() ? entry["count"].GetUint64() : 0;
    if (entry.HasMember("key") && entry["key"].IsArray()) {
        for (const auto& pointer : entry["key"].GetArray()) {
            stream.key.emplace_back(pointer.IsString() ? pointer.GetString() : "");
        }
    }
    auto records = entry.FindMember("records");
    stream.complete = records != entry.MemberEnd() && records->value.IsObject();
    if (stream.complete) {
        for (const auto& record : records->value.GetObject()) {
            stream.records[record.name.GetString()] =
                record.value.IsString() ? record.value.GetString() : "";
        }
    }
    return stream;
}

void add_removed(const std::string& stream, const std::vector<std::string>& removed,
                 std::vector<Change>& changes) {
    if (!removed.empty()) {
        changes.push_back(
            {"records.removed",
             stream,
             fmt::format("{} record(s) missing, e.g. {}", removed.size(), first_examples(removed)),
             true,
             {}});
    }
}

// Records whose content changed: harmless when their fields and types stayed (only values
// changed), else breaking, without the fields' names (the baseline keeps digests, not records).
void add_changed(const std::string& stream, const std::vector<std::string>& values,
                 const std::vector<std::string>& shapes, std::vector<Change>& changes) {
    if (!shapes.empty()) {
        changes.push_back({"records.fields_changed",
                           stream,
                           fmt::format("{} record(s) with other fields or types, e.g. {} (the "
                                       "baseline keeps digests; conform diff names the fields)",
                                       shapes.size(), first_examples(shapes)),
                           true,
                           {}});
    }
    if (!values.empty()) {
        changes.push_back({"records.changed",
                           stream,
                           fmt::format("{} record(s) with other values (same fields and types), "
                                       "e.g. {}",
                                       values.size(), first_examples(values)),
                           false,
                           {}});
    }
}

void add_added(const std::string& stream, std::size_t added, std::vector<Change>& changes) {
    if (added > 0) {
        changes.push_back(
            {"records.added", stream, fmt::format("{} new record(s)", added), false, {}});
    }
}

void compare_keyed(const StreamDigests& before, const StreamDigests& after,
                   std::vector<Change>& changes) {
    std::vector<std::string> removed;
    std::vector<std::string> values;
    std::vector<std::string> shapes;
    std::size_t added = 0;
    for (const auto& [identity, text] : before.records) {
        auto match = after.records.find(identity);
        if (match == after.records.end()) {
            removed.push_back(identity);
            continue;
        }
        auto old_digest = split_digest(text);
        auto new_digest = split_digest(match->second);
        if (old_digest.content == new_digest.content) {
            continue;
        }
        bool same_shape = !old_digest.shape.empty() && old_digest.shape == new_digest.shape;
        (same_shape ? values : shapes).push_back(identity);
    }
    for (const auto& [identity, content] : after.records) {
        added += before.records.count(identity) == 0 ? 1 : 0;
    }
    add_removed(before.stream, removed, changes);
    add_changed(before.stream, values, shapes, changes);
    add_added(before.stream, added, changes);
}

// Without a key a record is known by its content only: a changed record is one gone and one new.
// Only the records beyond those the target replaced are lost; the replaced ones changed values
// when the shapes of those gone and those new are the same.
void compare_keyless(const StreamDigests& before, const StreamDigests& after,
                     std::vector<Change>& changes) {
    std::vector<std::string> gone;
    std::multiset<std::string> gone_shapes;
    std::multiset<std::string> new_shapes;
    for (const auto& [identity, text] : before.records) {
        if (after.records.count(identity) == 0) {
            gone.push_back(identity);
            gone_shapes.insert(split_digest(text).shape);
        }
    }
    for (const auto& [identity, text] : after.records) {
        if (before.records.count(identity) == 0) {
            new_shapes.insert(split_digest(text).shape);
        }
    }
    auto replaced = std::min(gone.size(), new_shapes.size());
    std::vector<std::string> lost(gone.begin() + static_cast<std::ptrdiff_t>(replaced), gone.end());
    std::vector<std::string> differing(gone.begin(),
                                       gone.begin() + static_cast<std::ptrdiff_t>(replaced));
    const auto& fewer = gone_shapes.size() <= new_shapes.size() ? gone_shapes : new_shapes;
    const auto& more = gone_shapes.size() <= new_shapes.size() ? new_shapes : gone_shapes;
    bool same_shapes = std::includes(more.begin(), more.end(), fewer.begin(), fewer.end()) &&
                       gone_shapes.count("") == 0;
    add_removed(before.stream, lost, changes);
    if (same_shapes) {
        add_changed(before.stream, differing, {}, changes);
    } else {
        add_changed(before.stream, {}, differing, changes);
    }
    add_added(before.stream, new_shapes.size() - replaced, changes);
}

}  // namespace

StreamKeys keys_for_digests(const std::string& read_catalog,
                            const std::optional<std::string>& discovered) {
    auto keys = keys_of_catalog(read_catalog);
    auto configured = configured_keys(read_catalog);
    auto source = discovered ? source_defined_keys(*discovered) : StreamKeys{};
    for (auto& [stream, pointers] : keys) {
        if (configured.count(stream) == 0) {
            auto found = source.find(stream);
            pointers = found == source.end() ? std::vector<std::string>{} : found->second;
        }
    }
    return keys;
}

std::vector<StreamDigests> digests_of(const ReadCapture& read, const StreamKeys& keys) {
    std::vector<StreamDigests> result;
    for (const auto& [name, records] : read.streams) {
        StreamDigests stream;
        stream.stream = name;
        if (auto found = keys.find(name); found != keys.end()) {
            stream.key = found->second;
        }
        auto dropped = read.dropped.count(name) ? read.dropped.at(name) : 0;
        stream.count = records.size() + dropped;
        for (const auto& record : records) {
            rapidjson::Document data;
            data.Parse(record.data.c_str(), record.data.size());
            stream.records[identity_text(data, stream.key)] =
                json::digest_of(data).hex() + "/" + shape_digest(data);
        }
        rapidjson::Document all(rapidjson::kArrayType);
        for (const auto& [identity, content] : stream.records) {
            all.PushBack(Value(identity.c_str(), all.GetAllocator()), all.GetAllocator());
            all.PushBack(Value(content.c_str(), all.GetAllocator()), all.GetAllocator());
        }
        stream.digest = json::digest_of(all).hex();
        if (stream.records.size() > k_max_baseline_records || dropped > 0) {
            stream.records.clear();
            stream.complete = false;
        }
        result.push_back(std::move(stream));
    }
    return result;
}

std::string to_streams_member(const std::vector<StreamDigests>& streams) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    writer.StartArray();
    for (const auto& stream : streams) {
        writer.StartObject();
        writer.Key("stream");
        writer.String(stream.stream.c_str());
        writer.Key("count");
        writer.Uint64(stream.count);
        writer.Key("key");
        writer.StartArray();
        for (const auto& pointer : stream.key) {
            writer.String(pointer.c_str());
        }
        writer.EndArray();
        writer.Key("digest");
        writer.String(stream.digest.c_str());
        if (stream.complete) {
            writer.Key("records");
            writer.StartObject();
            for (const auto& [identity, content] : stream.records) {
                writer.Key(identity.c_str(), static_cast<rapidjson::SizeType>(identity.size()));
                writer.String(content.c_str());
            }
            writer.EndObject();
        }
        writer.EndObject();
    }
    writer.EndArray();
    return buffer.GetString();
}

std::string with_member(const std::string& report_json, std::string_view name,
                        const std::string& member_json) {
    auto closing = report_json.rfind('}');
    if (closing == std::string::npos) {
        throw_internal_error("the JSON report to extend is not an object");
    }
    return fmt::format("{},\"{}\":{}{}", report_json.substr(0, closing), name, member_json,
                       report_json.substr(closing));
}

Baseline load_baseline(const std::string& path) {
    auto document = json::parse_json_text(read_text_file(path), path);
    if (!document.IsObject() || !document.HasMember("scenarios") ||
        !document["scenarios"].IsArray()) {
        throw_input_error(fmt::format(
            "{}: expected a JSON report of `conform run --report-json` (with \"scenarios\")",
            path));
    }
    Baseline baseline;
    for (const auto& scenario : document["scenarios"].GetArray()) {
        report::ScenarioResult result;
        result.id = string_of(scenario, "id", path);
        if (scenario.HasMember("checks") && scenario["checks"].IsArray()) {
            for (const auto& check : scenario["checks"].GetArray()) {
                report::CheckResult verdict;
                verdict.id = string_of(check, "id", path);
                verdict.status = status_named(string_of(check, "status", path));
                result.checks.push_back(verdict);
            }
        }
        baseline.verdicts.scenarios.push_back(result);
    }
    if (document.HasMember("streams") && document["streams"].IsArray()) {
        for (const auto& entry : document["streams"].GetArray()) {
            baseline.streams.push_back(stream_of(entry, path));
        }
    }
    return baseline;
}

std::vector<Change> diff_digests(const std::vector<StreamDigests>& baseline,
                                 const std::vector<StreamDigests>& current) {
    std::vector<Change> changes;
    std::map<std::string, const StreamDigests*> now;
    for (const auto& stream : current) {
        now[stream.stream] = &stream;
    }
    for (const auto& before : baseline) {
        auto found = now.find(before.stream);
        if (found == now.end()) {
            changes.push_back({"records.removed",
                               before.stream,
                               fmt::format("{} record(s) in the baseline, none now", before.count),
                               true,
                               {}});
            continue;
        }
        const auto& after = *found->second;
        if (before.digest == after.digest) {
            continue;
        }
        if (!before.complete || !after.complete) {
            changes.push_back({"records.changed",
                               before.stream,
                               fmt::format("{} -> {} records, contents differ (over {} records "
                                           "only the whole stream's digest is kept)",
                                           before.count, after.count, k_max_baseline_records),
                               true,
                               {}});
            continue;
        }
        if (before.key.empty() && after.key.empty()) {
            compare_keyless(before, after, changes);
        } else {
            compare_keyed(before, after, changes);
        }
    }
    return changes;
}

}  // namespace conform::diff
