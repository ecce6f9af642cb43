#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/needs.hpp"

// The destination suite's scenarios as data: steps of typed kinds, and the checks that read them
// through their needs (engine/needs.hpp), matched when the suite is first built.
namespace conform::destination {

// What a step runs, and what its results give the checks.
enum class Role {
    run,               // any step that starts the destination
    spec,              // spec
    check,             // check (with the config, or the invalid config)
    invalid_config,    // ... with the invalid config
    write,             // any write
    sync,              // a write conform expects to take all its input and exit 0
    killed,            // a write killed right after its k-th STATE echo
    resumed,           // the write that resumes a killed one from its echoed STATEs
    bad_records,       // a write with a record the catalog does not allow
    verify,            // the test config's verify command: what the destination holds
    after_syncs,       // ... after complete syncs
    after_kill,        // ... right after the kill
    after_resume,      // ... after the resumed write
    after_bad_record,  // ... after a write with a bad record
};

std::string_view to_string(Role role);

enum class StepKind {
    spec,
    check,
    check_invalid,
    sync,              // write the input of sync `sync`
    killed,            // write the input of sync `sync`, killed after the k-th STATE echo
    resumed,           // write what the killed write did not commit, as the same sync
    unknown_stream,    // write a record of a stream the catalog does not have
    schema_violation,  // write a record that breaks its stream's schema
    verify,            // run the verify command
};

struct Step {
    std::string id;
    StepKind kind = StepKind::spec;
    int sync = 0;  // writes: the sync (generation) they write
    // Verify: what it follows (set by the table from the write before it).
    std::optional<Role> after = std::nullopt;

    std::vector<Role> roles() const;
};

struct Scenario {
    std::string id;
    std::string title;
    std::vector<Step> steps;
    std::vector<std::string> checks;
    std::vector<engine::Matching> inputs;  // per check, the steps each of its needs reads
    // The checks the scenario exists for: those its table names, not the output checks every
    // scenario adds.
    std::vector<std::string> purpose = {};
};

// The suite name of the destination scenarios, accepted by --only/--skip.
inline constexpr std::string_view k_suite = "destination";

struct Check;

// The built-in scenarios, their checks bound to the steps their needs read. Throws an internal
// error when a check's needs are not met: the table is conform's own.
std::vector<Scenario> builtin_scenarios(const std::vector<Check>& checks);

// The index of the write step a verify (or resumed write) at `index` follows, if any.
std::optional<std::size_t> base_of(const Scenario& scenario, std::size_t index);

}  // namespace conform::destination
