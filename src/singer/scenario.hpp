#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/needs.hpp"
#include "engine/scenarios.hpp"

// The Singer suite's scenarios as data: steps of typed kinds, and the checks that read them
// through their needs (engine/needs.hpp), matched when the suite is first built.
namespace conform::singer {

// What a step runs (its kind), and what its runs give the checks.
enum class Role {
    run,                // any step
    about,              // --about --format=json
    discover,           // --config --discover
    sync,               // any sync (a run with --catalog or --properties)
    full_sync,          // every stream and field under test selected, no state
    properties_sync,    // the same with the older --properties
    partial_selection,  // a stream left out, an available field deselected
    minimal_selection,  // every field deselected, automatic ones too
    from_final_state,   // --state with the final STATE of the step it is based on
    resumed,            // --state with each STATE the step it is based on emitted
    future_state,       // --state with the final STATE's bookmarks moved far ahead
    crafted_state,      // --state with a mid-list `currently_syncing` state
    later_start_date,   // the config with a later start date
    batch_sync,         // the test config's batch_config
    invalid_config,     // the test config's invalid_config
};

std::string_view to_string(Role role);

struct Step {
    std::string id;
    Role kind = Role::run;
    std::optional<std::size_t> base = std::nullopt;  // the step whose STATEs it resumes from

    std::vector<Role> roles() const;
    bool syncs() const;
};

// A scenario of the table. Its `requires_` say what the test config or the tap must provide:
// "about", "properties", "batch_config", "invalid_config", "two_top_level_streams", "incremental",
// "start_date", "currently_syncing".
using Scenario = engine::Scenario<Step>;

// The suite name of the Singer scenarios, accepted by --only/--skip.
inline constexpr std::string_view k_suite = "singer";

struct Check;

// The built-in scenarios, their checks bound to the steps their needs read. Throws an internal
// error when a check's needs are not met: the table is conform's own.
std::vector<Scenario> builtin_scenarios(const std::vector<Check>& checks);

}  // namespace conform::singer
