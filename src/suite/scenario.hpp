#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace conform::suite {

// One connector invocation pattern of a scenario; a step may expand to several runs (range
// splits, resumes from several checkpoints).
struct Step {
    std::string id;
    std::string run;               // spec, check, discover, read
    std::string config = "main";   // main, invalid, merge, full_state
    std::string tail = "absent";   // "true", "false", "absent"
    std::string range = "absent";  // absent, full, malformed, or "BEGIN-END"
    // "", halves, one_key_at_end, one_key_at_start, equal:N, cuts:A,B, or around_key (boundaries
    // on both sides of a real record's key, found by bisection; the record comes from key_from)
    std::string split;
    std::string key_from;
    std::string projections = "none";  // none, configured, identity
    bool neutral_extension_keys = false;
    bool apply_projections = false;
    bool as_full_refresh = false;  // streams that support it are read in full refresh
    std::string state_from;        // step id, or ""
    std::string state_checkpoint;  // first, middle, last, sample, or a 1-based number
    std::string cursor_floor_from;
    bool inject_while_running = false;
    std::string backlog_from;  // the step whose records a tailing run delivers before injection
    bool inject_after = false;
    double timeout_seconds = 0;
};

struct Scenario {
    std::string id;
    std::string suite;
    std::string title;
    std::vector<std::string> requires_;
    std::vector<Step> steps;
    std::vector<std::string> checks;
    std::string origin;  // "suites/core.json:12"
};

// Loads the suites embedded in conform (suites/*.json at build time), in a stable order.
std::vector<Scenario> load_builtin_suites();

// Loads one suite file. Throws conform::Error (input) listing every problem with file, line and
// what was expected: schema violations, unknown check ids (with the nearest known id), steps that
// refer to unknown or later steps, duplicate ids.
std::vector<Scenario> load_suite_file(const std::filesystem::path& path);
std::vector<Scenario> load_suite_text(std::string_view text, std::string_view origin);

}  // namespace conform::suite
