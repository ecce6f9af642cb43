#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "destination/catalog.hpp"
#include "destination/input.hpp"
#include "destination/landing.hpp"
#include "destination/scenario.hpp"
#include "destination/test_config.hpp"
#include "engine/check.hpp"
#include "engine/judge.hpp"
#include "engine/needs.hpp"
#include "engine/verdict.hpp"
#include "protocol/line_judge.hpp"
#include "protocol/observation.hpp"
#include "protocol/secrets.hpp"

// What an Airbyte destination check (DST-*) is, and what its code receives. The checks themselves
// are defined beside their code in src/checks/destination/.
namespace conform::destination {

// A STATE the destination wrote on stdout during a write.
struct Echo {
    std::uint64_t line = 0;  // its stdout line
    std::string text;
    // The input STATE it repeats (an index into the write's input); none: it matches none.
    std::optional<std::size_t> input_index;
    // Without one, how it differs: its state's members that no STATE sent has (a CDK that
    // writes "global_" for "global"), else its values.
    std::string mismatch;
    std::optional<double> destination_count;  // destinationStats.recordCount, when present
};

// One start of the destination: what the analyzer read of its stdout (kept messages, the
// per-message judges' tallies, the process result) and, for a write, its STATE echoes.
struct Run {
    std::string label;
    std::string command_line;
    protocol::Observation observation;
    std::vector<Echo> echoes;
    std::uint64_t input_bytes = 0;
    // A write conform stopped right after its k-th STATE echo.
    bool killed = false;
    // Why a write meant to be killed was not: it ended first, or echoed fewer STATEs.
    std::string not_killed;

    const process::RunResult& process() const { return observation.process; }
    // True when the run exited 0 on its own.
    bool exited_cleanly() const;
    // "exit code 1", "killed by SIGSEGV", "timed out after 30 s".
    std::string outcome() const;
    bool has_trace_error() const;
    // The failure_type of its first TRACE error ("" when it names none); none without one.
    std::optional<std::string> trace_error_failure_type() const;
};

// The verify command's run after a step.
struct VerifyRun {
    std::string command_line;
    process::RunResult process;
    Landed landed;
    // Set when what landed could not be read: the command failed or printed an unusable line.
    std::string problem;
};

// What a step produced.
struct StepResult {
    const Step* step = nullptr;
    std::vector<Run> runs;  // the destination's runs (none for verify)
    std::string why_not;    // why the step did not run
    InputPtr input;         // a write's input
    int sync = 0;
    std::optional<VerifyRun> verify;
    // Verify: every write of the scenario before it, in order (what it holds should follow).
    std::vector<Sent> history;
    // A verify step without a verify command in the test config: it counts as run, with nothing
    // read (the checks of what landed are skipped for that reason; the others judge without it).
    bool verify_not_configured = false;

    bool ran() const { return !runs.empty() || verify.has_value() || verify_not_configured; }
    const Run* run() const { return runs.empty() ? nullptr : &runs.front(); }
};

class Inputs;
using CheckCode = void (*)(const Inputs&, engine::Verdict&);
using Need = engine::Need<Role>;

struct Check {
    engine::CheckInfo info;
    std::vector<Need> needs;
    std::string_view nothing_judged;  // why the check is skipped when its code judged nothing
    CheckCode code = nullptr;
    // A per-message check: the analyzer runs it on every stdout line of the runs.
    const protocol::LineJudge* judge = nullptr;
    // A check of what landed: without a verify command in the test config it is skipped.
    bool reads_landed = false;
};

using Checks = std::vector<Check>;

// Exactly the steps a check's needs matched that ran, with the test config, the catalog and the
// secrets.
class Inputs : public engine::MatchedSteps<StepResult> {
public:
    Inputs(const std::vector<StepResult>& steps, const engine::Matching& matching,
           const TestConfig& config, const Catalog& catalog, const protocol::Secrets& secrets)
        : MatchedSteps(steps, matching), m_config(config), m_catalog(catalog), m_secrets(secrets) {}

    const TestConfig& test_config() const { return m_config; }
    const Catalog& catalog() const { return m_catalog; }
    const protocol::Secrets& secrets() const { return m_secrets; }

private:
    const TestConfig& m_config;
    const Catalog& m_catalog;
    const protocol::Secrets& m_secrets;
};

using engine::find_check;

}  // namespace conform::destination
