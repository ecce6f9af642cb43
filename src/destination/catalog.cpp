#include "destination/catalog.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>

#include "json/parse.hpp"
#include "json/write.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::destination {

namespace {

std::optional<SyncMode> mode_named(std::string_view name) {
    if (name == "append") {
        return SyncMode::append;
    }
    if (name == "overwrite") {
        return SyncMode::overwrite;
    }
    if (name == "append_dedup") {
        return SyncMode::append_dedup;
    }
    return std::nullopt;
}

std::vector<std::string> top_level_fields(const rapidjson::Value& schema) {
    std::vector<std::string> fields;
    if (!schema.IsObject() || !schema.HasMember("properties") || !schema["properties"].IsObject()) {
        return fields;
    }
    for (const auto& member : schema["properties"].GetObject()) {
        fields.emplace_back(member.name.GetString(), member.name.GetStringLength());
    }
    std::sort(fields.begin(), fields.end());
    return fields;
}

const rapidjson::Value* at_path(const rapidjson::Value& data, const protocol::FieldPath& path) {
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

void set_integer(rapidjson::Value& object, const char* name, int value,
                 rapidjson::Document::AllocatorType& allocator) {
    if (object.HasMember(name)) {
        object[name].SetInt(value);
    } else {
        object.AddMember(rapidjson::StringRef(name), rapidjson::Value(value), allocator);
    }
}

}  // namespace

std::string_view to_string(SyncMode mode) {
    switch (mode) {
        case SyncMode::append:
            return "append";
        case SyncMode::overwrite:
            return "overwrite";
        case SyncMode::append_dedup:
            return "append_dedup";
    }
    return "?";
}

struct Catalog::Document {
    rapidjson::Document json;
};

Catalog::Catalog(std::string_view text, std::string origin)
    : m_document(std::make_unique<Document>()), m_origin(std::move(origin)) {
    m_document->json = json::parse_json_text(text, m_origin);
    const auto& json = m_document->json;
    auto airbyte = protocol::load_catalog(json, m_origin, {});
    const auto& configured = json["streams"];
    for (std::size_t i = 0; i < airbyte.streams.size(); ++i) {
        const auto& entry = configured[static_cast<rapidjson::SizeType>(i)];
        auto where = fmt::format("{}: streams/{}", m_origin, i);
        std::string mode_text =
            entry.HasMember("destination_sync_mode") && entry["destination_sync_mode"].IsString()
                ? entry["destination_sync_mode"].GetString()
                : "append";
        auto mode = mode_named(mode_text);
        if (!mode) {
            throw_input_error(
                fmt::format("{}/destination_sync_mode: '{}'; conform judges append, overwrite and "
                            "append_dedup",
                            where, mode_text));
        }
        Stream stream{std::move(airbyte.streams[i]), *mode,
                      top_level_fields(entry["stream"]["json_schema"])};
        if (stream.mode == SyncMode::append_dedup && stream.airbyte.primary_key.empty()) {
            throw_input_error(fmt::format(
                "{}: stream '{}' is append_dedup without a primary key (primary_key or the "
                "stream's source_defined_primary_key)",
                where, stream.airbyte.display_name()));
        }
        m_streams.push_back(std::move(stream));
    }
    if (m_streams.empty()) {
        throw_input_error(fmt::format("{}: the catalog has no stream to write", m_origin));
    }
}

Catalog::Catalog() : m_document(std::make_unique<Document>()) {}

Catalog::~Catalog() = default;
Catalog::Catalog(Catalog&&) noexcept = default;
Catalog& Catalog::operator=(Catalog&&) noexcept = default;

std::optional<std::size_t> Catalog::find(std::string_view name,
                                         std::optional<std::string_view> name_space) const {
    for (std::size_t i = 0; i < m_streams.size(); ++i) {
        const auto& stream = m_streams[i].airbyte;
        if (stream.name == name &&
            (!name_space || !stream.name_space || *stream.name_space == *name_space)) {
            return i;
        }
    }
    return std::nullopt;
}

std::vector<std::string> Catalog::namespaces_of(std::string_view name) const {
    std::vector<std::string> found;
    for (const auto& stream : m_streams) {
        if (stream.airbyte.name == name) {
            found.push_back(stream.airbyte.name_space.value_or("(no namespace)"));
        }
    }
    return found.size() > 1 ? found : std::vector<std::string>{};
}

std::string Catalog::for_sync(int sync) const {
    rapidjson::Document copy;
    copy.CopyFrom(m_document->json, copy.GetAllocator());
    auto& allocator = copy.GetAllocator();
    auto& streams = copy["streams"];
    for (rapidjson::SizeType i = 0; i < streams.Size(); ++i) {
        bool overwrite = m_streams[i].mode == SyncMode::overwrite;
        set_integer(streams[i], "generation_id", sync, allocator);
        set_integer(streams[i], "minimum_generation_id", overwrite ? sync : 0, allocator);
        set_integer(streams[i], "sync_id", sync, allocator);
    }
    return json::to_json(copy);
}

struct Identity::Impl {
    const Catalog& catalog;
    json::Digester digester;
    rapidjson::Document scratch;

    explicit Impl(const Catalog& of) : catalog(of) {}
};

Identity::Identity(const Catalog& catalog) : m_impl(std::make_unique<Impl>(catalog)) {}
Identity::~Identity() = default;
Identity::Identity(Identity&&) noexcept = default;
Identity& Identity::operator=(Identity&&) noexcept = default;

json::Digest Identity::content(std::size_t stream, const rapidjson::Value& data) {
    const auto& fields = m_impl->catalog.streams()[stream].fields;
    auto& allocator = m_impl->scratch.GetAllocator();
    rapidjson::Value reduced(rapidjson::kObjectType);
    if (data.IsObject()) {
        for (const auto& member : data.GetObject()) {
            std::string_view name(member.name.GetString(), member.name.GetStringLength());
            if (member.value.IsNull() ||
                (!fields.empty() && !std::binary_search(fields.begin(), fields.end(), name))) {
                continue;
            }
            reduced.AddMember(rapidjson::Value(member.name, allocator),
                              rapidjson::Value(member.value, allocator), allocator);
        }
    }
    auto digest = m_impl->digester.digest(reduced);
    m_impl->scratch.GetAllocator().Clear();
    return digest;
}

std::optional<json::Digest> Identity::key(std::size_t stream, const rapidjson::Value& data) {
    const auto& key = m_impl->catalog.streams()[stream].airbyte.primary_key;
    if (key.empty()) {
        return std::nullopt;
    }
    auto& allocator = m_impl->scratch.GetAllocator();
    rapidjson::Value values(rapidjson::kArrayType);
    for (const auto& path : key) {
        const auto* value = at_path(data, path);
        if (value == nullptr || value->IsNull()) {
            return std::nullopt;
        }
        values.PushBack(rapidjson::Value(*value, allocator), allocator);
    }
    auto digest = m_impl->digester.digest(values);
    m_impl->scratch.GetAllocator().Clear();
    return digest;
}

std::string Identity::key_text(std::size_t stream, const rapidjson::Value& data) const {
    std::vector<std::string> parts;
    for (const auto& path : m_impl->catalog.streams()[stream].airbyte.primary_key) {
        const auto* value = at_path(data, path);
        parts.push_back(value == nullptr ? "?" : json::to_json(*value));
    }
    return parts.empty() ? std::string() : excerpt(fmt::format("[{}]", fmt::join(parts, ",")), 60);
}

std::optional<protocol::CursorValue> Identity::cursor(std::size_t stream,
                                                      const rapidjson::Value& data) const {
    const auto& path = m_impl->catalog.streams()[stream].airbyte.cursor_field;
    const auto* value = path.empty() ? nullptr : at_path(data, path);
    if (value == nullptr) {
        return std::nullopt;
    }
    if (value->IsNumber()) {
        return protocol::CursorValue{value->GetDouble(), std::nullopt};
    }
    if (value->IsString()) {
        return protocol::CursorValue{std::nullopt, std::string(value->GetString())};
    }
    return std::nullopt;
}

}  // namespace conform::destination
