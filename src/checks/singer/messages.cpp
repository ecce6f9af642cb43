// The Singer checks judged line by line, each with its MessageJudge (SG-MSG-*, SG-STATE-*,
// SG-AV-1, SG-BATCH-1, SG-LOG-1), and the part of SG-INC-1 judged across runs.
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "checks/singer/helpers.hpp"
#include "checks/singer/singer.hpp"
#include "json/bounded_parse.hpp"
#include "schema/formats.hpp"

namespace conform::checks::sg {

namespace {

using singer::ActivateVersionFacts;
using singer::BatchFacts;
using singer::EndFacts;
using singer::LineFacts;
using singer::MessageJudge;
using singer::RecordFacts;
using singer::SchemaFacts;
using singer::StateFacts;
using singer::Tally;

std::string joined(const std::vector<std::string>& names) {
    std::string text;
    for (const auto& name : names) {
        text += (text.empty() ? "'" : ", '") + name + "'";
    }
    return text;
}

class MessagesValid : public MessageJudge {
public:
    MessagesValid() : MessageJudge("sg.messages_valid") {}
    void on_line(const LineFacts& line, const protocol::Secrets&, Tally& tally) const override {
        tally.judged();
        if (!line.problem.empty()) {
            tally.fail(fmt::format("line {}: {}", line.number, line.problem), line.text);
        }
    }
};

class SchemaBeforeRecord : public MessageJudge {
public:
    SchemaBeforeRecord() : MessageJudge("sg.schema_before_record") {}
    void on_record(const RecordFacts& record, Tally& tally) const override {
        tally.judged();
        if (record.schema == nullptr) {
            tally.fail(fmt::format("RECORD of stream '{}' before any SCHEMA of it", record.stream),
                       record.line.text);
        }
    }
};

class RecordsMatchSchema : public MessageJudge {
public:
    RecordsMatchSchema() : MessageJudge("sg.records_match_schema") {}
    void on_schema(const SchemaFacts& schema, Tally& tally) const override {
        tally.judged();
        if (!schema.schema.problem.empty()) {
            tally.fail(fmt::format("the SCHEMA of '{}' is not a usable JSON Schema: {}",
                                   schema.stream, schema.schema.problem),
                       schema.line.text);
        }
    }
    void on_record(const RecordFacts& record, Tally& tally) const override {
        auto extracted = record.line.message->FindMember("time_extracted");
        if (extracted != record.line.message->MemberEnd() && extracted->value.IsString() &&
            !schema::is_date_time(extracted->value.GetString())) {
            tally.fail(fmt::format("RECORD of '{}': time_extracted \"{}\" is not an RFC 3339 "
                                   "date-time",
                                   record.stream, extracted->value.GetString()),
                       record.line.text);
        }
        if (record.schema == nullptr || !record.schema->compiled) {
            return;
        }
        tally.judged();
        if (!record.violations.empty()) {
            const auto& first = record.violations.front();
            tally.fail(fmt::format("record of '{}' breaks its SCHEMA at '{}': {}", record.stream,
                                   first.instance_path, first.message),
                       record.line.text);
        }
    }
};

class KeyPropertiesPresent : public MessageJudge {
public:
    KeyPropertiesPresent() : MessageJudge("sg.key_properties_present") {}
    void on_schema(const SchemaFacts& schema, Tally& tally) const override {
        tally.judged();
        const auto& properties = schema.schema.properties;
        auto check = [&](const std::vector<std::string>& names, const char* what) {
            for (const auto& name : names) {
                if (std::find(properties.begin(), properties.end(), name) == properties.end()) {
                    tally.fail(fmt::format("the SCHEMA of '{}' names {} '{}', which is not a "
                                           "top-level property of its schema",
                                           schema.stream, what, name),
                               schema.line.text);
                }
            }
        };
        check(schema.schema.key_properties, "key property");
        check(schema.schema.bookmark_properties, "bookmark property");
    }
    void on_record(const RecordFacts& record, Tally& tally) const override {
        if (record.schema == nullptr || record.schema->key_properties.empty()) {
            return;
        }
        tally.judged();
        for (const auto& key : record.schema->key_properties) {
            auto found = record.record.FindMember(key.c_str());
            if (found == record.record.MemberEnd()) {
                tally.fail(
                    fmt::format("record of '{}' lacks key property '{}'", record.stream, key),
                    record.line.text);
            } else if (found->value.IsNull()) {
                tally.fail(
                    fmt::format("record of '{}' has a null key property '{}'", record.stream, key),
                    record.line.text);
            }
        }
    }
};

class StateBookmarks : public MessageJudge {
public:
    StateBookmarks() : MessageJudge("sg.state_bookmarks") {}
    void on_state(const StateFacts& state, Tally& tally) const override {
        tally.judged();
        if (!state.value.IsObject()) {
            tally.fail("a STATE value is not an object", state.line.text);
            return;
        }
        auto bookmarks = state.value.FindMember("bookmarks");
        if (bookmarks == state.value.MemberEnd()) {
            tally.advise(
                "a STATE value has no \"bookmarks\" object (the shape Singer "
                "recommends: {\"bookmarks\": {STREAM: {...}}})",
                state.line.text);
        } else if (!bookmarks->value.IsObject() ||
                   std::any_of(bookmarks->value.MemberBegin(), bookmarks->value.MemberEnd(),
                               [](const auto& entry) { return !entry.value.IsObject(); })) {
            tally.fail("\"bookmarks\" must map each stream to an object", state.line.text);
        }
        auto syncing = state.value.FindMember("currently_syncing");
        if (syncing != state.value.MemberEnd() && !syncing->value.IsString() &&
            !syncing->value.IsNull()) {
            tally.fail("\"currently_syncing\" must be a stream's tap_stream_id or null",
                       state.line.text);
        }
    }
    void on_end(const EndFacts& end, Tally& tally) const override {
        if (end.completed && !end.progress_markers.empty()) {
            tally.judged();
            tally.fail(fmt::format("the final STATE still holds progress_markers for {}: the "
                                   "bookmark of an unfinished sort, which the next sync cannot "
                                   "resume from",
                                   joined(end.progress_markers)),
                       end.final_state);
        }
    }
};

class BookmarksMonotonic : public MessageJudge {
public:
    BookmarksMonotonic() : MessageJudge("sg.bookmarks_monotonic") {}
    void on_state(const StateFacts& state, Tally& tally) const override {
        if (state.bookmarks == 0) {
            return;
        }
        tally.judged();
        for (const auto& [before, now] : state.regressions) {
            tally.fail(fmt::format("the bookmark of '{}'{} went back from {} to {}", now.stream,
                                   now.partition.empty() ? "" : " partition " + now.partition,
                                   before.value.describe(), now.value.describe()),
                       state.line.text);
        }
    }
};

class ActivateVersion : public MessageJudge {
public:
    ActivateVersion() : MessageJudge("sg.activate_version") {}
    void on_activate_version(const ActivateVersionFacts& version, Tally& tally) const override {
        tally.judged();
        if (version.previous && version.version && *version.version < *version.previous) {
            tally.fail(fmt::format("ACTIVATE_VERSION of '{}' went back from {} to {}",
                                   version.stream, *version.previous, *version.version),
                       version.line.text);
        }
    }
    void on_record(const RecordFacts& record, Tally& tally) const override {
        if (!record.version && !record.version_not_integer) {
            return;
        }
        tally.judged();
        if (record.version_not_integer) {
            tally.fail(fmt::format("RECORD of '{}' carries a \"version\" that is not an integer",
                                   record.stream),
                       record.line.text);
        } else if (record.active_version && *record.version < *record.active_version) {
            tally.fail(fmt::format("RECORD of '{}' carries version {}, older than the active "
                                   "version {}: a target that activated {} drops it",
                                   record.stream, *record.version, *record.active_version,
                                   *record.active_version),
                       record.line.text);
        }
    }
    // A newer version's RECORDs come before the ACTIVATE_VERSION that makes it active (singer-io's
    // database taps on every full-table sync but the first).
    void on_end(const EndFacts& end, Tally& tally) const override {
        if (end.completed) {
            for (const auto& [stream, version] : end.unactivated_versions) {
                tally.advise(
                    fmt::format("the RECORDs of '{}' carry version {}, which no "
                                "ACTIVATE_VERSION of the sync activated: a target keeps "
                                "the rows of older versions beside them",
                                stream, version));
            }
        }
        if (!end.activate_version_claimed || end.full_table_streams_with_records == 0) {
            return;
        }
        tally.judged();
        for (const auto& stream : end.unversioned_full_table_streams) {
            tally.fail(
                fmt::format("full-table stream '{}' emitted RECORDs and no "
                            "ACTIVATE_VERSION (the test config says activate_version)",
                            stream));
        }
    }
};

class BatchFiles : public MessageJudge {
public:
    BatchFiles() : MessageJudge("sg.batch_files") {}
    void on_batch(const BatchFacts& batch, Tally& tally) const override {
        tally.judged();
        if (batch.schema == nullptr) {
            tally.fail(fmt::format("BATCH of stream '{}' before any SCHEMA of it", batch.stream),
                       batch.line.text);
        }
    }
    void on_end(const EndFacts& end, Tally& tally) const override {
        for (const auto& file : end.batch_files) {
            tally.judged();
            if (!file.problem.empty()) {
                tally.fail(fmt::format("BATCH of '{}' (line {}) names {}: {}", file.stream,
                                       file.line, file.uri, file.problem));
            } else if (file.invalid > 0) {
                tally.fail(fmt::format("BATCH file {} of '{}': {} of {} record(s) invalid; {}",
                                       file.uri, file.stream, file.invalid, file.records,
                                       file.first_invalid));
            }
        }
    }
};

// `METRIC: {json}` lines (singer-python and the Meltano SDK log metrics so, on stderr).
class MetricsValid : public MessageJudge {
public:
    MetricsValid() : MessageJudge("sg.metrics_valid") {}
    void on_line(const LineFacts& line, const protocol::Secrets&, Tally& tally) const override {
        if (line.message != nullptr || line.text.find("METRIC:") == std::string_view::npos) {
            return;
        }
        tally.judged();
        tally.fail("a METRIC line on stdout: metrics go to stderr", line.text);
    }
    void on_end(const EndFacts& end, Tally& tally) const override {
        std::string_view text = end.stderr_text;
        constexpr std::string_view k_marker = "METRIC: ";
        std::size_t start = 0;
        while (start < text.size()) {
            auto stop = text.find('\n', start);
            auto line =
                text.substr(start, stop == std::string_view::npos ? text.npos : stop - start);
            start = stop == std::string_view::npos ? text.size() : stop + 1;
            auto at = line.find(k_marker);
            if (at == std::string_view::npos) {
                continue;
            }
            tally.judged();
            auto body = line.substr(at + k_marker.size());
            rapidjson::Document document;
            auto parse = json::parse_bounded(document, body);
            if (parse.failed() || !document.IsObject()) {
                tally.fail("a METRIC line on stderr is not followed by a JSON object", line);
                continue;
            }
            bool typed = (document.HasMember("type") && document["type"].IsString()) ||
                         (document.HasMember("metric_type") && document["metric_type"].IsString());
            if (!typed || !document.HasMember("metric") || !document["metric"].IsString() ||
                !document.HasMember("value") || !document["value"].IsNumber()) {
                tally.fail(
                    "a METRIC lacks a string \"type\" (or \"metric_type\"), a string "
                    "\"metric\" or a numeric \"value\"",
                    line);
            }
        }
    }
};

const MessagesValid k_messages_valid;
const SchemaBeforeRecord k_schema_before_record;
const RecordsMatchSchema k_records_match_schema;
const KeyPropertiesPresent k_key_properties_present;
const StateBookmarks k_state_bookmarks;
const BookmarksMonotonic k_bookmarks_monotonic;
const ActivateVersion k_activate_version;
const BatchFiles k_batch_files;
const MetricsValid k_metrics_valid;

template <const auto* judge>
void report_judge(const Inputs& inputs, Verdict& verdict) {
    report_tallies(inputs, verdict, judge->id());
}

// Within each run, the judge; across runs, a sync resumed from a state must not end with a
// bookmark older than the one it was given.
void check_bookmarks_monotonic(const Inputs& inputs, Verdict& verdict) {
    report_tallies(inputs, verdict, k_bookmarks_monotonic.id());
    for (const auto* run : inputs.runs(0)) {
        if (run->start_bookmarks.empty() || !run->exited_with(0)) {
            continue;
        }
        std::map<std::pair<std::string, std::string>, protocol::CursorValue> given;
        for (const auto& bookmark : run->start_bookmarks) {
            given[{bookmark.stream, bookmark.partition}] = bookmark.value;
        }
        for (const auto& bookmark : run->final_bookmarks()) {
            auto before = given.find({bookmark.stream, bookmark.partition});
            if (before == given.end()) {
                continue;
            }
            verdict.judged();
            auto order = bookmark.value.compare(before->second);
            if (order && *order < 0) {
                verdict.fail(fmt::format("{} was given the bookmark {} for '{}' and ended with {}",
                                         run->label, before->second.describe(), bookmark.stream,
                                         bookmark.value.describe()),
                             {run->label, 0, ""});
            }
        }
    }
}

}  // namespace

singer::Checks message_checks() {
    using singer::Need;
    using enum singer::Role;
    return {
        {{"sg.messages_valid",
          {"SG-MSG-1"},
          report::Level::must,
          "every stdout line is a JSON message with a type and the members its type requires"},
         {Need(sync)},
         "no sync printed anything",
         report_judge<&k_messages_valid>,
         &k_messages_valid},
        {{"sg.schema_before_record",
          {"SG-MSG-2"},
          report::Level::must,
          "a SCHEMA of its stream comes before every RECORD"},
         {Need(sync)},
         "no sync emitted a RECORD",
         report_judge<&k_schema_before_record>,
         &k_schema_before_record},
        {{"sg.records_match_schema",
          {"SG-MSG-3"},
          report::Level::must,
          "every RECORD validates against its stream's latest SCHEMA (formats checked)"},
         {Need(sync)},
         "no sync emitted a SCHEMA",
         report_judge<&k_records_match_schema>,
         &k_records_match_schema},
        {{"sg.key_properties_present",
          {"SG-MSG-4"},
          report::Level::must,
          "key_properties name schema properties and every record carries them, non-null"},
         {Need(sync)},
         "no sync emitted a SCHEMA",
         report_judge<&k_key_properties_present>,
         &k_key_properties_present},
        {{"sg.state_bookmarks",
          {"SG-STATE-1"},
          report::Level::must,
          "STATE values are objects of bookmarks; the final one holds no progress_markers"},
         {Need(sync)},
         "no sync emitted a STATE",
         report_judge<&k_state_bookmarks>,
         &k_state_bookmarks},
        {{"sg.bookmarks_monotonic",
          {"SG-INC-1"},
          report::Level::must,
          "a stream's bookmark never goes backwards, within a sync and after a resume"},
         {Need(sync)},
         "no sync emitted a STATE with a bookmark conform reads (replication_key_value, "
         "partitions, a member named after the replication key, or one date-time per parent)",
         check_bookmarks_monotonic,
         &k_bookmarks_monotonic},
        {{"sg.activate_version",
          {"SG-AV-1"},
          report::Level::must,
          "ACTIVATE_VERSION versions never decrease; no RECORD carries a version older than the "
          "active one, and a sync activates its RECORDs' version (SHOULD); claimed: every "
          "full-table stream emits one"},
         {Need(sync)},
         "no sync emitted an ACTIVATE_VERSION or a versioned RECORD (set activate_version when "
         "the tap emits them)",
         report_judge<&k_activate_version>,
         &k_activate_version},
        {{"sg.batch_files",
          {"SG-BATCH-1"},
          report::Level::must,
          "BATCH messages name readable files of records valid against the stream's SCHEMA"},
         {Need(sync)},
         "no sync emitted a BATCH message (batch_config names a config that makes the tap emit "
         "them)",
         report_judge<&k_batch_files>,
         &k_batch_files},
        {{"sg.metrics_valid",
          {"SG-LOG-1"},
          report::Level::should,
          "METRIC lines are on stderr and carry a JSON metric"},
         {Need(sync)},
         "the tap logged no METRIC line",
         report_judge<&k_metrics_valid>,
         &k_metrics_valid},
    };
}

}  // namespace conform::checks::sg
