#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

// What a run actually tested (docs/coverage.md): the streams available, configured and with data,
// the sync modes read, and what became of each clause of the protocol's contract.
namespace conform::report {

struct ScenarioResult;

// How often a stream was read (or written) with one sync mode, and the records seen doing so.
struct SyncModeCount {
    std::string mode;  // "incremental", "full_refresh", Singer's "INCREMENTAL", "append"...
    std::uint64_t runs = 0;
    std::uint64_t records = 0;
};

struct StreamCoverage {
    std::string stream;
    bool available = false;   // the target offers it (discover, the catalog it was given)
    bool configured = false;  // in the catalog conform reads (or writes) with
    std::vector<std::string> configured_modes;
    std::vector<SyncModeCount> modes;  // what the run's reads did with it
    // Where the configured catalog contradicts what discover says of the stream (no primary key
    // where the source declares one, another cursor than the source's own): an old catalog file,
    // most often, and checks that judge by key or cursor judge by the catalog's.
    std::vector<std::string> catalog_differences;

    std::uint64_t records() const;
};

struct StreamsCoverage {
    // False for a protocol without streams (a Meltano extension): `note` says so.
    bool applicable = true;
    // False when nothing listed the streams the target offers (a catalog given, no discover run).
    bool available_known = true;
    std::string note;
    std::vector<StreamCoverage> streams;
};

// judged: a check naming the clause ran and judged something; skipped: every check that ran
// skipped it; not_selected: its checks exist but none ran (--only/--skip/--shard, --fail-fast,
// or no scenario of the run lists them); no_check: conform has no check for it.
enum class ClauseState { judged, skipped, not_selected, no_check };

std::string_view clause_state_name(ClauseState state);  // "judged", "skipped", "not-selected"...

struct SkippedBy {
    std::string check;
    std::string reason;

    bool operator==(const SkippedBy&) const = default;
};

struct ClauseCoverage {
    std::string clause;
    std::vector<std::string> checks;     // every check of the protocol that names it
    std::vector<std::string> judged_by;  // the checks that judged it in this run
    std::vector<SkippedBy> skipped_by;   // the checks that ran and were skipped, with why

    ClauseState state() const;
};

struct Coverage {
    StreamsCoverage streams;
    std::vector<ClauseCoverage> clauses;
};

// A check as clause coverage sees it: its id and the clauses it names.
struct CheckClauses {
    std::string id;
    std::vector<std::string> clauses;
};

// Each clause of `protocol`'s families in docs/CONTRACT.md, with the checks of `checks` that name
// it and what became of them in `scenarios`.
std::vector<ClauseCoverage> clause_coverage(std::string_view protocol,
                                            const std::vector<CheckClauses>& checks,
                                            const std::vector<ScenarioResult>& scenarios);

// The union of two coverages of one run's parts (shards): a clause judged in either is judged,
// a stream with data in either has it, counts add up.
Coverage merged_coverage(const Coverage& first, const Coverage& second);

// How many clauses are in each state: "12 judged, 3 skipped, 40 not selected, 2 without a check".
std::string clause_counts(const std::vector<ClauseCoverage>& clauses);

// The streams in one line: "3 available, 2 configured, 1 with data (full_refresh, incremental)";
// the note when streams do not apply or are not known.
std::string streams_summary(const StreamsCoverage& streams);

// What the reads did with `stream`: "incremental: 3 run(s), 12 records; full_refresh: 1 run(s),
// 0 records"; "not read" when none included it.
std::string modes_read(const StreamCoverage& stream);

// Why a clause was not judged, in a line: its checks' skip reasons, "not run: " and the checks
// that did not run (not selected, another shard, --fail-fast, or no scenario lists them), or that
// conform has none; "" for a judged clause.
std::string why_not_judged(const ClauseCoverage& clause);

// Reports list at most this many streams (the JSON report all of them).
inline constexpr std::size_t k_coverage_streams_shown = 50;

// The streams whose configured catalog contradicts discover, the first `limit` of them with
// their differences in one line ("no primary key ...; discover says ..."), and how many more.
struct CatalogDifferenceLines {
    std::vector<std::pair<std::string, std::string>> shown;  // stream, differences
    std::size_t more = 0;
};
CatalogDifferenceLines catalog_difference_lines(const StreamsCoverage& streams, std::size_t limit);

}  // namespace conform::report
