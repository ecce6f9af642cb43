#include "singer/catalog.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "json/bounded_parse.hpp"
#include "json/write.hpp"

namespace conform::singer {

namespace {

// `valid-replication-keys`: a list, or a bare string as singer-io's tap-github writes it (through
// singer-python's get_standard_metadata); sg.catalog_metadata reports that, the key is used all
// the same.
std::vector<std::string> replication_keys_of(const rapidjson::Value& values) {
    auto found = values.FindMember("valid-replication-keys");
    if (found != values.MemberEnd() && found->value.IsString()) {
        return {found->value.GetString()};
    }
    return strings_member(values, "valid-replication-keys");
}

std::string string_member(const rapidjson::Value& object, const char* name) {
    auto it = object.FindMember(name);
    return it != object.MemberEnd() && it->value.IsString() ? std::string(it->value.GetString())
                                                            : std::string();
}

// The field a breadcrumb names: ["properties", NAME]; empty for the stream ([]) or a deeper one.
std::optional<std::string> field_of(const rapidjson::Value& breadcrumb) {
    if (!breadcrumb.IsArray()) {
        return std::nullopt;
    }
    if (breadcrumb.Size() == 0) {
        return std::string();
    }
    if (breadcrumb.Size() == 2 && breadcrumb[0].IsString() &&
        std::string_view(breadcrumb[0].GetString()) == "properties" && breadcrumb[1].IsString()) {
        return std::string(breadcrumb[1].GetString());
    }
    return std::nullopt;
}

CatalogStream read_stream(const rapidjson::Value& entry) {
    CatalogStream stream;
    stream.tap_stream_id = string_member(entry, "tap_stream_id");
    stream.stream = string_member(entry, "stream");
    if (stream.stream.empty()) {
        stream.stream = stream.tap_stream_id;
    }
    if (stream.tap_stream_id.empty()) {
        stream.tap_stream_id = stream.stream;
    }
    // singer-python's Schema keeps a field's inclusion in the schema itself, where the older
    // database taps write it (tap-mysql: "inclusion": "automatic" on its key columns, none in
    // its metadata); metadata says it where both do.
    std::map<std::string, std::string> schema_inclusion;
    auto schema = entry.FindMember("schema");
    if (schema != entry.MemberEnd() && schema->value.IsObject()) {
        auto properties = schema->value.FindMember("properties");
        if (properties != schema->value.MemberEnd() && properties->value.IsObject()) {
            for (const auto& member : properties->value.GetObject()) {
                stream.properties.emplace_back(member.name.GetString());
                if (member.value.IsObject()) {
                    auto inclusion = string_member(member.value, "inclusion");
                    if (!inclusion.empty()) {
                        schema_inclusion[member.name.GetString()] = inclusion;
                    }
                }
            }
        }
    }
    auto metadata = entry.FindMember("metadata");
    if (metadata != entry.MemberEnd() && metadata->value.IsArray()) {
        for (const auto& item : metadata->value.GetArray()) {
            if (!item.IsObject() || !item.HasMember("breadcrumb") || !item.HasMember("metadata") ||
                !item["metadata"].IsObject()) {
                continue;
            }
            auto field = field_of(item["breadcrumb"]);
            const auto& values = item["metadata"];
            if (!field) {
                continue;
            }
            if (field->empty()) {
                stream.key_properties = strings_member(values, "table-key-properties");
                stream.valid_replication_keys = replication_keys_of(values);
                stream.forced_replication_method =
                    string_member(values, "forced-replication-method");
                stream.parent_tap_stream_id = string_member(values, "parent-tap-stream-id");
            } else {
                auto inclusion = string_member(values, "inclusion");
                auto in_schema = schema_inclusion.find(*field);
                stream.inclusion[*field] = !inclusion.empty()                    ? inclusion
                                           : in_schema != schema_inclusion.end() ? in_schema->second
                                                                                 : "available";
            }
        }
    }
    for (const auto& [field, inclusion] : schema_inclusion) {
        stream.inclusion.try_emplace(field, inclusion);
    }
    if (stream.forced_replication_method == "LOG_BASED") {
        stream.log_based = true;
    } else if (!stream.valid_replication_keys.empty() &&
               stream.forced_replication_method != "FULL_TABLE") {
        stream.replication_key = stream.valid_replication_keys.front();
    }
    return stream;
}

rapidjson::Value text_value(std::string_view text, rapidjson::Document::AllocatorType& alloc) {
    rapidjson::Value value;
    value.SetString(text.data(), static_cast<rapidjson::SizeType>(text.size()), alloc);
    return value;
}

// The metadata object of `breadcrumb` in `metadata` (an array), added when absent.
rapidjson::Value& metadata_of(rapidjson::Value& metadata, const std::optional<std::string>& field,
                              rapidjson::Document::AllocatorType& alloc) {
    for (auto& item : metadata.GetArray()) {
        if (item.IsObject() && item.HasMember("breadcrumb") && item.HasMember("metadata") &&
            item["metadata"].IsObject() && field_of(item["breadcrumb"]) == field.value_or("")) {
            return item["metadata"];
        }
    }
    rapidjson::Value item(rapidjson::kObjectType);
    rapidjson::Value breadcrumb(rapidjson::kArrayType);
    if (field && !field->empty()) {
        breadcrumb.PushBack(text_value("properties", alloc), alloc);
        breadcrumb.PushBack(text_value(*field, alloc), alloc);
    }
    item.AddMember("breadcrumb", breadcrumb, alloc);
    item.AddMember("metadata", rapidjson::Value(rapidjson::kObjectType), alloc);
    metadata.PushBack(item, alloc);
    return metadata[metadata.Size() - 1]["metadata"];
}

void set_member(rapidjson::Value& object, const char* name, rapidjson::Value value,
                rapidjson::Document::AllocatorType& alloc) {
    auto it = object.FindMember(name);
    if (it != object.MemberEnd()) {
        it->value = value;
    } else {
        object.AddMember(text_value(name, alloc), value, alloc);
    }
}

// The method and key in the metadata, where the Singer docs put them, and on the entry, the
// older form singer-sdk up to 0.34 reads (and Meltano writes both).
void write_replication(rapidjson::Value& entry, rapidjson::Value& top, const CatalogStream& stream,
                       rapidjson::Document::AllocatorType& alloc) {
    auto method = stream.replication_method();
    set_member(top, "replication-method", text_value(method, alloc), alloc);
    set_member(entry, "replication_method", text_value(method, alloc), alloc);
    if (stream.incremental()) {
        set_member(top, "replication-key", text_value(stream.replication_key, alloc), alloc);
        set_member(entry, "replication_key", text_value(stream.replication_key, alloc), alloc);
    }
}

}  // namespace

std::vector<std::string> strings_member(const rapidjson::Value& object, const char* name) {
    std::vector<std::string> out;
    auto it = object.FindMember(name);
    if (it != object.MemberEnd() && it->value.IsArray()) {
        for (const auto& item : it->value.GetArray()) {
            if (item.IsString()) {
                out.emplace_back(item.GetString());
            }
        }
    }
    return out;
}

std::string_view CatalogStream::replication_method() const {
    return log_based ? "LOG_BASED" : incremental() ? "INCREMENTAL" : "FULL_TABLE";
}

bool CatalogStream::replication_key_offered() const {
    return incremental() && std::find(valid_replication_keys.begin(), valid_replication_keys.end(),
                                      replication_key) != valid_replication_keys.end();
}

std::set<std::string> CatalogStream::automatic_fields() const {
    std::set<std::string> fields(key_properties.begin(), key_properties.end());
    if (replication_key_offered()) {
        fields.insert(replication_key);
    }
    for (const auto& [field, kind] : inclusion) {
        if (kind == "automatic") {
            fields.insert(field);
        }
    }
    return fields;
}

std::vector<std::string> CatalogStream::available_fields() const {
    auto automatic = automatic_fields();
    std::vector<std::string> fields;
    for (const auto& property : properties) {
        auto it = inclusion.find(property);
        bool available = it == inclusion.end() || it->second == "available";
        if (available && !automatic.contains(property) && property != replication_key) {
            fields.push_back(property);
        }
    }
    return fields;
}

std::optional<Catalog> Catalog::read(std::string_view text, std::string& problem) {
    auto document = std::make_shared<rapidjson::Document>();
    auto parse = json::parse_bounded(*document, text);
    if (parse.failed()) {
        problem = fmt::format("stdout is not one JSON document ({} at offset {})",
                              json::reason_of(parse), parse.offset);
        return std::nullopt;
    }
    if (!document->IsObject() || !document->HasMember("streams") ||
        !(*document)["streams"].IsArray()) {
        problem = "the catalog is not an object with a \"streams\" array";
        return std::nullopt;
    }
    Catalog catalog;
    for (const auto& entry : (*document)["streams"].GetArray()) {
        if (entry.IsObject()) {
            catalog.m_streams.push_back(read_stream(entry));
        }
    }
    catalog.m_document = std::move(document);
    return catalog;
}

const CatalogStream* Catalog::find(std::string_view name) const {
    auto index = index_of(name);
    return index < m_streams.size() ? &m_streams[index] : nullptr;
}

std::string Catalog::use_replication_key(std::string_view tap_stream_id, const std::string& key) {
    auto found = std::find_if(m_streams.begin(), m_streams.end(), [&](const CatalogStream& stream) {
        return stream.tap_stream_id == tap_stream_id;
    });
    if (found == m_streams.end()) {
        return "the tap's catalog has no such stream";
    }
    if (found->forced_replication_method == "FULL_TABLE" ||
        found->forced_replication_method == "LOG_BASED") {
        return fmt::format("its catalog forces {} replication", found->forced_replication_method);
    }
    const auto& properties = found->properties;
    if (!properties.empty() &&
        std::find(properties.begin(), properties.end(), key) == properties.end()) {
        return fmt::format("its schema has no top-level property '{}'", key);
    }
    found->replication_key = key;
    return "";
}

std::string Catalog::use_log_based(std::string_view tap_stream_id) {
    auto found = std::find_if(m_streams.begin(), m_streams.end(), [&](const CatalogStream& stream) {
        return stream.tap_stream_id == tap_stream_id;
    });
    if (found == m_streams.end()) {
        return "the tap's catalog has no such stream";
    }
    const auto& forced = found->forced_replication_method;
    if (!forced.empty() && forced != "LOG_BASED") {
        return fmt::format("its catalog forces {} replication", forced);
    }
    found->replication_key.clear();
    found->log_based = true;
    return "";
}

std::string Catalog::stream_name_of(std::string_view name) const {
    auto named = [&](const CatalogStream& stream) { return stream.stream == name; };
    if (std::any_of(m_streams.begin(), m_streams.end(), named)) {
        return std::string(name);
    }
    auto found = std::find_if(m_streams.begin(), m_streams.end(), [&](const CatalogStream& stream) {
        return stream.tap_stream_id == name;
    });
    return found != m_streams.end() ? found->stream : std::string(name);
}

std::uint32_t Catalog::index_of(std::string_view name) const {
    for (std::size_t i = 0; i < m_streams.size(); ++i) {
        if (m_streams[i].stream == name || m_streams[i].tap_stream_id == name) {
            return static_cast<std::uint32_t>(i);
        }
    }
    return static_cast<std::uint32_t>(m_streams.size());
}

std::string Catalog::write(const std::vector<std::string>& streams,
                           const Selection& selection) const {
    rapidjson::Document out;
    out.CopyFrom(*m_document, out.GetAllocator());
    auto& alloc = out.GetAllocator();
    std::size_t index = 0;
    for (auto& entry : out["streams"].GetArray()) {
        if (!entry.IsObject()) {
            continue;
        }
        const auto& stream = m_streams.at(index++);
        bool under_test =
            std::find(streams.begin(), streams.end(), stream.tap_stream_id) != streams.end();
        auto chosen = selection.find(stream.tap_stream_id);
        bool selected = under_test && (chosen == selection.end() || chosen->second.selected);
        if (!entry.HasMember("metadata") || !entry["metadata"].IsArray()) {
            set_member(entry, "metadata", rapidjson::Value(rapidjson::kArrayType), alloc);
        }
        auto& metadata = entry["metadata"];
        auto& top = metadata_of(metadata, std::string(), alloc);
        set_member(top, "selected", rapidjson::Value(selected), alloc);
        if (!selected) {
            continue;
        }
        write_replication(entry, top, stream, alloc);
        for (const auto& field : stream.properties) {
            auto inclusion = stream.inclusion.find(field);
            if (inclusion != stream.inclusion.end() && inclusion->second == "unsupported") {
                continue;
            }
            bool keep =
                chosen == selection.end() || !chosen->second.deselected_fields.contains(field);
            set_member(metadata_of(metadata, field, alloc), "selected", rapidjson::Value(keep),
                       alloc);
        }
    }
    return json::to_json(out);
}

}  // namespace conform::singer
