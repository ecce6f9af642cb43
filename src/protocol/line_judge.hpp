#pragma once

#include <rapidjson/fwd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "estuary/state.hpp"
#include "protocol/catalog.hpp"
#include "protocol/line_json.hpp"
#include "protocol/observation.hpp"
#include "protocol/secrets.hpp"

// The per-message checks' side of the analyzer's single pass: the analyzer reads each stdout line
// once (parse, envelope schema, catalog stream, key, cursor, state reduction) and hands what it
// read to the judge of every per-message check the scenario judges. The judges are defined beside
// their checks (src/checks/airbyte/messages.cpp); the analyzer knows none of them.
namespace conform::schema {
struct Violation;
}

namespace conform::protocol {

// The part of an AirbyteMessage a violation of its schema is in: each part's check owns it.
enum class EnvelopePart { emitted_at, state, other };

struct EnvelopeViolation {
    EnvelopePart part = EnvelopePart::other;
    std::string text;  // "not a valid AirbyteMessage: at '/x': ..."
};

// One stdout line as the analyzer read it.
struct LineFacts {
    std::string_view text;
    std::uint64_t number = 0;
    bool truncated = false;
    std::optional<LineProblem> problem;  // set when the line is no readable JSON object
    std::optional<std::string> duplicate_key;
    std::string_view type;  // the message's "type"; empty when it has none
    bool known_type = false;
    bool counted_apart = false;  // an unknown type beyond the distinct names counted by name
    std::vector<EnvelopeViolation> violations;
    // A usable STATE goes to the reducer, whose findings replace the envelope's on its state.
    bool state_to_reducer = false;
};

// Violations of a record's data against its stream's schema that the analyzer reports, at most.
inline constexpr std::size_t k_schema_violations_kept = 3;

// A RECORD whose stream and data could be read, in a read with a catalog.
struct RecordFacts {
    const LineFacts& line;
    const CatalogStream* stream = nullptr;  // null: not in the configured catalog
    std::string_view stream_name;
    const rapidjson::Value& data;
    const rapidjson::Value* emitted_at = nullptr;
    // The first primary-key field that is missing or null (a JSON pointer), when one is.
    std::optional<std::string> missing_key = std::nullopt;
    bool null_key = false;
    // The first primary-key field whose value is an object or an array, when one is.
    std::optional<std::string> structured_key = std::nullopt;
    // For an incremental stream with a cursor field: whether the record carries it, its value
    // when it is comparable, and the floor an earlier state set for the stream.
    bool cursor_expected = false;
    bool cursor_missing = false;
    std::optional<CursorValue> cursor = std::nullopt;
    const CursorFloor* floor = nullptr;
    // The data's violations of the stream's schema (at most k_schema_violations_kept), when a
    // judge reads them (reads_schema_violations); null for a stream whose schema is empty.
    const std::vector<schema::Violation>* schema_violations = nullptr;
};

// A usable STATE after the reducer took it.
struct StateFacts {
    const LineFacts& line;
    const std::vector<estuary::StateProblem>& problems;
    bool merge_patch = false;                   // reduced as an RFC 7396 patch
    const rapidjson::Value* message = nullptr;  // the whole AirbyteMessage
    // RECORDs since the previous STATE of the same stream (of any stream, for a STATE that
    // commits every stream); nothing for a STATE of a stream outside the catalog.
    std::optional<std::uint64_t> records_since_previous = std::nullopt;
};

// What the analyzer learned once the process ended.
struct EndFacts {
    bool secrets_known = false;  // secret values were looked for on stderr
    bool secret_on_stderr = false;
    std::string_view stderr_text;
    std::uint64_t other_types = 0;  // messages of unknown types counted apart
};

// Where a judge puts what it saw on one line: the analyzer masks secrets and cuts excerpts.
class Tally {
public:
    Tally(LineTally& tally, const Secrets* secrets, std::uint64_t line, std::size_t examples);

    void fail(std::string message, std::string_view seen = {});
    void advise(std::string message, std::string_view seen = {});
    void judged(std::uint64_t count = 1) { m_tally.judged += count; }
    // An explanation shown before the examples (e.g. that counts are incomplete); not a finding.
    void headline(std::string message);

private:
    void keep(std::string message, std::string_view seen, bool advisory);

    LineTally& m_tally;
    const Secrets* m_secrets;
    std::uint64_t m_line;
    std::size_t m_examples;
};

// The per-line code of one per-message check.
class LineJudge {
public:
    explicit LineJudge(std::string_view id) : m_id(id) {}
    virtual ~LineJudge() = default;
    LineJudge(const LineJudge&) = delete;
    LineJudge& operator=(const LineJudge&) = delete;

    std::string_view id() const { return m_id; }
    // True when on_record reads RecordFacts::schema_violations: the analyzer then validates
    // records' data, on whichever thread prepares the line.
    virtual bool reads_schema_violations() const { return false; }
    // `secrets`: the values to look for; empty when none is known.
    virtual void on_line(const LineFacts&, const Secrets&, Tally&) const {}
    virtual void on_record(const RecordFacts&, Tally&) const {}
    virtual void on_state(const StateFacts&, Tally&) const {}
    virtual void on_end(const EndFacts&, Tally&) const {}

private:
    std::string_view m_id;
};

}  // namespace conform::protocol
