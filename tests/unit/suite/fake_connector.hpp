#pragma once

// The runner's test seam: a connector that is a C++ function answering each invocation with
// canned NDJSON, run through the real Runner, analyzer and checks without spawning anything.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "config/test_config.hpp"
#include "ext/range.hpp"
#include "report/model.hpp"
#include "suite/runner.hpp"

namespace conform::testing {

// One invocation as the connector sees it.
struct Invocation {
    std::string command;               // spec, check, discover, read
    std::string config;                // the --config file's text
    std::optional<std::string> state;  // the --state file's text
    std::string catalog;               // the --catalog file's text
    ext::KeyRange range;               // the catalog's range (full when absent)
};

// What the connector answers: its stdout lines and exit code.
struct Answer {
    std::vector<std::string> lines;
    int exit_code = 0;
};

using Behaviour = std::function<Answer(const Invocation&)>;

// A test config for the fake connector, with `catalog_json` as its configured catalog.
config::TestConfig fake_test_config(const std::string& catalog_json,
                                    std::vector<std::string> extensions = {});

// Runs `suite_json` (one suite file's text) against `behaviour`; returns the report.
report::RunReport run_fake(const Behaviour& behaviour, const config::TestConfig& test_config,
                           const std::string& suite_json, bool strict = false);

// The status of `check` in `scenario` of `report`, as its name ("passed", "failed", ...).
std::string status_of(const report::RunReport& report, const std::string& scenario,
                      const std::string& check);
// The first example message (or the note) of that check.
std::string first_message(const report::RunReport& report, const std::string& scenario,
                          const std::string& check);

// Message builders.
std::string record_line(const std::string& stream, const std::string& data_json);
std::string spec_line();

}  // namespace conform::testing
