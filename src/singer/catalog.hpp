#pragma once

#include <rapidjson/document.h>

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

// A Singer catalog as discovery prints it (`{"streams": [...]}` with `tap_stream_id`, `schema`
// and `metadata`), read leniently: what conform needs to select streams and fields and to know
// each stream's keys and replication key. The checks judge the document itself.
namespace conform::singer {

// The strings of the array member `name` of `object` (other items skipped; none without it).
std::vector<std::string> strings_member(const rapidjson::Value& object, const char* name);

struct CatalogStream {
    std::string tap_stream_id;
    std::string stream;                   // the name RECORDs carry (tap_stream_id when absent)
    std::vector<std::string> properties;  // top-level properties of the schema
    // Per field with an `inclusion`, in its metadata or (singer-python's Schema) in its schema;
    // "available" for a field with metadata that says none.
    std::map<std::string, std::string> inclusion;
    std::vector<std::string> key_properties;  // table-key-properties
    std::vector<std::string> valid_replication_keys;
    std::string forced_replication_method;
    // The stream this one is synced inside of (singer-io taps' `parent-tap-stream-id`), or "".
    std::string parent_tap_stream_id;
    // What conform asks for: LOG_BASED when the catalog forces it or the test config names the
    // stream (log_based); else the first valid replication key, unless FULL_TABLE is forced.
    std::string replication_key;
    bool log_based = false;

    bool incremental() const { return !replication_key.empty(); }
    // The replication method conform selects: LOG_BASED, INCREMENTAL or FULL_TABLE.
    std::string_view replication_method() const;
    // The replication key is one the tap's catalog offers (valid-replication-keys), not only the
    // test config's choice (replication_keys).
    bool replication_key_offered() const;
    // Fields the tap must always emit: `inclusion: automatic`, the keys and the replication key
    // the catalog offers.
    std::set<std::string> automatic_fields() const;
    // Fields that may be deselected: `available` (or without metadata), neither automatic nor
    // the replication key conform asks for.
    std::vector<std::string> available_fields() const;
};

// What conform selects of one stream: the stream, and the fields it marks `selected: false`
// (automatic ones too, which the tap must emit all the same).
struct StreamSelection {
    bool selected = true;
    std::set<std::string> deselected_fields;
};
using Selection = std::map<std::string, StreamSelection>;  // by tap_stream_id

class Catalog {
public:
    // Reads `text` (one JSON document); nothing when it is not a JSON object with a `streams`
    // array, and then `problem` says why.
    static std::optional<Catalog> read(std::string_view text, std::string& problem);

    const std::vector<CatalogStream>& streams() const { return m_streams; }
    const CatalogStream* find(std::string_view name) const;  // by stream name or tap_stream_id
    // Selects the stream `tap_stream_id` INCREMENTAL on `key`, whatever its catalog offers.
    // Returns why it cannot be (no such stream, FULL_TABLE forced), or "" when done.
    std::string use_replication_key(std::string_view tap_stream_id, const std::string& key);
    // Selects the stream `tap_stream_id` LOG_BASED (its initial sync is a full table). Returns
    // why it cannot be (no such stream, another method forced), or "" when done.
    std::string use_log_based(std::string_view tap_stream_id);
    const rapidjson::Document& document() const { return *m_document; }
    // The catalog's `stream` name for a message's `stream`: itself when an entry has that name,
    // else the name of the entry whose tap_stream_id it is (PipelineWise's taps name messages by
    // tap_stream_id, "public-products" for the stream "products"), else `name` unchanged.
    std::string stream_name_of(std::string_view name) const;
    // Index of `name` (stream or tap_stream_id) among the streams; streams().size() when unknown.
    std::uint32_t index_of(std::string_view name) const;

    // The catalog conform passes with --catalog: the streams of `streams` (tap_stream_ids, in
    // catalog order) with their selection, `replication-method` and `replication-key` (in the
    // metadata and, as `replication_method` and `replication_key`, on the entry); every other
    // stream deselected.
    std::string write(const std::vector<std::string>& streams, const Selection& selection) const;

private:
    std::shared_ptr<rapidjson::Document> m_document;
    std::vector<CatalogStream> m_streams;
};

}  // namespace conform::singer
