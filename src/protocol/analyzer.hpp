#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "json/digest.hpp"
#include "json/fwd.hpp"
#include "process/process.hpp"
#include "protocol/catalog.hpp"
#include "protocol/line_judge.hpp"
#include "protocol/observation.hpp"
#include "protocol/secrets.hpp"

namespace conform::protocol {

struct AnalyzerSetup {
    const Catalog* catalog = nullptr;  // null for spec, check and discover
    const Secrets* secrets = nullptr;
    // The per-message checks to judge every line with; what each saw goes to
    // Observation::tallies under its id.
    std::vector<const LineJudge*> judges;
    // Per catalog stream: the cursor its records are held to (the floor of AP-STATE-2).
    std::vector<std::optional<CursorFloor>> cursor_floor;
    // Per catalog stream: projections conform applies before computing RecordEntry::projected.
    std::vector<std::vector<std::pair<std::string, std::string>>> apply_projections;
    // Per catalog stream: projections the connector was asked to apply (a run with projections in
    // its catalog); records that did not apply one are counted in Observation::unprojected.
    std::vector<std::vector<std::pair<std::string, std::string>>> expect_projections;
    // Called about every 50 ms with the time since start; may stop the process.
    std::function<process::Decision(std::chrono::milliseconds)> on_tick;
    // Called with each line after it is judged (progress display). With prepare_on_worker, on
    // the thread that judged it, the caller's or the worker's, never on both at once.
    std::function<void(const Observation&)> on_progress;
    std::size_t examples_per_check = 5;
    // Every STATE is an RFC 7396 patch, with or without a merge flag (test config
    // merge.states_are_patches).
    bool states_are_patches = false;
    // When set, every stdout line is also kept (Observation::transcript), so checks can show
    // what changed in a record without conform keeping documents in memory. The lines are kept
    // in an unnamed file of conform's own temporary folder, never at this path: it is in the
    // run's scratch folder, where the connector could plant a symlink or swap the file.
    std::filesystem::path transcript_path;
    // Digest the data of records of streams without a primary key (RecordEntry::content). Off
    // for a run whose checks compare only keyed records by content (a recorded transcript's):
    // such a record's content and identity then stand for its line alone, equal to no other's.
    bool keyless_contents = true;
    // Leave the data of records of streams with a primary key undigested until a check asks for
    // it (Observation::deferred_contents): for a run whose checks compare contents only of records
    // whose identity repeats. Their lines are read again from the kept transcript, so a live run
    // needs transcript_path, and a recorded one a regular file at Observation::transcript_path.
    bool defer_keyed_contents = false;
    // Prepare lines (parse, schemas, digests) on a second thread as well as on the caller's, in
    // batches, each judged in line order by the thread that prepared it: the same observation,
    // sooner on two cores. Only for a read with a catalog; a line then reaches the judges later
    // than it arrived, at the latest when on_tick, set_mark, observation or finish is called, and
    // the judges (and on_progress) are called from either thread, one call at a time.
    bool prepare_on_worker = false;
};

// A record's primary key as the analyzer reads it for a stream with one: its identity
// (RecordEntry::identity) and its text as reports show it (RecordEntry::key); none when the stream
// has no primary key or `data` lacks a key field.
struct PrimaryKey {
    json::Digest identity;
    std::string text;
};
std::optional<PrimaryKey> primary_key_of(std::uint32_t stream_index, const CatalogStream& stream,
                                         const rapidjson::Value& data);

// AnalyzerSetup::prepare_on_worker for conform's runs: on a machine with two or more cores, unless
// the environment sets CONFORM_ANALYSIS_THREADS=1 (2 asks for the worker on any machine; any
// other value is a usage error).
bool prepare_on_worker_by_default();

// Parses each stdout line as it arrives, hands what it read to the judges and builds an
// Observation. The same analyzer serves live runs (as a process::Observer) and recorded
// transcripts (`conform validate`).
class Analyzer : public process::Observer {
public:
    explicit Analyzer(AnalyzerSetup setup);
    ~Analyzer() override;

    process::Decision on_stdout_line(std::string_view line, std::uint64_t line_number,
                                     bool truncated) override;
    process::Decision on_tick(std::chrono::milliseconds elapsed) override;
    // Scans all of stderr for secrets as it streams (not only the tail that is kept).
    void on_stderr(std::string_view chunk) override;

    // Marks "now": records after it are counted in records_after_mark.
    void set_mark();
    // Judges what needs the finished process (stderr secrets) and returns the observation.
    Observation finish(process::RunResult result);

    const Observation& observation() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace conform::protocol
