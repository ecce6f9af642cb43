// The checks judged line by line in the analyzer's single pass (src/protocol/analyzer.cpp): here
// they report its findings, and say why when the scenario gave them nothing to judge.
#include <algorithm>
#include <optional>
#include <string>

#include "checks/registry.hpp"
#include "suite/check_helpers.hpp"
#include "suite/check_registry.hpp"

namespace conform::suite {

namespace ids = checks::ids;

namespace {

using Reason = std::optional<std::string>;

std::uint64_t total(const ScenarioContext& context, const std::string& type) {
    std::uint64_t count = 0;
    for (const auto& step : context.steps) {
        for (const auto& run : step.runs) {
            count += run.count(type);
        }
    }
    return count;
}

bool any_stream(const ScenarioContext& context, bool (*wanted)(const protocol::CatalogStream&)) {
    return context.catalog != nullptr &&
           std::any_of(context.catalog->streams.begin(), context.catalog->streams.end(), wanted);
}

// The analyzer's findings for `id`; skipped with `reason` when there was nothing to judge. A check
// that saw nothing is skipped, never passed.
void report(std::string_view id, const ScenarioContext& context, CheckOutcome& outcome,
            const Reason& reason = std::nullopt) {
    collect_findings(std::string(id), context, outcome);
    if (reason) {
        outcome.skip(*reason);
    }
}

Reason unless_records(const ScenarioContext& context) {
    bool reads = !context.steps_running(Command::read).empty();
    return reads && total(context, "RECORD") == 0 ? Reason("the read emitted no RECORD")
                                                  : std::nullopt;
}

void judge_json_lines(const ScenarioContext& context, CheckOutcome& outcome) {
    report(ids::io_json_lines, context, outcome);
}

void judge_messages(const ScenarioContext& context, CheckOutcome& outcome) {
    report(ids::io_messages, context, outcome);
}

void judge_known_types(const ScenarioContext& context, CheckOutcome& outcome) {
    report(ids::io_known_types, context, outcome);
}

void judge_secrets(const ScenarioContext& context, CheckOutcome& outcome) {
    bool none = context.secrets != nullptr && context.secrets->empty();
    report(ids::secrets, context, outcome,
           none ? Reason("the spec marks no config property airbyte_secret: no secret to look for")
                : std::nullopt);
}

void judge_streams(const ScenarioContext& context, CheckOutcome& outcome) {
    report(ids::read_streams, context, outcome, unless_records(context));
}

void judge_schema(const ScenarioContext& context, CheckOutcome& outcome) {
    report(ids::read_schema, context, outcome, unless_records(context));
}

void judge_emitted_at(const ScenarioContext& context, CheckOutcome& outcome) {
    report(ids::read_emitted_at, context, outcome, unless_records(context));
}

void judge_primary_key(const ScenarioContext& context, CheckOutcome& outcome) {
    Reason reason;
    if (!any_stream(context, [](const auto& s) { return !s.primary_key.empty(); })) {
        reason = "no stream of the configured catalog has a primary key";
    } else if (total(context, "RECORD") == 0) {
        reason = "the read emitted no RECORD";
    }
    report(ids::read_primary_key, context, outcome, reason);
}

void judge_cursor(const ScenarioContext& context, CheckOutcome& outcome) {
    bool incremental = any_stream(context, [](const auto& s) { return s.incremental(); });
    report(ids::read_cursor, context, outcome,
           incremental ? std::nullopt : Reason("no incremental stream in the configured catalog"));
}

void judge_state_well_formed(const ScenarioContext& context, CheckOutcome& outcome) {
    bool reads = !context.steps_running(Command::read).empty();
    report(
        ids::state_well_formed, context, outcome,
        reads && total(context, "STATE") == 0 ? Reason("the read emitted no STATE") : std::nullopt);
}

void judge_no_older(const ScenarioContext& context, CheckOutcome& outcome) {
    bool held = std::any_of(context.steps.begin(), context.steps.end(), [](const auto& step) {
        return !step.step->cursor_floor_from.empty() && !step.runs.empty();
    });
    report(ids::state_no_older, context, outcome,
           held ? std::nullopt : Reason("no read resumed from a final state in this scenario"));
}

void judge_merge_reduction(const ScenarioContext& context, CheckOutcome& outcome) {
    std::uint64_t merges = 0;
    for (const auto& step : context.steps) {
        for (const auto& run : step.runs) {
            merges += run.merge_states;
        }
    }
    report(ids::merge_reduction, context, outcome,
           merges == 0 ? Reason("no STATE was a merge patch (no merge flag, and "
                                "merge.states_are_patches is not set)")
                       : std::nullopt);
}

}  // namespace

std::vector<CheckDefinition> message_checks() {
    using enum checks::Level;
    using enum Role;
    constexpr auto line = CheckKind::per_message;
    return {
        {{ids::io_json_lines,
          {"AP-IO-1"},
          should,
          "stdout carries only JSON lines (non-JSON lines warn, fail under --strict)"},
         line,
         {},
         judge_json_lines},
        {{ids::io_messages, {"AP-IO-1"}, must, "every JSON line is a valid AirbyteMessage"},
         line,
         {},
         judge_messages},
        {{ids::io_known_types, {"AP-IO-2"}, should, "message types are known"},
         line,
         {},
         judge_known_types},
        {{ids::secrets, {"AP-SPEC-3"}, must, "no airbyte_secret value appears in any output"},
         line,
         {},
         judge_secrets},
        {{ids::read_streams, {"AP-READ-1"}, must, "records belong to configured streams"},
         line,
         {read},
         judge_streams},
        {{ids::read_schema,
          {"AP-READ-2"},
          must,
          "every record validates against its stream schema"},
         line,
         {read},
         judge_schema},
        {{ids::read_emitted_at, {"AP-READ-3"}, must, "emitted_at is integer epoch milliseconds"},
         line,
         {read},
         judge_emitted_at},
        {{ids::read_primary_key, {"AP-READ-4"}, must, "primary-key fields present and non-null"},
         line,
         {read},
         judge_primary_key},
        {{ids::read_cursor, {"AP-READ-5"}, must, "incremental records carry the cursor field"},
         line,
         {read},
         judge_cursor},
        {{ids::state_well_formed, {"AP-STATE-1"}, must, "STATE messages are well formed"},
         line,
         {read},
         judge_state_well_formed},
        {{ids::state_no_older,
          {"AP-STATE-2"},
          must,
          "a read from the final state emits no record older than its cursor"},
         line,
         {cursor_floor},
         judge_no_older},
        {{ids::merge_reduction,
          {"X-MERGE-1"},
          must,
          "merge-patch STATEs are well formed and reduce per RFC 7396"},
         line,
         {read},
         judge_merge_reduction},
    };
}

}  // namespace conform::suite
