#pragma once

#include <rapidjson/fwd.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace conform::schema {
class Schema;
}

namespace conform::protocol {

// A field path as Airbyte writes it: ["address", "city"].
using FieldPath = std::vector<std::string>;

std::string to_pointer(const FieldPath& path);

struct CatalogStream {
    std::string name;
    std::optional<std::string> name_space;
    std::string sync_mode;
    FieldPath cursor_field;
    std::vector<FieldPath> primary_key;
    std::shared_ptr<const schema::Schema> schema;
    std::string json_schema;  // the stream's json_schema as JSON text
    std::vector<std::string> volatile_pointers;

    bool supports_full_refresh = false;  // its supported_sync_modes list full_refresh
    // Its json_schema accepts anything ({} or true), the usual style of a hand-written
    // configured_catalog.json: nothing would be validated.
    bool schema_empty = false;
    // Where the schema conform validates with comes from: empty for the configured catalog's,
    // "discover" when discover's replaced an empty one.
    std::string schema_source;

    bool incremental() const { return sync_mode == "incremental"; }
    // "events" or "public.events".
    std::string display_name() const;
};

// A ConfiguredAirbyteCatalog with each stream's schema compiled.
struct Catalog {
    std::vector<CatalogStream> streams;
    std::string document;  // the catalog as given, before extension keys are added

    // Index of the stream a RECORD or STATE names; a missing namespace matches by name alone.
    std::optional<std::size_t> find(std::string_view name,
                                    std::optional<std::string_view> name_space) const;
};

// Reads a ConfiguredAirbyteCatalog. Throws conform::Error (input) naming `origin` when the
// document is not a catalog or a stream schema does not compile.
Catalog load_catalog(const rapidjson::Value& document, std::string_view origin,
                     const std::map<std::string, std::vector<std::string>>& volatile_fields);

// Builds a configured catalog from a discovered AirbyteCatalog: every stream, incremental with its
// default cursor when it supports that, else full refresh.
std::string configure_discovered(const rapidjson::Value& airbyte_catalog);

enum class KeySpelling { bare, estuary };

// Extension keys to write into a catalog. Unset members are not written.
struct CatalogExtensions {
    std::optional<bool> tail;
    std::optional<std::string> range_json;  // raw JSON, so malformed ranges can be probed
    std::map<std::string, std::vector<std::pair<std::string, std::string>>> projections;
};

// The catalog with every stream that supports it read in full refresh (destination overwrite).
Catalog as_full_refresh(const Catalog& catalog);

// The catalog document with `extensions` added in the chosen spelling.
std::string write_catalog(const Catalog& catalog, const CatalogExtensions& extensions,
                          KeySpelling spelling);

}  // namespace conform::protocol
