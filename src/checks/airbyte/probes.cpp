// The Airbyte checks of inputs made wrong on purpose, and of answers that must not change
// (AP-CLI-5, AP-CLI-6, AP-READ-10, AP-STATE-4): check with configs derived from the spec, read with
// an invalid catalog or a far-future state, spec and discover asked twice.
#include <rapidjson/document.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "checks/airbyte/airbyte.hpp"
#include "checks/airbyte/helpers.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "suite/probes.hpp"

namespace conform::checks::airbyte {

using suite::StepResult;

namespace {

// The run's first TRACE error, or null.
const protocol::Observation::Kept* first_trace_error(const protocol::Observation& run) {
    auto found = std::find_if(run.kept.begin(), run.kept.end(), [](const auto& kept) {
        return kept.type == "TRACE" && kept.json.find("\"ERROR\"") != std::string::npos;
    });
    return found == run.kept.end() ? nullptr : &*found;
}

bool has_trace_error(const protocol::Observation& run) {
    return first_trace_error(run) != nullptr;
}

// The status of the run's first CONNECTION_STATUS, or empty when it emitted none.
std::string connection_status(const protocol::Observation& run) {
    const auto* kept = run.first_kept("CONNECTION_STATUS");
    if (kept == nullptr) {
        return {};
    }
    auto message = json::parse_json_text(kept->json, "CONNECTION_STATUS");
    const auto& status = message["connectionStatus"];
    return status.HasMember("status") && status["status"].IsString() ? status["status"].GetString()
                                                                     : "?";
}

// A secret of the main config in what check said (its messages or stderr).
bool echoes_secret(const protocol::Observation& run, const protocol::Secrets& secrets) {
    if (secrets.found_in(run.process.stderr_text)) {
        return true;
    }
    return std::any_of(run.kept.begin(), run.kept.end(),
                       [&secrets](const auto& kept) { return secrets.found_in(kept.json); });
}

void judge_probe_check(const protocol::Observation& run, bool property_removed,
                       const protocol::Secrets& secrets, Verdict& verdict) {
    verdict.judged();
    if (const auto* trace = first_trace_error(run); !exited_cleanly(run) && trace != nullptr) {
        verdict.fail(fmt::format("check answered with a TRACE error, then {}: an answer exits 0",
                                 ending_text(run)),
                     {run.label, trace->line, trace->json});
    } else if (!exited_cleanly(run)) {
        verdict.fail(fmt::format("check {}: it must answer, not crash", ending_text(run)),
                     {run.label, 0, stderr_tail(run)});
    }
    auto status = connection_status(run);
    if (status.empty() && !has_trace_error(run)) {
        verdict.fail("check emitted neither a CONNECTION_STATUS nor a TRACE error",
                     {run.label, 0, stderr_tail(run)});
    } else if (property_removed && status == "SUCCEEDED") {
        verdict.fail("check reported SUCCEEDED though a required property is missing", {run.label});
    }
    if (echoes_secret(run, secrets)) {
        verdict.fail("check repeated a secret of the config in what it said", {run.label});
    }
}

// AP-CLI-5: the required properties alone, and each of them left out.
void check_missing_required(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        bool removed = step->step->config == suite::ConfigChoice::without_each_required;
        for (const auto& run : step->runs) {
            judge_probe_check(run, removed, inputs.secrets(), verdict);
        }
        verdict.note(removed ? "without a required property, FAILED or a TRACE error is the "
                               "expected answer, with exit 0"
                             : "with the required properties alone, any CONNECTION_STATUS (or a "
                               "TRACE error) answers, with exit 0: the config may need more to "
                               "connect");
    }
}

// The unknown stream's own word that it failed: a STREAM_STATUS INCOMPLETE.
bool unknown_stream_incomplete(const protocol::Observation& run) {
    auto found = run.stream_statuses.find(std::string(suite::k_unknown_stream));
    return found != run.stream_statuses.end() &&
           std::find(found->second.begin(), found->second.end(), "INCOMPLETE") !=
               found->second.end();
}

// An ERROR log says the catalog was refused when the read failed, or when the log names what is
// wrong with it (the unknown stream, the INVALID sync mode). A read that exits 0 after an ERROR of
// its own (an upstream 500 in one of Faros's slices), every record read, refused nothing.
bool error_log_refuses(const protocol::Observation& run, suite::CatalogProbe probe) {
    if (run.error_logs.empty()) {
        return false;
    }
    if (!run.process.exit.succeeded()) {
        return true;
    }
    auto names_it = [probe](const protocol::Observation::ErrorLog& log) {
        const auto& text = log.message;
        return probe == suite::CatalogProbe::unknown_stream
                   ? text.find(suite::k_unknown_stream) != std::string::npos
                   : text.find("INVALID") != std::string::npos ||
                         text.find("sync_mode") != std::string::npos ||
                         text.find("sync mode") != std::string::npos;
    };
    return std::any_of(run.error_logs.begin(), run.error_logs.end(), names_it);
}

// AP-READ-10: an invalid catalog is refused with a TRACE error, and the read ends on its own.
void check_invalid_catalog(const Inputs& inputs, Verdict& verdict) {
    for (const auto* step : inputs.steps(0)) {
        for (const auto& run : step->runs) {
            verdict.judged();
            if (run.process.stop_reason == process::StopReason::timeout) {
                verdict.fail(fmt::format("with an invalid catalog the read {}", exit_text(run)),
                             {run.label});
                continue;
            }
            if (run.process.exit.signal) {
                verdict.fail(
                    fmt::format("with an invalid catalog the read crashed: {}", exit_text(run)),
                    {run.label, 0, stderr_tail(run)});
                continue;
            }
            bool said = has_trace_error(run) || unknown_stream_incomplete(run) ||
                        error_log_refuses(run, step->step->catalog_probe);
            if (!said) {
                verdict.fail(fmt::format("with an invalid catalog the read gave no TRACE error "
                                         "({}, {} record(s))",
                                         exit_text(run), run.count("RECORD")),
                             {run.label, 0, stderr_tail(run)});
            }
        }
    }
    verdict.note(
        "any exit code, after a TRACE error (or the unknown stream INCOMPLETE, or an ERROR log "
        "that names what is wrong, or any ERROR log before a non-zero exit)");
}

// AP-STATE-4: from a state with every cursor far in the future, no record of an incremental
// stream, and at least one STATE.
void check_future_state(const Inputs& inputs, Verdict& verdict) {
    const auto& catalog = inputs.catalog();
    auto names = inputs.stream_names();
    std::set<std::string> without_state;
    for (const auto* step : inputs.steps(0)) {
        for (std::size_t r = 0; r < step->runs.size(); ++r) {
            const auto& run = step->runs[r];
            verdict.judged();
            if (!exited_cleanly(run)) {
                verdict.fail(fmt::format("the read from a far-future state {}", ending_text(run)),
                             {run.label, 0, stderr_tail(run)});
                continue;
            }
            // A stream the state holds nothing for reads from its start: the state says nothing
            // of it to be in the future (source-bigcommerce's id streams keep `{}`).
            auto with_state = r < step->plans.size() ? suite::streams_with_state_values(
                                                           step->plans[r].state_text, catalog)
                                                     : std::nullopt;
            std::uint64_t records = 0;
            std::uint64_t first_line = 0;
            std::set<std::string> streams;
            run.records.scan([&](std::size_t, const protocol::RecordEntry& entry) {
                if (entry.stream >= catalog.streams.size() ||
                    !catalog.streams[entry.stream].incremental()) {
                    return;
                }
                if (with_state && !with_state->contains(entry.stream)) {
                    without_state.insert(names[entry.stream]);
                    return;
                }
                first_line = records++ == 0 ? entry.line : first_line;
                streams.insert(names[entry.stream]);
            });
            if (records > 0) {
                verdict.fail(fmt::format("{} record(s) of incremental streams ({}) though every "
                                         "cursor of the state lies far in the future",
                                         records, fmt::join(streams, ", ")),
                             {run.label, first_line});
            }
            if (run.count("STATE") == 0) {
                verdict.fail("no STATE: a read from a far-future state still checkpoints",
                             {run.label});
            }
        }
    }
    const auto& given = inputs.test_config();
    verdict.note(given.future_state_text
                     ? fmt::format("the state the test config gives (future_state: {})",
                                   given.future_state_origin)
                     : std::string("cursor values of the last checkpoint moved to the year 9999 "
                                   "(epoch seconds, milliseconds and microseconds to its end in "
                                   "their unit, other numbers a million times larger)"));
    if (!without_state.empty()) {
        verdict.note(
            fmt::format("not judged: {} (the state holds no value for them, so they read "
                        "from their start)",
                        fmt::join(without_state, ", ")));
    }
}

// The first kept message of `type` in the step's run, as canonical JSON; a CATALOG's streams
// sorted, so key order and stream order do not count as a change. Empty when there is none.
std::string canonical_answer(const StepResult& step, const std::string& type) {
    const auto* kept = step.runs.empty() ? nullptr : step.runs.front().first_kept(type);
    if (kept == nullptr) {
        return {};
    }
    auto message = json::parse_json_text(kept->json, type);
    if (type != "CATALOG" || !message["catalog"].HasMember("streams") ||
        !message["catalog"]["streams"].IsArray()) {
        return json::to_canonical_json(message);
    }
    std::vector<std::string> streams;
    for (const auto& stream : message["catalog"]["streams"].GetArray()) {
        streams.push_back(json::to_canonical_json(stream));
    }
    std::sort(streams.begin(), streams.end());
    message["catalog"]["streams"].Clear();
    return fmt::format("{}\n{}", json::to_canonical_json(message), fmt::join(streams, "\n"));
}

// Where two texts first differ, with a little of each.
std::string first_difference(const std::string& first, const std::string& second) {
    auto at = static_cast<std::size_t>(
        std::mismatch(first.begin(), first.end(), second.begin(), second.end()).first -
        first.begin());
    auto from = at > 40 ? at - 40 : 0;
    auto around = [from](const std::string& text) {
        return text.substr(std::min(from, text.size()), 100);
    };
    return fmt::format("first difference at character {}: '{}' then '{}'", at, around(first),
                       around(second));
}

void expect_same_answer(const Inputs& inputs, const std::string& type, Verdict& verdict) {
    auto first = canonical_answer(*inputs.steps(0).at(0), type);
    auto second = canonical_answer(*inputs.steps(0).at(1), type);
    if (first.empty() || second.empty()) {
        verdict.skip(fmt::format("a run emitted no {} message (see cli.{})", type,
                                 type == "SPEC" ? "spec" : "discover"));
        return;
    }
    verdict.judged();
    if (first != second) {
        verdict.fail(fmt::format("the second {} differs from the first: {}", type,
                                 first_difference(first, second)),
                     {inputs.steps(0).at(1)->runs.front().label});
    }
    verdict.note("compared as canonical JSON: key order (and a catalog's stream order) ignored");
}

// AP-CLI-6: spec and discover answer the same twice.
void check_spec_twice(const Inputs& inputs, Verdict& verdict) {
    expect_same_answer(inputs, "SPEC", verdict);
}

void check_discover_twice(const Inputs& inputs, Verdict& verdict) {
    expect_same_answer(inputs, "CATALOG", verdict);
}

}  // namespace

suite::Checks probe_checks() {
    using enum report::Level;
    using enum suite::Role;
    using engine::Count;
    return {
        {{"cli.check_missing_required",
          {"AP-CLI-5"},
          should,
          "check with the required properties alone, or one of them left out, answers (FAILED "
          "or a TRACE error), exits 0 and repeats no secret"},
         {{check_probe}},
         "no check with the required properties alone or one left out ran (the spec requires no "
         "property the config sets)",
         check_missing_required},
        {{"read.invalid_catalog_rejected",
          {"AP-READ-10"},
          should,
          "read with an invalid catalog (an unknown stream, an INVALID sync mode) gives a TRACE "
          "error and ends on its own"},
         {{invalid_catalog}},
         "no read with an invalid catalog ran",
         check_invalid_catalog},
        {{"state.future_state_no_records",
          {"AP-STATE-4"},
          must,
          "read from a state with every cursor far in the future emits no record of an "
          "incremental stream and at least one STATE"},
         {{future_state_read}},
         "no read from a far-future state ran",
         check_future_state},
        {{"spec.same_twice", {"AP-CLI-6"}, should, "spec gives the same SPEC twice"},
         {{spec, {}, {}, std::nullopt, Count::two}},
         "spec emitted no SPEC message (see cli.spec)",
         check_spec_twice},
        {{"discover.same_twice", {"AP-CLI-6"}, should, "discover gives the same CATALOG twice"},
         {{discover, {}, {}, std::nullopt, Count::two}},
         "discover emitted no CATALOG message (see cli.discover)",
         check_discover_twice},
    };
}

}  // namespace conform::checks::airbyte
