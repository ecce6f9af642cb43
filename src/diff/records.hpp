#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "diff/change.hpp"
#include "diff/identity.hpp"
#include "json/fwd.hpp"

namespace conform::diff {

// One RECORD's data as canonical JSON without volatile fields.
struct CapturedRecord {
    std::string data;
    std::uint32_t checkpoint = 0;  // how many STATEs came before it
};

// The records and states of one `read`, kept as canonical JSON without volatile fields.
struct ReadCapture {
    using Record = CapturedRecord;
    std::map<std::string, std::vector<Record>> streams;  // by stream name ("ns.name" with one)
    std::map<std::string, std::uint64_t> dropped;        // records beyond the cap, per stream
    std::vector<std::string> states;  // the --state file after each STATE, in order
    // STATE messages per stream they name ("*" for GLOBAL and legacy states, which name none).
    std::map<std::string, std::uint64_t> states_per_stream;
    std::map<std::string, std::uint64_t> messages;  // messages by type ("RECORD", "LOG", ...)
    // The connector's own words on what went wrong: the first TRACE error's message, else the
    // last ERROR or FATAL LOG message; empty when it said nothing of the kind.
    std::string error;
};

// Each stream's records are kept up to this many; the rest are counted in `dropped` and the record
// diff says it compared only the kept ones.
inline constexpr std::size_t k_max_records_per_stream = 100'000;

// Builds a ReadCapture from a read's stdout, one line at a time. Lines that are not JSON messages
// are ignored: judging them is the conformance run's job.
class ReadCollector {
public:
    explicit ReadCollector(std::map<std::string, std::vector<std::string>> volatile_fields = {});
    ~ReadCollector();
    void add_line(std::string_view line);
    ReadCapture take();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// The key pointers of each stream of a configured or discovered catalog (`primary_key`, else
// `source_defined_primary_key`); a stream without any has an empty list. Throws conform::Error
// (input) when the text is not JSON.
StreamKeys keys_of_catalog(std::string_view catalog_json);
// Only the configured `primary_key` of each stream that has one.
StreamKeys configured_keys(std::string_view catalog_json);
// Only the `source_defined_primary_key` of each stream that has one (a discovered catalog, or the
// stream objects of a configured one).
StreamKeys source_defined_keys(std::string_view catalog_json);

// Where the keys of each stream come from, in the order they are used: configured, the control's
// source-defined key, the target's.
struct KeySources {
    StreamKeys configured;
    StreamKeys control;
    StreamKeys target;
};

// Each stream's identity: the first key of `keys` it has, else one inferred from both reads
// (infer_identity).
StreamIdentities choose_identities(const KeySources& keys, const ReadCapture& control,
                                   const ReadCapture& target);

// Every stream matched by `keys` (a configured key), for tests and baselines.
StreamIdentities identities_of_keys(const StreamKeys& keys);

struct StreamSummary {
    std::string stream;
    std::uint64_t control = 0;  // records
    std::uint64_t target = 0;
    std::uint64_t added = 0;
    std::uint64_t removed = 0;
    std::uint64_t changed = 0;
    std::uint64_t control_states = 0;  // STATE messages naming the stream
    std::uint64_t target_states = 0;
    std::string identity;  // how records were matched (StreamIdentity::describe)
};

// Per stream, JSON pointers of fields.
using StreamPointers = std::map<std::string, std::set<std::string>>;

// The fields whose values differ between two reads of the same version, by identity: they vary
// from read to read (timestamps of the read itself) and say nothing about a new version.
StreamPointers unstable_fields(const ReadCapture& first, const ReadCapture& second,
                               const StreamIdentities& identities);

// Per stream, the data of records the test config expects (expected_records), as JSON objects.
using ExpectedRecords = std::map<std::string, std::vector<std::string>>;

// Records of each stream compared by identity. Breaking: identities the target lost
// ("records.removed"), fields its records no longer carry ("records.field_removed") or carry with
// a type the old one does not include ("records.field_retyped"), and changed values of a record
// the test config expects ("records.expected_changed"). Harmless: new identities
// ("records.added"), new fields ("records.field_added") and other values
// ("records.changed"). Differences in `unstable` fields are left out.
std::vector<Change> diff_records(const ReadCapture& control, const ReadCapture& target,
                                 const StreamIdentities& identities,
                                 std::vector<StreamSummary>& summary,
                                 const StreamPointers& unstable = {},
                                 const ExpectedRecords& expected = {});

// "a, b, c, ...": the first three of `items`, for a change's detail.
std::string first_examples(const std::vector<std::string>& items);

// The JSON type of a value: "null", "boolean", "integer" (a number written without a fraction),
// "number", "string", "array" or "object".
std::string_view json_type_name(const rapidjson::Value& value);

// "/name: \"a\" -> \"b\"; /tags/1: absent -> \"x\"", at most `limit` fields.
std::string changed_fields(std::string_view before, std::string_view after, std::size_t limit = 3);

}  // namespace conform::diff
