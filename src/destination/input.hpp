#pragma once

#include <rapidjson/fwd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "destination/catalog.hpp"
#include "destination/test_config.hpp"
#include "json/digest.hpp"
#include "protocol/observation.hpp"

// What conform writes on a destination's stdin: the messages of one write, each with what the
// checks need to know of it.
namespace conform::destination {

struct InputMessage {
    enum class Kind { record, state, trace };
    Kind kind = Kind::record;
    std::string line;        // the JSON line as sent
    std::size_t number = 0;  // its line number in the input (1-based)
    // Its catalog stream; none for a GLOBAL or LEGACY state (or a stream the catalog lacks).
    std::optional<std::size_t> stream;
    // RECORD:
    json::Digest content{};
    std::optional<json::Digest> key;
    std::string key_text;
    std::optional<protocol::CursorValue> cursor;
    bool unconfigured = false;  // a record of a stream the catalog does not have
    bool breaks_schema = false;
    // STATE: its number among the input's STATEs (1-based), what identifies its echo (the state
    // without sourceStats and destinationStats, canonical), and the records it follows: those of
    // its stream (of every stream for a GLOBAL or LEGACY state) since the previous such STATE.
    std::size_t state_number = 0;
    bool all_streams = false;  // a GLOBAL or LEGACY state commits every stream
    std::string state_identity;
    std::uint64_t records_since = 0;
};

// The messages of one write, in the order sent.
struct Input {
    std::string label;  // "sync 1", "sync 2 (resumed)"
    std::vector<InputMessage> messages;
    bool per_stream_states = true;  // STREAM states (else GLOBAL or LEGACY)

    // The text written on stdin: one line per message.
    std::string text() const;
    std::size_t count(InputMessage::Kind kind) const;
    // The index of the message that byte `offset` of text() falls in.
    std::size_t message_at(std::uint64_t offset) const;
};

using InputPtr = std::shared_ptr<const Input>;

// The input of sync `sync` (1, 2): generated from the catalog's schemas, or the recorded read of
// the test config. Throws conform::Error (input) when a stream's schema admits no record conform
// can generate (naming it and the test config's input.recorded), or a recorded line is unusable.
Input sync_input(const Catalog& catalog, const InputSettings& settings, int sync);

// The input of a write resumed after a kill: of each stream the messages after the index
// `resume_after[stream]` of `killed` (none: from the stream's start), and of no stream (GLOBAL or
// LEGACY states) those after `resume_after_all`.
Input resumed_input(const Input& killed,
                    const std::vector<std::optional<std::size_t>>& resume_after,
                    std::optional<std::size_t> resume_after_all);

// A short write with one record the catalog does not allow: of an unconfigured stream, or (when
// the first stream's schema can be broken) one that breaks its schema. Nothing when no such
// record can be made.
std::optional<Input> unknown_stream_input(const Catalog& catalog, const InputSettings& settings);
std::optional<Input> schema_violation_input(const Catalog& catalog, const InputSettings& settings);

// The canonical text that identifies a STATE's echo: `state` without sourceStats and
// destinationStats.
std::string state_identity(const rapidjson::Value& state);

}  // namespace conform::destination
