#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "config/test_config.hpp"
#include "process/process.hpp"
#include "protocol/catalog.hpp"
#include "report/model.hpp"
#include "suite/scenario.hpp"

namespace conform::suite {

// Starts one process and feeds its output to the observer until it ends. The runner's default is
// process::run; tests substitute a fake that answers with canned NDJSON and spawns nothing.
using Executor = std::function<process::RunResult(const process::LaunchSpec&, process::Observer&)>;

struct RunOptions {
    bool strict = false;
    protocol::KeySpelling spelling = protocol::KeySpelling::estuary;
    std::vector<std::string> only;  // scenario ids, check ids or suite names
    std::vector<std::string> skip;
    bool fail_fast = false;       // stop after the first scenario with a failed check
    std::size_t shard_index = 0;  // --shard K/N: K-1 and N
    std::size_t shard_count = 1;
    std::string rerun_prefix;  // the command line that reruns one scenario with --only ID
    Executor executor;         // empty: process::run
};

// Runs scenarios against one connector and reports to `reporter` as it goes.
class Runner {
public:
    Runner(const config::TestConfig& test_config, RunOptions options, report::Reporter& reporter);
    ~Runner();

    // Runs every selected scenario. Throws conform::Error for setup problems (bad catalog file,
    // unusable runtime); connector misbehaviour is always a result, never an exception.
    report::RunReport run(const std::vector<Scenario>& scenarios);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// Names in only/skip are globs (fnmatch): one with a '.' names checks, one without scenarios and
// suites.
bool glob_matches(const std::string& pattern, const std::string& name);

// True when `scenario` (or, for a check id, any of its checks) is selected by only/skip.
bool is_selected(const Scenario& scenario, const RunOptions& options);
bool is_check_selected(const std::string& check, const RunOptions& options);

// The extension a scenario certifies (its "claims:" requirement); empty for the core protocol.
std::string certified_extension(const Scenario& scenario);

// True when the selected scenario at `position` falls in this run's shard (round robin).
bool in_shard(std::size_t position, const RunOptions& options);

// True when only/skip leave part of the suites out.
bool is_filtered(const RunOptions& options);

}  // namespace conform::suite
