#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/check.hpp"
#include "engine/judge.hpp"
#include "engine/needs.hpp"
#include "engine/verdict.hpp"
#include "singer/catalog.hpp"
#include "singer/messages.hpp"
#include "singer/scenario.hpp"
#include "singer/test_config.hpp"

// What a Singer check (SG-*) is, and what its code receives. The checks themselves are defined
// beside their code in src/checks/singer/.
namespace conform::singer {

// What a step produced: the tap's runs, or why it could not run.
struct StepResult {
    const Step* step = nullptr;
    std::vector<TapRun> runs;
    std::string why_not;
    std::vector<std::string> notes;  // what the step chose (the stream it marked, a start date)
    // crafted_state: the stream marked currently_syncing, those before and after it in the
    // catalog's order.
    std::string interrupted_stream;
    std::vector<std::string> synced_streams;
    std::vector<std::string> pending_streams;
    // later_start_date: the start date given.
    std::string start_date;
    // partial_selection / minimal_selection: what was left out.
    Selection selection;
    std::vector<std::string> unselected_streams;

    bool ran() const { return !runs.empty(); }
};

class Inputs;
using CheckCode = void (*)(const Inputs&, engine::Verdict&);
using Need = engine::Need<Role>;

struct Check {
    engine::CheckInfo info;
    std::vector<Need> needs;
    std::string_view nothing_judged;  // why the check is skipped when its code judged nothing
    CheckCode code = nullptr;
    // A per-message check: its judge, which the reader runs on every line of the steps it reads.
    const MessageJudge* judge = nullptr;
};

using Checks = std::vector<Check>;

// Exactly the steps a check's needs matched that ran, the test config and the discovered catalog.
class Inputs : public engine::MatchedSteps<StepResult> {
public:
    Inputs(const std::vector<StepResult>& steps, const engine::Matching& matching,
           const TestConfig& config, const Catalog* catalog)
        : MatchedSteps(steps, matching), m_config(config), m_catalog(catalog) {}

    const TestConfig& test_config() const { return m_config; }
    const Catalog* catalog() const { return m_catalog; }
    // Every run of the steps of need `need`.
    std::vector<const TapRun*> runs(std::size_t need) const;

private:
    const TestConfig& m_config;
    const Catalog* m_catalog;
};

using engine::find_check;

}  // namespace conform::singer
