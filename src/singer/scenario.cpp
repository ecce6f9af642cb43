#include "singer/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "engine/scenarios.hpp"
#include "singer/check.hpp"
#include "util/error.hpp"

namespace conform::singer {

std::string_view to_string(Role role) {
    switch (role) {
        case Role::run:
            return "a step";
        case Role::about:
            return "--about --format=json";
        case Role::discover:
            return "discovery (--discover)";
        case Role::sync:
            return "a sync";
        case Role::full_sync:
            return "a sync of every stream and field under test";
        case Role::properties_sync:
            return "a sync with --properties";
        case Role::partial_selection:
            return "a sync with a stream and a field left out";
        case Role::minimal_selection:
            return "a sync with every field deselected";
        case Role::from_final_state:
            return "a sync from the final STATE";
        case Role::resumed:
            return "syncs resumed from each STATE";
        case Role::future_state:
            return "a sync from a far-future state";
        case Role::crafted_state:
            return "a sync from a mid-list currently_syncing state";
        case Role::later_start_date:
            return "a sync with a later start date";
        case Role::batch_sync:
            return "a sync with the batch config";
        case Role::invalid_config:
            return "a sync with the invalid config";
    }
    return "?";
}

bool Step::syncs() const {
    return kind != Role::run && kind != Role::about && kind != Role::discover &&
           kind != Role::invalid_config;
}

std::vector<Role> Step::roles() const {
    std::vector<Role> roles{Role::run, kind};
    if (syncs() && kind != Role::sync) {
        roles.push_back(Role::sync);
    }
    return roles;
}

std::vector<const TapRun*> Inputs::runs(std::size_t need) const {
    std::vector<const TapRun*> found;
    for (const auto* step : steps(need)) {
        for (const auto& run : step->runs) {
            found.push_back(&run);
        }
    }
    return found;
}

namespace {

// What every sync scenario also judges, line by line.
const std::vector<std::string>& message_checks() {
    static const std::vector<std::string> k_checks = {"sg.sync_exit",
                                                      "sg.messages_valid",
                                                      "sg.schema_before_record",
                                                      "sg.records_match_schema",
                                                      "sg.key_properties_present",
                                                      "sg.state_bookmarks",
                                                      "sg.bookmarks_monotonic",
                                                      "sg.activate_version",
                                                      "sg.batch_files",
                                                      "sg.metrics_valid"};
    return k_checks;
}

// The checks a scenario exists for, then what its runs are also judged on.
std::vector<std::string> with(std::vector<std::string> checks, bool syncs) {
    auto add = [&checks](const std::string& id) {
        if (std::find(checks.begin(), checks.end(), id) == checks.end()) {
            checks.push_back(id);
        }
    };
    if (syncs) {
        std::for_each(message_checks().begin(), message_checks().end(), add);
    }
    add("sg.secrets_not_leaked");
    return checks;
}

// The plain sync exists for what every sync is judged on.
std::vector<std::string> sync_checks() {
    std::vector<std::string> checks{"sg.streams_have_records"};
    checks.insert(checks.end(), message_checks().begin(), message_checks().end());
    return checks;
}

std::vector<Scenario> scenario_table() {
    using enum Role;
    std::vector<Scenario> scenarios{
        {"sg-about",
         "--about --format=json describes the tap",
         {"about"},
         {{"about", about}},
         {"sg.about"},
         {}},
        {"sg-discover",
         "discovery prints one catalog with schemas and metadata",
         {},
         {{"discover", discover}},
         {"sg.discover", "sg.catalog_valid", "sg.catalog_metadata"},
         {}},
        {"sg-sync",
         "a sync of every stream under test: messages, schemas, keys, states",
         {"catalog"},
         {{"sync", full_sync}},
         sync_checks(),
         {}},
        {"sg-properties",
         "the older --properties gives the records --catalog gives",
         {"catalog", "properties"},
         {{"catalog", full_sync}, {"properties", properties_sync}},
         {"sg.properties_flag"},
         {}},
        {"sg-selection",
         "only selected streams and fields are emitted; automatic fields always",
         {"catalog"},
         {{"all", full_sync}, {"partial", partial_selection}, {"minimal", minimal_selection}},
         {"sg.selection_honoured", "sg.automatic_fields"},
         {}},
        {"sg-incremental",
         "a sync from the final STATE emits nothing older than its bookmarks",
         {"catalog", "incremental"},
         {{"first", full_sync}, {"from-final-state", from_final_state, 0}},
         {"sg.incremental_no_older"},
         {}},
        {"sg-resume",
         "resuming from the emitted STATEs (up to resume.max_states, spread over the sync) loses "
         "nothing",
         {"catalog"},
         {{"full", full_sync}, {"resumed", resumed, 0}},
         {"sg.resume_no_loss"},
         {}},
        {"sg-future-state",
         "a sync from the final STATE with its bookmarks moved far ahead emits nothing older, and "
         "keeps them",
         {"catalog", "incremental"},
         {{"first", full_sync}, {"from-future-state", future_state, 0}},
         {"sg.future_state_no_older"},
         {}},
        {"sg-currently-syncing",
         "a mid-list currently_syncing state syncs the interrupted stream first",
         {"catalog", "two_top_level_streams", "currently_syncing"},
         {{"full", full_sync}, {"interrupted", crafted_state, 0}},
         {"sg.resume_currently_syncing"},
         {}},
        {"sg-start-date",
         "a later start date gives a subset, every replication key at or after it",
         {"catalog", "incremental", "start_date"},
         {{"full", full_sync}, {"later-start-date", later_start_date, 0}},
         {"sg.start_date_honoured"},
         {}},
        {"sg-batch",
         "BATCH messages name files of valid records",
         {"catalog", "batch_config"},
         {{"batch", batch_sync}},
         {"sg.batch_files"},
         {}},
        {"sg-invalid-config",
         "an invalid config fails with a message and no records",
         {"invalid_config"},
         {{"invalid-config", invalid_config}},
         {"sg.invalid_config"},
         {}},
    };
    for (auto& scenario : scenarios) {
        scenario.purpose = scenario.checks;
        bool syncs = std::any_of(scenario.steps.begin(), scenario.steps.end(),
                                 [](const Step& step) { return step.syncs(); });
        scenario.checks = with(std::move(scenario.checks), syncs);
    }
    return scenarios;
}

}  // namespace

std::vector<Scenario> builtin_scenarios(const std::vector<Check>& checks) {
    auto scenarios = scenario_table();
    // A step that resumes from another's STATEs names it, for the needs based on that step.
    engine::bind_checks(scenarios, checks, [](const Step& step) {
        return engine::StepShape<Role>{step.id, step.roles(), step.base};
    });
    return scenarios;
}

}  // namespace conform::singer
