#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "report/model.hpp"

// Known failures (docs/known-failures.md): a list of the failures a connector has today. A listed
// failure is reported as expected and does not fail the run; an unlisted one fails it; an entry
// whose check passes is stale and fails the run until it is removed. The rules live here, once
// for every protocol the engine runs.
namespace conform::engine {

struct KnownFailure {
    std::string check;
    std::string scenario;  // empty: every scenario with the check
    std::string stream;    // empty: whatever streams its examples name
    std::string reason;
    std::size_t line = 0;  // where the entry starts in its file
};

struct KnownFailures {
    std::string origin;  // the file
    std::vector<KnownFailure> entries;
};

// The ids an entry may name.
struct KnownIds {
    std::vector<std::string> checks;
    std::vector<std::string> scenarios;
};

// Reads `text` (JSON) as a known-failures list. Throws conform::Error (input, exit 3) naming
// origin:line, the entry and what was expected, for text that breaks the schema
// (schemas/known-failures.schema.json) or names a check or scenario that `ids` does not hold (with
// the nearest id).
KnownFailures parse_known_failures(std::string text, std::string origin, const KnownIds& ids);

// Reads the file at `path` with parse_known_failures: JSON, or YAML for a .yml or .yaml file (its
// errors name the YAML lines).
KnownFailures load_known_failures(const std::filesystem::path& path, const KnownIds& ids);

// True when the failure `example` shows names `stream`: quoted ('users', "users") or after the
// word "stream" (stream users).
bool names_stream(const report::Example& example, std::string_view stream);

// Applies one list to the results of a run as they come, then settles what the whole run proved.
class KnownFailureLedger {
public:
    explicit KnownFailureLedger(const KnownFailures& list);

    // Marks each failed check of `result` that an entry lists as an expected failure with the
    // entry's reason, remembers the entries a passing check contradicts, and sets the scenario's
    // status again.
    void apply(report::ScenarioResult& result);

    // True when `check`, failed in `scenario`, is a failure an entry lists (changes nothing).
    bool expects(const report::ScenarioResult& scenario, const report::CheckResult& check) const;

    // Turns, in `report`, every passing check of an entry that failed nowhere into a failure
    // that says to remove the entry (stale), and lists the stale entries in the report.
    void settle(report::RunReport& report) const;

private:
    struct Seen {
        bool failed = false;
        std::vector<std::pair<std::string, std::string>> passed;  // (scenario, check)
    };
    bool applies(const KnownFailure& entry, const report::ScenarioResult& scenario,
                 const report::CheckResult& check) const;

    const KnownFailures& m_list;
    std::vector<Seen> m_seen;  // one per entry
};

// Today's failures of `report` as a known-failures list (JSON text): every failed check, and
// every expected failure with the reason it was listed for; not the stale entries' checks.
std::string known_failures_json(const report::RunReport& report);

}  // namespace conform::engine
