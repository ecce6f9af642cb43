#include "protocol/catalog.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include "json/member.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"

namespace conform::protocol {

namespace {

std::string_view string_of(const rapidjson::Value& value) {
    return {value.GetString(), value.GetStringLength()};
}

// What a user who gave discover's output where a configured catalog goes reads next.
constexpr std::string_view k_discovered_stream_hint =
    ": this is a discovered stream (an AirbyteCatalog's, as discover lists it), not a configured "
    "one ({\"stream\": {...}, \"sync_mode\": ..., \"destination_sync_mode\": ...}); `conform "
    "run` given no catalog configures what discover lists";
constexpr std::string_view k_catalog_message_hint =
    ": this holds a 'catalog' (a CATALOG message, as discover emits it), not a configured one; "
    "`conform run` given no catalog configures what discover lists";

FieldPath read_field_path(const rapidjson::Value& value, std::string_view where) {
    FieldPath path;
    if (!value.IsArray()) {
        throw_input_error(fmt::format("{}: expected an array of field names", where));
    }
    for (const auto& part : value.GetArray()) {
        if (!part.IsString()) {
            throw_input_error(fmt::format("{}: expected field names as strings", where));
        }
        path.emplace_back(string_of(part));
    }
    return path;
}

bool non_empty_array(const rapidjson::Value& object, const char* name) {
    return object.HasMember(name) && object[name].IsArray() && !object[name].Empty();
}

// The cursor as the protocol resolves it: the source's own when `source_defined_cursor`, else the
// configured `cursor_field`, else the stream's `default_cursor_field`.
FieldPath cursor_of(const rapidjson::Value& configured, const rapidjson::Value& stream,
                    std::string_view where) {
    bool source_defined =
        stream.HasMember("source_defined_cursor") && stream["source_defined_cursor"].IsTrue();
    if (source_defined && non_empty_array(stream, "default_cursor_field")) {
        return read_field_path(stream["default_cursor_field"], where);
    }
    // null is Airbyte's model's absent value (Optional[List[str]]); the builder writes it.
    const auto* configured_cursor = json::member(configured, "cursor_field");
    if (configured_cursor != nullptr && !configured_cursor->IsNull() &&
        (!configured_cursor->IsArray() || !configured_cursor->Empty())) {
        return read_field_path(*configured_cursor, where);
    }
    if (non_empty_array(stream, "default_cursor_field")) {
        return read_field_path(stream["default_cursor_field"], where);
    }
    return {};
}

// The configured `primary_key`, or the stream's `source_defined_primary_key` when none is
// configured ("unless it is already supplied by the source").
std::vector<FieldPath> primary_key_of(const rapidjson::Value& configured,
                                      const rapidjson::Value& stream, std::string_view where) {
    const char* member = non_empty_array(configured, "primary_key") ? "primary_key" : nullptr;
    const rapidjson::Value* owner = &configured;
    if (member == nullptr && non_empty_array(stream, "source_defined_primary_key")) {
        member = "source_defined_primary_key";
        owner = &stream;
    }
    std::vector<FieldPath> key;
    if (member != nullptr) {
        for (const auto& path : (*owner)[member].GetArray()) {
            // An empty path (`[[]]`) names no field: it adds nothing to the key.
            if (auto field = read_field_path(path, where); !field.empty()) {
                key.push_back(std::move(field));
            }
        }
    }
    return key;
}

CatalogStream read_stream(const rapidjson::Value& configured, std::string_view where,
                          const std::map<std::string, std::vector<std::string>>& volatile_fields) {
    if (!configured.IsObject() || !configured.HasMember("stream") ||
        !configured["stream"].IsObject()) {
        bool discovered = configured.IsObject() && configured.HasMember("name") &&
                          configured.HasMember("json_schema");
        throw_input_error(fmt::format("{}: expected an object with a 'stream' object{}", where,
                                      discovered ? k_discovered_stream_hint : ""));
    }
    const auto& stream = configured["stream"];
    CatalogStream result;
    if (!stream.HasMember("name") || !stream["name"].IsString()) {
        throw_input_error(fmt::format("{}/stream/name: expected a string", where));
    }
    result.name = string_of(stream["name"]);
    if (stream.HasMember("namespace") && stream["namespace"].IsString()) {
        result.name_space = std::string(string_of(stream["namespace"]));
    }
    result.sync_mode = configured.HasMember("sync_mode") && configured["sync_mode"].IsString()
                           ? std::string(string_of(configured["sync_mode"]))
                           : "full_refresh";
    result.cursor_field = cursor_of(configured, stream, where);
    if (stream.HasMember("supported_sync_modes") && stream["supported_sync_modes"].IsArray()) {
        for (const auto& mode : stream["supported_sync_modes"].GetArray()) {
            result.supports_full_refresh = result.supports_full_refresh ||
                                           (mode.IsString() && string_of(mode) == "full_refresh");
        }
    }
    result.primary_key = primary_key_of(configured, stream, where);
    if (!stream.HasMember("json_schema")) {
        throw_input_error(fmt::format("{}/stream/json_schema: missing", where));
    }
    result.json_schema = json::to_json(stream["json_schema"]);
    const auto& json_schema = stream["json_schema"];
    result.schema_empty = (json_schema.IsObject() && json_schema.MemberCount() == 0) ||
                          (json_schema.IsBool() && json_schema.GetBool());
    try {
        result.schema =
            std::make_shared<const schema::Schema>(schema::Schema::compile(stream["json_schema"]));
    } catch (const Error& error) {
        throw_input_error(fmt::format("{}/stream/json_schema: {}", where, error.what()));
    }
    if (auto found = volatile_fields.find(result.name); found != volatile_fields.end()) {
        result.volatile_pointers = found->second;
    }
    return result;
}

void add_member(rapidjson::Value& object, std::string_view name, rapidjson::Value value,
                rapidjson::Document::AllocatorType& allocator) {
    rapidjson::Value key(name.data(), static_cast<rapidjson::SizeType>(name.size()), allocator);
    object.RemoveMember(key);
    object.AddMember(key, value, allocator);
}

}  // namespace

std::string to_pointer(const FieldPath& path) {
    std::string pointer;
    for (const auto& part : path) {
        pointer += '/';
        pointer += json::escape_pointer_token(part);
    }
    return pointer;
}

std::string CatalogStream::display_name() const {
    return name_space ? *name_space + "." + name : name;
}

std::optional<std::size_t> Catalog::find(std::string_view name,
                                         std::optional<std::string_view> name_space) const {
    for (std::size_t i = 0; i < streams.size(); ++i) {
        const auto& stream = streams[i];
        if (stream.name != name) {
            continue;
        }
        if (!name_space || !stream.name_space || *stream.name_space == *name_space) {
            return i;
        }
    }
    return std::nullopt;
}

Catalog load_catalog(const rapidjson::Value& document, std::string_view origin,
                     const std::map<std::string, std::vector<std::string>>& volatile_fields) {
    if (!document.IsObject() || !document.HasMember("streams") || !document["streams"].IsArray()) {
        bool message = document.IsObject() && document.HasMember("catalog");
        throw_input_error(
            fmt::format("{}: expected a ConfiguredAirbyteCatalog with a 'streams' array{}", origin,
                        message ? k_catalog_message_hint : ""));
    }
    Catalog catalog;
    catalog.document = json::to_json(document);
    std::size_t index = 0;
    for (const auto& configured : document["streams"].GetArray()) {
        catalog.streams.push_back(read_stream(
            configured, fmt::format("{}: /streams/{}", origin, index++), volatile_fields));
    }
    return catalog;
}

std::string configure_discovered(const rapidjson::Value& airbyte_catalog) {
    rapidjson::Document configured(rapidjson::kObjectType);
    auto& allocator = configured.GetAllocator();
    rapidjson::Value streams(rapidjson::kArrayType);
    if (airbyte_catalog.IsObject() && airbyte_catalog.HasMember("streams") &&
        airbyte_catalog["streams"].IsArray()) {
        for (const auto& stream : airbyte_catalog["streams"].GetArray()) {
            rapidjson::Value entry(rapidjson::kObjectType);
            bool incremental = false;
            if (stream.HasMember("supported_sync_modes") &&
                stream["supported_sync_modes"].IsArray()) {
                for (const auto& mode : stream["supported_sync_modes"].GetArray()) {
                    incremental =
                        incremental || (mode.IsString() && string_of(mode) == "incremental");
                }
            }
            bool has_cursor = stream.HasMember("default_cursor_field");
            incremental = incremental && has_cursor;
            entry.AddMember("stream", rapidjson::Value(stream, allocator), allocator);
            entry.AddMember("sync_mode",
                            rapidjson::StringRef(incremental ? "incremental" : "full_refresh"),
                            allocator);
            entry.AddMember("destination_sync_mode",
                            rapidjson::StringRef(incremental ? "append" : "overwrite"), allocator);
            if (incremental) {
                entry.AddMember("cursor_field",
                                rapidjson::Value(stream["default_cursor_field"], allocator),
                                allocator);
            }
            if (stream.HasMember("source_defined_primary_key")) {
                entry.AddMember("primary_key",
                                rapidjson::Value(stream["source_defined_primary_key"], allocator),
                                allocator);
            }
            streams.PushBack(entry, allocator);
        }
    }
    configured.AddMember("streams", streams, allocator);
    return json::to_json(configured);
}

Catalog as_full_refresh(const Catalog& catalog) {
    Catalog result = catalog;
    auto document = json::parse_json_text(catalog.document, "catalog");
    auto& allocator = document.GetAllocator();
    auto& configured = document["streams"];
    for (rapidjson::SizeType i = 0; i < configured.Size(); ++i) {
        auto& stream = result.streams[i];
        if (!stream.supports_full_refresh) {
            continue;
        }
        stream.sync_mode = "full_refresh";
        add_member(configured[i], "sync_mode", rapidjson::Value("full_refresh"), allocator);
        add_member(configured[i], "destination_sync_mode", rapidjson::Value("overwrite"),
                   allocator);
    }
    result.document = json::to_json(document);
    return result;
}

std::string write_catalog(const Catalog& catalog, const CatalogExtensions& extensions,
                          KeySpelling spelling) {
    auto document = json::parse_json_text(catalog.document, "catalog");
    auto& allocator = document.GetAllocator();
    std::string prefix = spelling == KeySpelling::estuary ? "estuary.dev/" : "";
    if (extensions.tail) {
        add_member(document, prefix + "tail", rapidjson::Value(*extensions.tail), allocator);
    }
    if (extensions.range_json) {
        auto range = json::parse_json_text(*extensions.range_json, "range");
        add_member(document, prefix + "range", rapidjson::Value(range, allocator), allocator);
    }
    for (auto& configured : document["streams"].GetArray()) {
        std::string name = configured["stream"]["name"].GetString();
        auto found = extensions.projections.find(name);
        if (found == extensions.projections.end()) {
            continue;
        }
        rapidjson::Value map(rapidjson::kObjectType);
        for (const auto& [field, pointer] : found->second) {
            map.AddMember(rapidjson::Value(field.c_str(), allocator),
                          rapidjson::Value(pointer.c_str(), allocator), allocator);
        }
        add_member(configured, prefix + "projections", std::move(map), allocator);
    }
    return json::to_json(document);
}

}  // namespace conform::protocol
