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

namespace conform::diff {

// The records and states of one `read`, kept as canonical JSON without volatile fields.
struct ReadCapture {
    struct Record {
        std::string data;
        std::uint32_t checkpoint = 0;  // how many STATEs came before it
    };
    std::map<std::string, std::vector<Record>> streams;  // by stream name ("ns.name" with one)
    std::map<std::string, std::uint64_t> dropped;        // records beyond the cap, per stream
    std::vector<std::string> states;  // the --state file after each STATE, in order
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

// Per stream, the fields that identify a record (JSON pointers of the primary key's parts); a
// stream without any is compared by whole content.
using StreamKeys = std::map<std::string, std::vector<std::string>>;

// The key pointers of each stream of a configured or discovered catalog (`primary_key`, else
// `source_defined_primary_key`). Throws conform::Error (input) when the text is not JSON.
StreamKeys keys_of_catalog(std::string_view catalog_json);

struct StreamSummary {
    std::string stream;
    std::uint64_t control = 0;
    std::uint64_t target = 0;
    std::uint64_t added = 0;
    std::uint64_t removed = 0;
    std::uint64_t changed = 0;
};

// Per stream, JSON pointers of fields.
using StreamPointers = std::map<std::string, std::set<std::string>>;

// The fields whose values differ between two reads of the same version, by identity: they vary
// from read to read (timestamps of the read itself) and say nothing about a new version.
StreamPointers unstable_fields(const ReadCapture& first, const ReadCapture& second,
                               const StreamKeys& keys);

// Records of each stream compared by identity (the control's keys): removed and changed records
// are breaking ("records.removed", "records.changed", with the differing fields by JSON pointer),
// added ones are not ("records.added"). A record whose only differences are `unstable` fields is
// not changed.
std::vector<Change> diff_records(const ReadCapture& control, const ReadCapture& target,
                                 const StreamKeys& keys, std::vector<StreamSummary>& summary,
                                 const StreamPointers& unstable = {});

// A target resumed from the control's state at checkpoint `checkpoint` must, together with what
// the control emitted before that checkpoint, cover every record of the target's own full read:
// each record missing is lost ("state.resume_loss").
std::vector<Change> resume_losses(const ReadCapture& control, std::size_t checkpoint,
                                  const ReadCapture& target_full, const ReadCapture& target_resumed,
                                  const StreamKeys& keys);

// "/name: \"a\" -> \"b\"; /tags/1: absent -> \"x\"", at most `limit` fields.
std::string changed_fields(std::string_view before, std::string_view after, std::size_t limit = 3);

}  // namespace conform::diff
