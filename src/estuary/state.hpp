#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "json/fwd.hpp"

namespace conform::estuary {

// Something wrong with one STATE message, tied to the contract clause it breaks.
struct StateProblem {
    std::string clause;  // "X-MERGE-1" or "AP-STATE-1"
    std::string message;
    bool advisory = false;  // legal but probably not meant (a SHOULD-level finding)
};

// True when the STATE message's `state` object carries a merge flag ("merge",
// "estuary.dev/merge" or "patch") set to true.
bool has_merge_flag(const rapidjson::Value& state);

// Reduces the `state` objects of a run's STATE messages, in order, into the state to resume
// from. Shapes: legacy {"data":{...}} (optionally "type":"LEGACY"), "type":"STREAM" and
// "type":"GLOBAL". A message with any of "merge", "estuary.dev/merge" or "patch" true is an
// RFC 7396 merge patch applied to the current state (or {}), one message at a time, never
// composed; otherwise it replaces: the whole legacy data, one stream's state, or GLOBAL's shared
// state and the stream states it lists. A null patch is RFC 7396's reset: the state (or the
// stream's state) becomes {} and an advisory problem says so. A malformed message is reported and
// not applied. Copying takes an independent snapshot.
class StateReducer {
public:
    // `always_merge`: every STATE is a patch, flagged or not (a connector that says so).
    explicit StateReducer(bool always_merge = false);
    ~StateReducer();
    StateReducer(const StateReducer& other);
    StateReducer& operator=(const StateReducer& other);
    StateReducer(StateReducer&&) noexcept;
    StateReducer& operator=(StateReducer&&) noexcept;

    // Applies one STATE message's `state` object; returns what is wrong with it (empty when
    // nothing). Never throws on connector data.
    std::vector<StateProblem> apply(const rapidjson::Value& state);

    // Number of STATE messages passed to apply(), applied or not.
    std::size_t count() const;

    // The file to pass as --state to resume: the legacy data object, or the Airbyte array of
    // STREAM entries (one GLOBAL entry when the state is global). Empty before any state.
    std::string state_file_json() const;

    // Canonical JSON of the reduced state with streams sorted by namespace and name, for comparing
    // reductions of different runs. Empty before any state.
    std::string materialized_json() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace conform::estuary
