#pragma once

#include <rapidjson/fwd.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "process/process.hpp"
#include "protocol/line_judge.hpp"
#include "protocol/observation.hpp"
#include "protocol/secrets.hpp"
#include "schema/schema.hpp"
#include "singer/catalog.hpp"

// A tap's stdout read once, line by line: each message parsed, its SCHEMA compiled (draft-04 read
// as draft-07), each RECORD validated against the latest SCHEMA of its stream, each STATE's
// bookmarks read. What was read goes to the judge of every per-message check the scenario judges
// (defined beside their checks in src/checks/singer/); the reader knows none of them.
namespace conform::singer {

// `schema` (a Singer stream schema, draft-04 or draft-07) as draft-07: draft-04's boolean
// exclusiveMinimum/exclusiveMaximum become numbers and `id` becomes `$id`.
void to_draft7(rapidjson::Value& schema, rapidjson::Document::AllocatorType& alloc);

// The compiled schema of a stream's latest SCHEMA message, or why it does not compile.
struct StreamSchema {
    std::shared_ptr<const schema::Schema> compiled;
    std::string problem;
    std::vector<std::string> properties;  // top-level
    std::vector<std::string> key_properties;
    std::vector<std::string> bookmark_properties;
};

struct LineFacts {
    std::string_view text;
    std::uint64_t number = 0;
    bool truncated = false;
    const rapidjson::Value* message = nullptr;  // the JSON object; null when the line is none
    std::string problem;                        // why the line is not a usable message
    std::string type;                           // upper case; empty when absent
};

struct SchemaFacts {
    const LineFacts& line;
    std::string_view stream;
    const StreamSchema& schema;
};

struct RecordFacts {
    const LineFacts& line;
    std::string_view stream;
    const rapidjson::Value& record;
    const StreamSchema* schema = nullptr;  // null: no SCHEMA of the stream came before
    std::vector<schema::Violation> violations;
    std::optional<std::int64_t> version;         // the RECORD's `version`
    std::optional<std::int64_t> active_version;  // the stream's latest ACTIVATE_VERSION
    bool version_not_integer = false;
};

// One bookmark of a STATE: a stream (and partition) and the replication key value it holds.
struct Bookmark {
    std::string stream;
    std::string partition;  // the partition's context as canonical JSON; empty: the stream
    protocol::CursorValue value;
};

struct StateFacts {
    const LineFacts& line;
    const rapidjson::Value& value;
    std::size_t bookmarks = 0;  // the bookmarks conform reads in it (bookmarks_of)
    // Bookmarks that went back against the previous STATE of the run: (before, now).
    std::vector<std::pair<Bookmark, Bookmark>> regressions;
};

struct ActivateVersionFacts {
    const LineFacts& line;
    std::string_view stream;
    std::optional<std::int64_t> version;
    std::optional<std::int64_t> previous;  // the stream's earlier ACTIVATE_VERSION in the run
};

struct BatchFacts {
    const LineFacts& line;
    std::string_view stream;
    const rapidjson::Value& message;
    const StreamSchema* schema = nullptr;
};

// One file a BATCH message named, read after the run: its raw records against the stream's
// SCHEMA. `problem` says why it could not be read (not a local file, missing, not JSON lines).
struct BatchFile {
    std::string stream;
    std::string uri;
    std::uint64_t line = 0;  // of the BATCH message
    std::string problem;
    std::uint64_t records = 0;
    std::uint64_t invalid = 0;
    std::string first_invalid;
};

struct EndFacts {
    std::string_view stderr_text;
    bool secrets_known = false;
    bool secret_on_stderr = false;
    // The final STATE's value as JSON text and the streams whose bookmark in it still holds
    // `progress_markers`; empty without a STATE.
    std::string final_state;
    std::vector<std::string> progress_markers;
    // The run exited 0: its final STATE is the one a next sync starts from (a failed run's last
    // STATE may be in flight).
    bool completed = false;
    // activate_version claimed by the test config: the full-table streams that emitted RECORDs
    // and no ACTIVATE_VERSION.
    bool activate_version_claimed = false;
    std::vector<std::string> unversioned_full_table_streams;  // RECORDs, no ACTIVATE_VERSION
    std::size_t full_table_streams_with_records = 0;
    // Per stream, the version its last versioned RECORD carried when no ACTIVATE_VERSION of the
    // sync named it.
    std::vector<std::pair<std::string, std::int64_t>> unactivated_versions;
    std::vector<BatchFile> batch_files;
};

using Tally = protocol::Tally;

// The per-line code of one per-message check.
class MessageJudge {
public:
    explicit MessageJudge(std::string_view id) : m_id(id) {}
    virtual ~MessageJudge() = default;
    MessageJudge(const MessageJudge&) = delete;
    MessageJudge& operator=(const MessageJudge&) = delete;

    std::string_view id() const { return m_id; }
    virtual void on_line(const LineFacts&, const protocol::Secrets&, Tally&) const {}
    virtual void on_schema(const SchemaFacts&, Tally&) const {}
    virtual void on_record(const RecordFacts&, Tally&) const {}
    virtual void on_state(const StateFacts&, Tally&) const {}
    virtual void on_activate_version(const ActivateVersionFacts&, Tally&) const {}
    virtual void on_batch(const BatchFacts&, Tally&) const {}
    virtual void on_end(const EndFacts&, Tally&) const {}

private:
    std::string_view m_id;
};

// What one stream of a sync emitted.
struct StreamSeen {
    std::uint64_t schemas = 0;
    std::uint64_t records = 0;
    std::uint64_t first_record_line = 0;
    std::uint64_t last_record_line = 0;
    std::set<std::string> fields;                  // top-level fields of any record
    std::optional<std::set<std::string>> always;   // top-level fields of every record
    std::optional<protocol::CursorValue> min_key;  // replication key values
    std::optional<protocol::CursorValue> max_key;
    std::vector<protocol::CursorValue> keys;  // every replication key value, in order (bounded)
    bool keys_complete = true;
    bool key_missing = false;
    // Against the floor the run was given: records older, and records equal to it.
    std::uint64_t below_floor = 0;
    std::uint64_t at_floor = 0;
    std::string below_example;
    std::string at_example;
    // The versions its RECORDs carried, a span per change of version (at most k_kept_spans), and
    // its last ACTIVATE_VERSION: what a target that honours ACTIVATE_VERSION keeps of it.
    struct VersionSpan {
        std::optional<std::int64_t> version;  // none: RECORDs without a version
        std::uint32_t first_checkpoint = 0;   // STATEs before its first RECORD
        std::uint32_t last_checkpoint = 0;
    };
    std::vector<VersionSpan> versions;
    bool versions_complete = true;
    std::optional<std::int64_t> activated;
    static constexpr std::size_t k_kept_spans = 1'000;
};

// One STATE a sync emitted.
struct StateSeen {
    std::uint64_t line = 0;
    std::uint64_t records_before = 0;
    std::string value;  // canonical JSON
    std::vector<Bookmark> bookmarks;
};

// The replication key value nothing older than which a stream's records may come. Where the tap
// keeps a bookmark per partition whose context its records carry (the Meltano SDK's
// {"context": {"project_id": 101}}), or per parent named by a record field (tap-github's
// "acme/api", its records' _sdc_repository), a record is held to the partitions it agrees with
// (the lowest of their bookmarks); other records, and other taps', to `lowest`.
struct StreamFloor {
    struct Partition {
        std::string label;  // the context as canonical JSON, or the parent's name
        std::vector<std::pair<std::string, std::string>> context;  // member, canonical JSON value
        protocol::CursorValue value;
        bool named_by_field = false;  // no context: a record names it in a top-level string
    };
    protocol::CursorValue lowest;
    std::vector<Partition> partitions;

    // The floor for `record`, and the partition it came from (null: `lowest`).
    std::pair<const protocol::CursorValue*, const Partition*> for_record(
        const rapidjson::Value& record) const;
};

// What a sync is read against: the catalog, the replication key per stream, the floor per
// stream, secrets and judges.
struct ReaderSetup {
    const Catalog* catalog = nullptr;
    std::map<std::string, std::string> replication_keys;  // by stream name
    std::set<std::string> full_table_streams;
    std::map<std::string, StreamFloor> floors;
    const protocol::Secrets* secrets = nullptr;
    std::vector<const MessageJudge*> judges;
    bool activate_version_claimed = false;
    std::filesystem::path scratch;  // where the record file goes
    // The versions each stream had activated when the STATE this sync is given was emitted: the
    // target already holds them as the table, so RECORDs of them owe no new ACTIVATE_VERSION
    // (a database tap's log phase, a resumed copy).
    std::map<std::string, std::set<std::int64_t>> activated;
};

// Everything conform learned from one invocation of the tap.
struct TapRun {
    std::string label;
    std::string command_line;
    bool started = false;
    std::string start_error;
    process::RunResult process;
    bool timed_out = false;
    std::string stdout_text;  // the first MiB, for discovery and --about
    std::uint64_t lines = 0;
    std::uint64_t messages = 0;
    std::uint64_t record_count = 0;
    protocol::Observation records;  // the records' digests (identity: key properties)
    std::map<std::string, StreamSeen> streams;
    std::vector<std::string> stream_order;          // streams in the order of their first RECORD
    std::vector<std::string> schema_streams;        // streams with a SCHEMA
    std::vector<StateSeen> states;                  // the first k_kept_states
    std::set<std::string> named_currently_syncing;  // what its STATEs named currently_syncing
    std::uint64_t state_count = 0;
    std::map<std::string, protocol::LineTally, std::less<>> tallies;
    bool secret_on_stdout = false;
    bool secret_on_stderr = false;
    bool secrets_scanned = false;  // there were secret values to look for
    // What the run resumed from: the 1-based number of the base's STATE, and its bookmarks.
    std::uint64_t resumed_from = 0;
    std::vector<Bookmark> start_bookmarks;
    std::uint64_t batch_records = 0;  // raw records in the files BATCH messages named
    struct Activation {
        std::string stream;
        std::int64_t version = 0;
        std::uint64_t states_before = 0;  // STATEs emitted before the ACTIVATE_VERSION
    };
    std::vector<Activation> activations;  // the first k_kept_states

    static constexpr std::size_t k_kept_states = 10'000;
    static constexpr std::size_t k_kept_keys = 1'000'000;

    bool exited_with(int code) const {
        return started && !timed_out && process.exit.code && *process.exit.code == code;
    }
    // "exit code 3", "timed out after 10.0 s", "could not start: ...".
    std::string outcome() const;
    // The bookmarks of the final STATE; empty without one.
    std::vector<Bookmark> final_bookmarks() const;
    // The versions each stream activated before its STATE `state_index` (0-based) was emitted.
    std::map<std::string, std::set<std::int64_t>> activated_before(std::size_t state_index) const;
};

// Reads one run's stdout and stderr into a TapRun.
class Reader : public process::Observer {
public:
    Reader(ReaderSetup setup, TapRun& run);
    ~Reader() override;

    process::Decision on_stdout_line(std::string_view line, std::uint64_t line_number,
                                     bool truncated) override;
    void on_stderr(std::string_view chunk) override;
    // After the process ended: the judges' end of run, with its stderr.
    void finish(std::string_view stderr_text);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// A cursor value of a JSON value: numbers as numbers, strings as text; nothing for other types.
std::optional<protocol::CursorValue> cursor_of(const rapidjson::Value& value);

// The date-time of a bookmark kept per parent under a name of the tap's own, as singer-io's
// tap-github keeps one per repository: {"acme/api": {"since": "2024-04-29T13:00:00Z"}} holds it
// in "acme/api"'s one member; nullptr for an object of another shape.
const rapidjson::Value* keyed_partition_bookmark(const rapidjson::Value& holder);

// The bookmarks a STATE value holds, in the shapes taps write: `bookmarks.STREAM` with
// `replication_key_value` (the Meltano SDK), its `partitions[].replication_key_value`, the
// stream's replication key as a member (singer-python taps), or, when none of these is there, a
// bookmark per parent (keyed_partition_bookmark), each a partition. `progress_markers` (the SDK's
// bookmark of an unsorted stream while it runs) are not a bookmark. Taps key bookmarks by
// tap_stream_id (singer-python's write_bookmark), RECORDs name the stream: with `catalog`, a
// bookmark under a tap_stream_id is the bookmark of that entry's stream (tap-postgres's
// "shop-public-customers" of "customers").
std::vector<Bookmark> bookmarks_of(const rapidjson::Value& state_value,
                                   const std::map<std::string, std::string>& replication_keys,
                                   const Catalog* catalog = nullptr);

// The member of a STATE's `bookmarks` that holds `stream`'s bookmark: its tap_stream_id's when
// there is one, else its stream name's, else (none yet) the tap_stream_id, as taps key them.
std::string bookmark_key(const rapidjson::Value& bookmarks, const CatalogStream& stream);

}  // namespace conform::singer
