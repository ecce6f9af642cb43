#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace conform::diff {

struct CapturedRecord;

// Per stream, the JSON pointers of a primary key's parts.
using StreamKeys = std::map<std::string, std::vector<std::string>>;

// How the records of one stream are matched across reads: by a key, by fields that carry the same
// values in both versions, or by their position in the stream (docs/regression.md, "Records").
struct StreamIdentity {
    enum class Kind {
        configured_key,  // the configured catalog's primary_key
        source_key,      // the control's source_defined_primary_key
        target_key,      // only the target defines one (the control's records carry its fields)
        fields,          // no key: fields present in every record of both versions, equal values
        order,           // no key and no such fields: the n-th record of each version
    };
    Kind kind = Kind::order;
    std::vector<std::string> pointers;

    bool is_key() const { return kind != Kind::fields && kind != Kind::order; }
    // "the source-defined primary key /id", "/id (no primary key; present in every record of both
    // versions, unique, equal values)", "order within the stream (no primary key, ...)".
    std::string describe() const;
};

using StreamIdentities = std::map<std::string, StreamIdentity>;

// The identity of a stream without a key: the single scalar field present in every record of
// both versions, unique within each, whose values agree most (at least for half the records);
// else every field whose values agree for every record of the smaller side, when together they
// are unique; else the order within the stream.
StreamIdentity infer_identity(const std::vector<CapturedRecord>& control,
                              const std::vector<CapturedRecord>& target);

// The identity of one record: its key or identity fields as a JSON array ("[11]"), or its
// position ("#3") for Kind::order.
std::string identity_of(const StreamIdentity& identity, const CapturedRecord& record,
                        std::size_t position);

// The records of one stream grouped by identity, in order within each group (a key the connector
// repeats, or fields that are not unique, give groups of several).
using RecordGroups = std::map<std::string, std::vector<const CapturedRecord*>>;
RecordGroups group_by_identity(const std::vector<CapturedRecord>& records,
                               const StreamIdentity& identity);

const StreamIdentity& identity_for(const StreamIdentities& identities, const std::string& stream);

}  // namespace conform::diff
