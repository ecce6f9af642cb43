#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/needs.hpp"

namespace conform::suite {

enum class Command { spec, check, discover, read };
// Which test-config file a step passes as --config.
// required_only: the spec's required properties alone, no defaults; without_each_required: one run
// per required property, the main config without it.
enum class ConfigChoice {
    main,
    invalid,
    merge,
    full_state,
    minimal,
    required_only,
    without_each_required
};
// A read's catalog made invalid on purpose: a stream the connector does not have, or every sync
// mode "INVALID" (as Airbyte's acceptance tests write it).
enum class CatalogProbe { none, unknown_stream, invalid_sync_mode };
// The catalog's `tail` flag: left out, true or false.
enum class TailFlag { absent, on, off };
enum class ProjectionChoice { none, configured, identity };

// The `range` a read's catalog carries.
struct RangeChoice {
    enum class Kind { absent, full, malformed, given };
    Kind kind = Kind::absent;
    std::string begin;  // hex, for `given`
    std::string end;

    bool operator==(const RangeChoice&) const = default;
};

// How a read is split into shards, each its own run.
struct SplitChoice {
    // around_key: boundaries on both sides of a real record's key, found by bisection (the record
    // comes from the step's key_from).
    enum class Kind { none, halves, one_key_at_end, one_key_at_start, equal, cuts, around_key };
    Kind kind = Kind::none;
    unsigned parts = 0;               // for equal
    std::vector<std::uint32_t> cuts;  // for cuts

    bool operator==(const SplitChoice&) const = default;
};

// Which checkpoints of the base step a resuming step starts from.
struct CheckpointChoice {
    enum class Kind { first, middle, last, sample, number };
    Kind kind = Kind::last;
    std::size_t number = 0;  // 1-based, for `number`
};

// What a step's runs give the checks. A check states what it reads as needs over these roles
// (engine/needs.hpp); a scenario whose steps cannot meet a listed check's needs is rejected when
// the suite is loaded.
enum class Role {
    run,                  // any step
    live_run,             // a step that runs the connector (not a recorded transcript)
    spec,                 // a spec run
    check,                // any check run
    check_valid,          // check with the main config
    check_invalid,        // check with the invalid config
    check_minimal,        // check with only the spec's required properties and defaults
    check_probe,          // check with the required properties alone, or one of them removed
    discover,             // a discover run
    read,                 // any read
    finite_read,          // a live read expected to end on its own and exit 0
    plain_read,           // a read of the whole catalog with the main config, no state, no range
    unsplit_read,         // a read not split into range shards
    invalid_read,         // a read with the invalid config
    resumed_read,         // a read (not split) resumed from an earlier step's checkpoints
    resumed_shards,       // range shards resumed from an earlier step's checkpoint
    cursor_floor,         // a read whose records are held to an earlier step's newest cursor
    full_range_read,      // a read of the full range, neither split nor resumed
    shard_reads,          // a read split into range shards
    malformed_range,      // a read given malformed ranges
    tailing_read,         // a read with tail on, driven through injection
    merge_read,           // a read with the merge-state config
    full_state_read,      // a read with the full-state config
    neutral_keys,         // a read whose catalog carries neutral extension keys
    projected_read,       // a read with projections in its catalog
    projections_applied,  // a plain read to which conform applies the configured projections
    full_refresh,         // a read of every stream in full refresh
    inject_after,         // data injected after a step
    invalid_catalog,      // a read of a catalog made invalid on purpose
    future_state_read,    // a read resumed from a state whose cursors were moved far ahead
};

std::string_view to_string(Command command);
std::string_view to_string(ConfigChoice config);
std::string_view to_string(TailFlag tail);
std::string_view to_string(Role role);
std::string to_string(const SplitChoice& split);
std::string to_string(const CheckpointChoice& checkpoint);

// One connector invocation pattern of a scenario; a step may expand to several runs (range
// splits, resumes from several checkpoints). Built once from the suite's JSON.
struct Step {
    std::string id;
    Command run = Command::read;
    ConfigChoice config = ConfigChoice::main;
    TailFlag tail = TailFlag::absent;
    RangeChoice range;
    SplitChoice split;
    std::string key_from;
    ProjectionChoice projections = ProjectionChoice::none;
    bool neutral_extension_keys = false;
    bool apply_projections = false;
    bool as_full_refresh = false;  // streams that support it are read in full refresh
    CatalogProbe catalog_probe = CatalogProbe::none;
    bool future_cursors = false;  // the resumed state's cursors moved far into the future
    std::string state_from;       // step id, or ""
    // Its checks only compare it with the runs it resumes from: pointless when all of them failed.
    bool compares_with_base = false;
    CheckpointChoice state_checkpoint;
    std::string cursor_floor_from;
    bool inject_while_running = false;
    std::string backlog_from;  // the step whose records a tailing run delivers before injection
    bool inject_after = false;
    double timeout_seconds = 0;
    bool recorded = false;  // a recorded transcript (conform validate), not a live run

    bool resumes() const { return !state_from.empty(); }
    bool splits() const { return split.kind != SplitChoice::Kind::none; }
    // A read of the whole catalog with the main config: no state, range, split or injection.
    bool is_plain_read() const;
    std::vector<Role> roles() const;
};

struct Scenario {
    std::string id;
    std::string suite;
    std::string title;
    std::vector<std::string> requires_;
    std::vector<Step> steps;
    std::vector<std::string> checks;
    // Per check, the steps each of its needs reads (matched when the suite was loaded).
    std::vector<engine::Matching> inputs;
    // The checks the scenario exists for (its "purpose"); empty: all of them.
    std::vector<std::string> purpose;
    std::string origin;  // "suites/core.json:12"
};

struct Check;

// Loads the suites embedded in conform (suites/*.json at build time), in a stable order, for the
// checks of `checks`.
std::vector<Scenario> load_builtin_suites(const std::vector<Check>& checks);

// Loads one suite file. Throws conform::Error (input) listing every problem with file, line and
// what was expected: schema violations, unknown check ids (with the nearest known id), checks
// whose needs the scenario's steps cannot meet, or whose test-config requirements the scenario
// does not require, steps that refer to unknown or later steps, duplicate ids.
std::vector<Scenario> load_suite_file(const std::filesystem::path& path,
                                      const std::vector<Check>& checks);
std::vector<Scenario> load_suite_text(std::string_view text, std::string_view origin,
                                      const std::vector<Check>& checks);

}  // namespace conform::suite
