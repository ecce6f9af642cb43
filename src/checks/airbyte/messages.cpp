// The checks judged line by line (AP-IO-*, AP-READ-1..5, AP-STATE-1..2, X-MERGE-1): each one's
// per-line code (a protocol::LineJudge the analyzer runs on every stdout line of the scenario's
// runs) beside its definition, whose code reports what the judge saw in the runs it reads.
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "checks/airbyte/airbyte.hpp"
#include "checks/airbyte/helpers.hpp"
#include "protocol/secrets_judge.hpp"
#include "schema/schema.hpp"

namespace conform::checks::airbyte {

namespace {

using protocol::EndFacts;
using protocol::EnvelopePart;
using protocol::LineFacts;
using protocol::LineJudge;
using protocol::RecordFacts;
using protocol::StateFacts;
using protocol::Tally;

// Epoch milliseconds below this (2001-09-09) are almost surely seconds.
constexpr double k_min_plausible_epoch_ms = 1e12;

void fail_violations(const LineFacts& line, EnvelopePart part, Tally& tally) {
    for (const auto& violation : line.violations) {
        if (violation.part == part) {
            tally.fail(violation.text, line.text);
        }
    }
}

class JsonLines : public LineJudge {
public:
    JsonLines() : LineJudge("io.json_lines") {}
    void on_line(const LineFacts& line, const protocol::Secrets&, Tally& tally) const override {
        tally.judged();
        if (line.problem && !line.problem->breaks_message) {
            tally.fail(line.problem->message, line.text);
        }
        if (line.duplicate_key) {
            tally.fail(fmt::format("duplicate key \"{}\" in one object: RFC 8259 says names "
                                   "SHOULD be unique, and readers disagree on which value wins",
                                   *line.duplicate_key),
                       line.text);
        }
    }
};

class MessagesValid : public LineJudge {
public:
    MessagesValid() : LineJudge("io.messages_valid") {}
    void on_line(const LineFacts& line, const protocol::Secrets&, Tally& tally) const override {
        tally.judged();
        if (line.problem && line.problem->breaks_message) {
            tally.fail(line.problem->message, line.text);
        }
        fail_violations(line, EnvelopePart::other, tally);
    }
};

class KnownTypes : public LineJudge {
public:
    KnownTypes() : LineJudge("io.known_types") {}
    void on_line(const LineFacts& line, const protocol::Secrets&, Tally& tally) const override {
        if (line.type.empty()) {
            return;
        }
        tally.judged();
        if (line.known_type) {
            return;
        }
        tally.fail(line.counted_apart
                       ? fmt::format("unknown message type '{}' (beyond {} distinct unknown types, "
                                     "counted as \"{}\")",
                                     line.type, protocol::Observation::k_unknown_type_names,
                                     protocol::Observation::k_other_types)
                       : fmt::format("unknown message type '{}'", line.type),
                   line.text);
    }
    // Shown first, when the examples are full by then: the counts by name are incomplete.
    void on_end(const EndFacts& end, Tally& tally) const override {
        if (end.other_types > 0) {
            tally.headline(fmt::format(
                "{} messages of unknown types beyond the first {} distinct names were counted "
                "together as \"{}\"",
                end.other_types, protocol::Observation::k_unknown_type_names,
                protocol::Observation::k_other_types));
        }
    }
};

class StreamsConfigured : public LineJudge {
public:
    StreamsConfigured() : LineJudge("read.streams_configured") {}
    void on_record(const RecordFacts& record, Tally& tally) const override {
        tally.judged();
        if (record.stream == nullptr) {
            tally.fail(fmt::format("record for stream '{}', which is not in the configured catalog",
                                   record.stream_name),
                       record.line.text);
        }
    }
};

class RecordsMatchSchema : public LineJudge {
public:
    RecordsMatchSchema() : LineJudge("read.records_match_schema") {}
    bool reads_schema_violations() const override { return true; }
    void on_record(const RecordFacts& record, Tally& tally) const override {
        // None: a stream outside the catalog, or one whose schema is empty (nothing judged).
        if (record.schema_violations == nullptr) {
            return;
        }
        tally.judged();
        for (const auto& violation : *record.schema_violations) {
            tally.fail(fmt::format("{} record does not match its schema: at '{}': {}",
                                   record.stream->display_name(), violation.instance_path,
                                   violation.message),
                       record.line.text);
        }
    }
};

class EmittedAtMs : public LineJudge {
public:
    EmittedAtMs() : LineJudge("read.emitted_at_ms") {}
    void on_line(const LineFacts& line, const protocol::Secrets&, Tally& tally) const override {
        fail_violations(line, EnvelopePart::emitted_at, tally);
    }
    void on_record(const RecordFacts& record, Tally& tally) const override {
        tally.judged();
        const auto* emitted_at = record.emitted_at;
        if (emitted_at != nullptr && emitted_at->IsNumber() &&
            emitted_at->GetDouble() < k_min_plausible_epoch_ms && emitted_at->GetDouble() > 0) {
            tally.fail(fmt::format("emitted_at {} looks like seconds, not milliseconds",
                                   emitted_at->GetDouble()),
                       record.line.text);
        }
    }
};

class PrimaryKeyPresent : public LineJudge {
public:
    PrimaryKeyPresent() : LineJudge("read.primary_key_present") {}
    void on_record(const RecordFacts& record, Tally& tally) const override {
        if (record.stream == nullptr || record.stream->primary_key.empty()) {
            return;
        }
        tally.judged();
        if (record.missing_key) {
            tally.fail(fmt::format("{} record has {} primary-key field '{}'",
                                   record.stream->display_name(), record.null_key ? "a null" : "no",
                                   *record.missing_key),
                       record.line.text);
        } else if (record.structured_key) {
            tally.fail(fmt::format("{} record's primary-key field '{}' is an object or an array: "
                                   "a key field holds a scalar",
                                   record.stream->display_name(), *record.structured_key),
                       record.line.text);
        }
    }
};

class CursorPresent : public LineJudge {
public:
    CursorPresent() : LineJudge("read.cursor_present") {}
    void on_record(const RecordFacts& record, Tally& tally) const override {
        if (!record.cursor_expected) {
            return;
        }
        tally.judged();
        if (record.cursor_missing) {
            tally.fail(
                fmt::format("{} record has no cursor field '{}'", record.stream->display_name(),
                            protocol::to_pointer(record.stream->cursor_field)),
                record.line.text);
        }
    }
};

class IncrementalNoOlder : public LineJudge {
public:
    IncrementalNoOlder() : LineJudge("state.incremental_no_older") {}
    void on_record(const RecordFacts& record, Tally& tally) const override {
        if (!record.floor || !record.cursor) {
            return;
        }
        auto order = record.cursor->compare(record.floor->value);
        if (!order) {
            return;
        }
        tally.judged();
        if (*order >= 0) {
            return;
        }
        auto older = fmt::format("{} record with cursor {} is older than",
                                 record.stream->display_name(), record.cursor->describe());
        auto floor = record.floor->value.describe();
        switch (record.floor->origin) {
            case protocol::CursorFloor::Origin::state_cursor:
                tally.fail(fmt::format("{} the state's cursor {}", older, floor), record.line.text);
                break;
            case protocol::CursorFloor::Origin::state_date_time:
                tally.advise(fmt::format("{} {}, the date-time the state keeps under another name "
                                         "than the cursor field's, taken for its cursor",
                                         older, floor),
                             record.line.text);
                break;
            case protocol::CursorFloor::Origin::newest_record:
                tally.advise(fmt::format("{} the newest record of the read that emitted the state, "
                                         "{}: conform could not read the state's own cursor, which "
                                         "may be older (per partition)",
                                         older, floor),
                             record.line.text);
                break;
        }
    }
};

void report_state_problems(const StateFacts& state, bool merge_clause, Tally& tally) {
    for (const auto& problem : state.problems) {
        if ((problem.clause == "X-MERGE-1") != merge_clause) {
            continue;
        }
        if (problem.advisory) {
            tally.advise(problem.message, state.line.text);
        } else {
            tally.fail(problem.message, state.line.text);
        }
    }
}

class StateWellFormed : public LineJudge {
public:
    StateWellFormed() : LineJudge("state.well_formed") {}
    void on_line(const LineFacts& line, const protocol::Secrets&, Tally& tally) const override {
        if (!line.state_to_reducer) {
            fail_violations(line, EnvelopePart::state, tally);
        }
    }
    // The reducer's findings are more precise than the envelope schema's; the schema's stand only
    // when the reducer found nothing.
    void on_state(const StateFacts& state, Tally& tally) const override {
        tally.judged();
        report_state_problems(state, false, tally);
        if (state.problems.empty()) {
            fail_violations(state.line, EnvelopePart::state, tally);
        }
    }
};

class MergeReductionValid : public LineJudge {
public:
    MergeReductionValid() : LineJudge("merge.reduction_valid") {}
    void on_state(const StateFacts& state, Tally& tally) const override {
        if (state.merge_patch) {
            tally.judged();
        }
        report_state_problems(state, true, tally);
    }
};

// AP-STATE-3: sourceStats.recordCount against the records conform counted since the stream's
// previous STATE.
class RecordCounts : public LineJudge {
public:
    RecordCounts() : LineJudge("state.record_counts") {}
    void on_state(const StateFacts& state, Tally& tally) const override {
        const auto* count = source_record_count(state);
        if (count == nullptr || !state.records_since_previous) {
            return;
        }
        tally.judged();
        if (count->GetDouble() != static_cast<double>(*state.records_since_previous)) {
            tally.fail(fmt::format("sourceStats.recordCount is {} but {} RECORD(s) of its stream "
                                   "came since the previous STATE of that stream",
                                   count->GetDouble(), *state.records_since_previous),
                       state.line.text);
        }
    }

private:
    static const rapidjson::Value* source_record_count(const StateFacts& state) {
        if (state.message == nullptr) {
            return nullptr;
        }
        auto message = state.message->FindMember("state");
        if (message == state.message->MemberEnd() || !message->value.IsObject()) {
            return nullptr;
        }
        auto stats = message->value.FindMember("sourceStats");
        if (stats == message->value.MemberEnd() || !stats->value.IsObject()) {
            return nullptr;
        }
        auto count = stats->value.FindMember("recordCount");
        return count != stats->value.MemberEnd() && count->value.IsNumber() ? &count->value
                                                                            : nullptr;
    }
};

const JsonLines k_json_lines;
const MessagesValid k_messages_valid;
const KnownTypes k_known_types;
const protocol::SecretsJudge k_secrets("secrets.not_leaked");
const StreamsConfigured k_streams;
const RecordsMatchSchema k_schema;
const EmittedAtMs k_emitted_at;
const PrimaryKeyPresent k_primary_key;
const CursorPresent k_cursor;
const IncrementalNoOlder k_no_older;
const StateWellFormed k_state_well_formed;
const MergeReductionValid k_merge_reduction;
const RecordCounts k_record_counts;

// The code of a per-message check: what its judge saw in the runs of the steps it reads.
template <const auto& judge>
void report_judge(const Inputs& inputs, Verdict& verdict) {
    report_line_findings(judge.id(), inputs, verdict);
}

// A stream the read could not be held to a cursor for is named with the reason: skipped when no
// stream could be, noted otherwise.
void report_no_older(const Inputs& inputs, Verdict& verdict) {
    report_line_findings(k_no_older.id(), inputs, verdict);
    std::vector<std::string> gaps;
    for (const auto* step : inputs.all_steps()) {
        for (const auto& run : step->runs) {
            gaps.insert(gaps.end(), run.floor_gaps.begin(), run.floor_gaps.end());
        }
    }
    if (gaps.empty()) {
        return;
    }
    auto text = fmt::format("{}", fmt::join(gaps, "; "));
    if (verdict.judged_count() == 0 && verdict.failures() == 0 && verdict.advisories() == 0) {
        verdict.skip("no record could be held to a cursor: " + text);
    } else {
        verdict.note("not held to a cursor: " + text);
    }
}

bool any_stream(const Inputs& inputs, bool (*wanted)(const protocol::CatalogStream&)) {
    const auto& streams = inputs.catalog().streams;
    return std::any_of(streams.begin(), streams.end(), wanted);
}

void report_primary_key(const Inputs& inputs, Verdict& verdict) {
    if (!any_stream(inputs, [](const auto& stream) { return !stream.primary_key.empty(); })) {
        verdict.skip("no stream of the configured catalog has a primary key");
    }
    report_line_findings(k_primary_key.id(), inputs, verdict);
}

void report_cursor(const Inputs& inputs, Verdict& verdict) {
    if (!any_stream(inputs, [](const auto& stream) { return stream.incremental(); })) {
        verdict.skip("no incremental stream in the configured catalog");
    }
    report_line_findings(k_cursor.id(), inputs, verdict);
}

// An empty configured schema ({}) validates nothing: conform validates with discover's then, and
// warns where it has none (conform validate, or discover does not describe the stream).
void report_schema(const Inputs& inputs, Verdict& verdict) {
    std::vector<std::string> from_discover;
    for (const auto& stream : inputs.catalog().streams) {
        if (stream.schema_source == "discover") {
            from_discover.push_back(stream.display_name());
        } else if (stream.schema_empty) {
            verdict.advise(
                fmt::format("{}: the configured json_schema is empty ({{}}): its "
                            "records were not validated; give the stream's schema (or "
                            "run conform with discover)",
                            stream.display_name()));
        }
    }
    if (!from_discover.empty()) {
        verdict.note(
            fmt::format("the configured json_schema is empty for {}: their records were "
                        "validated against discover's schemas, as Airbyte's acceptance "
                        "tests do",
                        fmt::join(from_discover, ", ")));
    }
    report_line_findings(k_schema.id(), inputs, verdict);
}

void report_secrets(const Inputs& inputs, Verdict& verdict) {
    if (inputs.secrets().empty() || !inputs.secrets().from_spec()) {
        verdict.skip(!inputs.no_secret_reason().empty() ? inputs.no_secret_reason()
                     : inputs.secrets().from_spec()
                         ? std::string("the spec marks no config property airbyte_secret: no "
                                       "secret to look for")
                         : std::string("the connector yielded no spec (no SPEC with a "
                                       "connectionSpecification): conform cannot tell which "
                                       "config values are secret, so it looks for none"));
    }
    report_line_findings(k_secrets.id(), inputs, verdict);
}

}  // namespace

suite::Checks message_checks() {
    using enum report::Level;
    using enum suite::Role;
    suite::Checks checks{
        {{k_json_lines.id(),
          {"AP-IO-1"},
          should,
          "stdout carries only JSON lines (non-JSON lines warn, fail under --strict)"},
         {{run}},
         "the connector wrote no stdout line",
         report_judge<k_json_lines>,
         &k_json_lines},
        {{k_messages_valid.id(), {"AP-IO-1"}, must, "every JSON line is a valid AirbyteMessage"},
         {{run}},
         "the connector wrote no stdout line",
         report_judge<k_messages_valid>,
         &k_messages_valid},
        {{k_known_types.id(), {"AP-IO-2"}, should, "message types are known"},
         {{run}},
         "no message carried a type",
         report_judge<k_known_types>,
         &k_known_types},
        {{k_secrets.id(), {"AP-SPEC-3"}, must, "no airbyte_secret value appears in any output"},
         {{live_run}},
         "the connector wrote nothing to look for secrets in",
         report_secrets,
         &k_secrets},
        {{k_streams.id(), {"AP-READ-1"}, must, "records belong to configured streams"},
         {{read}},
         "the read emitted no RECORD",
         report_judge<k_streams>,
         &k_streams},
        {{k_schema.id(), {"AP-READ-2"}, must, "every record validates against its stream schema"},
         {{read}},
         "the read emitted no RECORD of a configured stream with a schema",
         report_schema,
         &k_schema},
        {{k_emitted_at.id(), {"AP-READ-3"}, must, "emitted_at is integer epoch milliseconds"},
         {{read}},
         "the read emitted no RECORD",
         report_judge<k_emitted_at>,
         &k_emitted_at},
        {{k_primary_key.id(), {"AP-READ-4"}, must, "primary-key fields present and non-null"},
         {{read}},
         "no RECORD of a stream with a primary key was emitted",
         report_primary_key,
         &k_primary_key},
        {{k_cursor.id(), {"AP-READ-5"}, must, "incremental records carry the cursor field"},
         {{read}},
         "no RECORD of an incremental stream with a cursor field was emitted",
         report_cursor,
         &k_cursor},
        {{k_state_well_formed.id(), {"AP-STATE-1"}, must, "STATE messages are well formed"},
         {{read}},
         "the read emitted no STATE",
         report_judge<k_state_well_formed>,
         &k_state_well_formed},
        {{k_no_older.id(),
          {"AP-STATE-2"},
          must,
          "a read from the final state emits no record older than its cursor"},
         {{cursor_floor}},
         "the read resumed from the final state emitted no record whose cursor could be "
         "compared with the state's",
         report_no_older,
         &k_no_older},
        {{k_record_counts.id(),
          {"AP-STATE-3"},
          should,
          "sourceStats.recordCount, when present, counts the records since the stream's previous "
          "STATE"},
         {{read}},
         "no STATE carried sourceStats.recordCount",
         report_judge<k_record_counts>,
         &k_record_counts},
        {{k_merge_reduction.id(),
          {"X-MERGE-1"},
          must,
          "merge-patch STATEs are well formed and reduce per RFC 7396"},
         {{read}},
         "no STATE was a merge patch (no merge flag, and merge.states_are_patches is not set)",
         report_judge<k_merge_reduction>,
         &k_merge_reduction},
    };
    // Their code reports their judges' tallies: none reads a record.
    for (auto& check : checks) {
        check.reads_contents = false;
    }
    return checks;
}

}  // namespace conform::checks::airbyte
