#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/check.hpp"
#include "engine/judge.hpp"
#include "engine/needs.hpp"
#include "engine/verdict.hpp"
#include "meltano/scenario.hpp"
#include "meltano/session.hpp"
#include "meltano/test_config.hpp"

// What a Meltano extension check (MX-*) is, and what its code receives. The checks themselves are
// defined beside their code in src/checks/meltano/.
namespace conform::meltano {

// What a step produced: the commands it ran, or why it could not run.
struct StepResult {
    const Step* step = nullptr;
    std::vector<CommandResult> runs;
    std::string why_not;
    std::vector<std::string> notes;  // what the step saw that checks may say (e.g. describe's CLIs)
    // initialize_twice: what the second initialize changed in the project ("x (new)").
    std::vector<std::string> changed_files;

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
};

using Checks = std::vector<Check>;

// Exactly the steps a check's needs matched that ran, and the test config.
class Inputs : public engine::MatchedSteps<StepResult> {
public:
    Inputs(const std::vector<StepResult>& steps, const engine::Matching& matching,
           const TestConfig& config)
        : MatchedSteps(steps, matching), m_config(config) {}

    const TestConfig& test_config() const { return m_config; }
    // The commands of the steps of need `need` that were run for `purpose`.
    std::vector<const CommandResult*> runs(std::size_t need, Purpose purpose) const;

private:
    const TestConfig& m_config;
};

using engine::find_check;

}  // namespace conform::meltano
