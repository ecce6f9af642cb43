#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "json/digest.hpp"
#include "process/process.hpp"
#include "protocol/checkpoint_store.hpp"
#include "protocol/deferred_contents.hpp"
#include "protocol/record_store.hpp"
#include "protocol/spill.hpp"

namespace conform::protocol {

// One thing a per-message check saw on a line. `line` is the stdout line (0: none).
struct Finding {
    std::string message;
    std::uint64_t line = 0;
    std::string excerpt;
    bool advisory = false;  // a SHOULD-level finding inside a MUST check
};

// What one per-message check saw in one run: its first findings, how many it made, and how many
// things it judged (lines, records, states).
struct LineTally {
    std::vector<Finding> examples;
    std::uint64_t failures = 0;
    std::uint64_t advisories = 0;
    std::uint64_t judged = 0;
};

// A cursor value; numbers compare as numbers, date-times as instants (protocol/instant.hpp),
// other strings as strings.
struct CursorValue {
    std::optional<double> number;
    std::optional<std::string> text;

    // Negative, zero or positive; nullopt when the two are not comparable.
    std::optional<int> compare(const CursorValue& other) const;
    std::string describe() const;
};

// The cursor an earlier read holds a stream's records to (AP-STATE-2), and where conform found it.
struct CursorFloor {
    enum class Origin {
        state_cursor,     // the state's value under the cursor field's name (its partitions')
        state_date_time,  // the state's one date-time under another name: likely its cursor
        newest_record,  // the state's own unreadable: the newest record of the read that emitted it
    };
    CursorValue value;
    Origin origin = Origin::state_cursor;
};

// Everything conform learned from one connector invocation.
struct Observation {
    std::string label;  // e.g. "read [range 00000000-7fffffff]"
    // Its stdout, one line per line, when conform kept it (read back through this descriptor
    // only); or the file of a transcript conform did not write (`conform validate`'s).
    std::shared_ptr<const TranscriptFile> transcript;
    std::string transcript_path;
    std::string command_line;
    process::RunResult process;
    // Known types and the first 1,000 distinct unknown types by name; further unknown types
    // are counted together under k_other_types.
    std::map<std::string, std::uint64_t> type_counts;
    static constexpr std::string_view k_other_types = "(other unknown types)";
    static constexpr std::size_t k_unknown_type_names = 1000;
    std::uint64_t lines = 0;
    std::uint64_t invalid_lines = 0;
    std::uint64_t last_record_line = 0;
    std::uint64_t last_state_line = 0;
    // The first SPEC, CATALOG and CONNECTION_STATUS, whole; the first 50 TRACEs, whole while they
    // fit in 1 MiB together, beyond that as a summary (trace type, error message cut).
    struct Kept {
        std::string type;
        std::uint64_t line;
        std::string json;
    };
    std::vector<Kept> kept;
    RecordStore records;  // on disk until a check across runs loads them
    // Reads the contents of keyed records the analyzer did not digest; null when it digested all.
    std::shared_ptr<DeferredContents> deferred_contents;
    CheckpointStore checkpoints;                         // on disk, as the records are
    std::vector<std::optional<CursorValue>> max_cursor;  // per catalog stream
    // Per per-message check id: what its judge saw in this run.
    std::map<std::string, LineTally, std::less<>> tallies;
    std::uint64_t merge_states = 0;         // STATEs reduced as merge patches
    std::uint64_t records_without_key = 0;  // of streams with a primary key, lacking a key field
    // Per stream ("name" or "namespace.name"), the statuses of its STREAM_STATUS traces in order,
    // repeats folded (the first k_status_streams streams).
    std::map<std::string, std::vector<std::string>> stream_statuses;
    static constexpr std::size_t k_status_streams = 1000;
    // LOG messages at ERROR or FATAL: how many, and the first few (level, line, message).
    struct ErrorLog {
        std::string level;
        std::uint64_t line = 0;
        std::string message;
    };
    std::vector<ErrorLog> error_logs;
    std::uint64_t error_log_count = 0;
    // Records of a run with projections that kept a projected field at the top level with
    // nothing at its pointer (X-PROJ-1): how many, and the first few.
    struct Unprojected {
        std::uint64_t line = 0;
        std::string field;
        std::string pointer;
    };
    std::vector<Unprojected> unprojected;
    std::uint64_t unprojected_count = 0;
    std::optional<std::chrono::milliseconds> first_record_at;
    std::uint64_t records_after_mark = 0;  // records after the step's mark (e.g. an injection)
    bool mark_set = false;
    std::uint64_t mark_line = 0;  // stdout lines read when the mark was set
    // What a driven tailing run went through, with the milliseconds since start.
    std::vector<std::pair<std::string, std::int64_t>> tail_events;
    // A read held to a state's cursors: the incremental streams it could not hold to one, and why
    // ("'commits': ...").
    std::vector<std::string> floor_gaps;

    std::uint64_t count(const std::string& type) const;
    const Kept* first_kept(const std::string& type) const;
};

// The message of the run's first TRACE error, as the connector put it, and its internal_message
// when that says more (the Python CDK's message for any exception is "Something went wrong in the
// connector. See the logs for more details."); "" without one.
std::string trace_error_message(const Observation& run);

}  // namespace conform::protocol
