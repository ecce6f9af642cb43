#pragma once

#include <rapidjson/fwd.h>

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/digest.hpp"
#include "protocol/catalog.hpp"
#include "protocol/observation.hpp"

// The configured catalog a destination writes, and how conform tells one record from another in
// what it sends and in what the destination holds.
namespace conform::destination {

// The destination sync modes conform judges (docs/destinations.md).
enum class SyncMode { append, overwrite, append_dedup };

std::string_view to_string(SyncMode mode);

struct Stream {
    protocol::CatalogStream airbyte;  // name, namespace, key, cursor, compiled schema
    SyncMode mode = SyncMode::append;
    // The top-level properties of the stream's schema: records and rows are compared on these
    // (extra members a destination adds, and nulls, are left out). Empty: every member.
    std::vector<std::string> fields;
};

// A configured catalog with a destination_sync_mode per stream.
class Catalog {
public:
    // Throws conform::Error (input) naming `origin` for a catalog conform cannot use: not a
    // ConfiguredAirbyteCatalog, a sync mode other than append, overwrite and append_dedup, or
    // append_dedup without a primary key.
    Catalog(std::string_view text, std::string origin);
    // No catalog: no stream (a test config that writes nothing).
    Catalog();
    ~Catalog();
    Catalog(Catalog&&) noexcept;
    Catalog& operator=(Catalog&&) noexcept;

    const std::vector<Stream>& streams() const { return m_streams; }
    const std::string& origin() const { return m_origin; }
    std::optional<std::size_t> find(std::string_view name,
                                    std::optional<std::string_view> name_space) const;
    // The namespaces the catalog has a stream `name` in, when more than one.
    std::vector<std::string> namespaces_of(std::string_view name) const;
    // The catalog `write` gets for sync `sync` (1, 2, ...): generation_id and sync_id are the sync,
    // minimum_generation_id is the sync for overwrite streams (the sync replaces what came before)
    // and 0 for the others.
    std::string for_sync(int sync) const;

private:
    struct Document;
    std::unique_ptr<Document> m_document;
    std::vector<Stream> m_streams;
    std::string m_origin;
};

// What tells records apart: the record's data reduced to its stream's fields, without nulls
// (content), and its primary key (key). Digests of the same values are equal in the records
// conform sends and in the rows a verify command prints back.
class Identity {
public:
    explicit Identity(const Catalog& catalog);
    ~Identity();
    Identity(Identity&&) noexcept;
    Identity& operator=(Identity&&) noexcept;

    json::Digest content(std::size_t stream, const rapidjson::Value& data);
    // Nothing when the stream has no primary key or a key field is missing or null.
    std::optional<json::Digest> key(std::size_t stream, const rapidjson::Value& data);
    // The key as text for reports ("[12]"); empty without one.
    std::string key_text(std::size_t stream, const rapidjson::Value& data) const;
    std::optional<protocol::CursorValue> cursor(std::size_t stream,
                                                const rapidjson::Value& data) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace conform::destination
