// The destination checks of each command on its own (DST-IO-1, DST-SEC-1, DST-CLI-*, DST-SPEC-1,
// DST-WRITE-*): what every run prints, spec and check, and how a write ends and reads its input.
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>

#include "checks/destination/destination.hpp"
#include "checks/destination/helpers.hpp"
#include "checks/expected_spec.hpp"
#include "json/parse.hpp"
#include "json/write.hpp"
#include "protocol/secrets_judge.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"
#include "util/text.hpp"

namespace conform::checks::dst {

namespace {

using destination::Handling;
using destination::InputMessage;
using destination::StepKind;
using protocol::LineFacts;
using protocol::LineJudge;
using protocol::Tally;

// DST-IO-1: a broken message fails; a line that is no JSON, a duplicate key or an unknown type
// warns (the platform logs and skips such lines).
class MessagesValid : public LineJudge {
public:
    MessagesValid() : LineJudge("dst.messages_valid") {}
    void on_line(const LineFacts& line, const protocol::Secrets&, Tally& tally) const override {
        tally.judged();
        if (line.problem) {
            line.problem->breaks_message ? tally.fail(line.problem->message, line.text)
                                         : tally.advise(line.problem->message, line.text);
        }
        if (line.duplicate_key) {
            tally.advise(fmt::format("duplicate key \"{}\" in one object", *line.duplicate_key),
                         line.text);
        }
        for (const auto& violation : line.violations) {
            tally.fail(violation.text, line.text);
        }
        if (!line.type.empty() && !line.known_type) {
            tally.advise(fmt::format("unknown message type '{}'", line.type), line.text);
        }
    }
};

const MessagesValid k_messages_valid;
const protocol::SecretsJudge k_secrets("dst.secrets_not_leaked");

template <const auto& judge>
void report_judge(const Inputs& inputs, Verdict& verdict) {
    report_line_findings(judge.id(), inputs, verdict);
}

void report_secrets(const Inputs& inputs, Verdict& verdict) {
    if (inputs.secrets().empty()) {
        verdict.skip("the spec marks no config property airbyte_secret: no secret to look for");
    }
    report_line_findings(k_secrets.id(), inputs, verdict);
}

// The SPEC message of the spec step, parsed; nothing (and a skip) when there is none.
std::optional<rapidjson::Document> spec_of(const Inputs& inputs, Verdict& verdict,
                                           std::uint64_t& line) {
    const auto* kept = inputs.first(0).run()->observation.first_kept("SPEC");
    if (kept == nullptr) {
        verdict.skip("spec emitted no SPEC message (see dst.spec)");
        return std::nullopt;
    }
    line = kept->line;
    return json::parse_json_text(kept->json, "SPEC");
}

void check_spec_schema(const rapidjson::Value& specification, const Inputs& inputs,
                       std::uint64_t line, Verdict& verdict) {
    std::vector<schema::Violation> violations;
    if (!schema::draft7_metaschema().validate(specification, &violations)) {
        for (const auto& violation : violations) {
            verdict.fail(fmt::format("connectionSpecification is not a valid draft-07 schema: at "
                                     "'{}': {}",
                                     violation.instance_path, violation.message),
                         {"spec", line});
        }
        return;
    }
    if (!specification.HasMember("type") || !specification["type"].IsString() ||
        std::string_view(specification["type"].GetString()) != "object") {
        verdict.fail("connectionSpecification must describe an object (\"type\": \"object\")",
                     {"spec", line});
    }
    try {
        auto compiled = schema::Schema::compile(specification);
        const auto& config = inputs.test_config();
        if (config.no_config) {
            verdict.note(*config.no_config + ": the spec is not matched against a config");
            return;
        }
        auto document = json::parse_json_text(config.config_text, config.origin.string());
        violations.clear();
        if (!compiled.validate(document, &violations)) {
            for (const auto& violation : violations) {
                verdict.fail(fmt::format("the test config's destination config does not match "
                                         "the spec: at '{}': {} (fix the test setup or the spec)",
                                         violation.instance_path, violation.message),
                             {"spec", line});
            }
        }
    } catch (const Error& error) {
        verdict.fail(fmt::format("connectionSpecification cannot be used: {}", error.what()),
                     {"spec", line});
    }
}

// DST-CLI-1: one SPEC, exit 0, a usable connectionSpecification the config matches.
void check_spec(const Inputs& inputs, Verdict& verdict) {
    const auto& run = *inputs.first(0).run();
    verdict.judged();
    auto count = run.observation.count("SPEC");
    if (count != 1) {
        verdict.fail(fmt::format("expected exactly one SPEC message, got {}", count), {run.label});
    }
    if (!run.exited_cleanly()) {
        verdict.fail(fmt::format("expected exit code 0, got {}", run.outcome()),
                     {run.label, 0, stderr_tail(run)});
    }
    std::uint64_t line = 0;
    auto spec = spec_of(inputs, verdict, line);
    if (!spec) {
        return;
    }
    const auto& body = (*spec)["spec"];
    if (!body.IsObject() || !body.HasMember("connectionSpecification")) {
        verdict.fail("the SPEC has no connectionSpecification", {run.label, line});
        return;
    }
    check_spec_schema(body["connectionSpecification"], inputs, line, verdict);
}

// DST-SPEC-1: supported_destination_sync_modes lists every mode the catalog configures.
void check_spec_secrets_marked(const Inputs& inputs, Verdict& verdict) {
    std::uint64_t line = 0;
    if (auto spec = spec_of(inputs, verdict, line)) {
        judge_secret_marks((*spec)["spec"], {"spec", line}, verdict);
    }
}

void check_spec_sync_modes(const Inputs& inputs, Verdict& verdict) {
    std::uint64_t line = 0;
    auto spec = spec_of(inputs, verdict, line);
    if (!spec) {
        return;
    }
    verdict.judged();
    const auto& body = (*spec)["spec"];
    if (!body.IsObject() || !body.HasMember("supported_destination_sync_modes") ||
        !body["supported_destination_sync_modes"].IsArray()) {
        verdict.fail("the SPEC lists no supported_destination_sync_modes", {"spec", line});
        return;
    }
    const auto& listed = body["supported_destination_sync_modes"];
    if (const auto& no_catalog = inputs.test_config().no_catalog) {
        verdict.note(*no_catalog + ": the SPEC lists sync modes; none is compared with a catalog");
    }
    for (const auto& stream : inputs.catalog().streams()) {
        auto mode = destination::to_string(stream.mode);
        bool found = std::any_of(listed.Begin(), listed.End(), [mode](const auto& item) {
            return item.IsString() && item.GetString() == mode;
        });
        if (!found) {
            verdict.fail(fmt::format("stream '{}' is configured as {}, which "
                                     "supported_destination_sync_modes {} does not list",
                                     stream.airbyte.display_name(), mode, json::to_json(listed)),
                         {"spec", line});
        }
    }
}

// DST-SPEC-2: the SPEC is the expected spec, as Airbyte's test_match_expected compares spec_path.
void check_spec_matches_expected(const Inputs& inputs, Verdict& verdict) {
    const auto& expected = inputs.test_config().expected_spec;
    if (!expected) {
        return;
    }
    std::uint64_t line = 0;
    auto spec = spec_of(inputs, verdict, line);
    if (!spec) {
        return;
    }
    verdict.judged();
    compare_with_expected_spec(*expected, (*spec)["spec"], {"spec", line}, verdict);
}

// The status of the run's one CONNECTION_STATUS, and its message; empty when it has none.
std::pair<std::string, std::string> status_of(const Run& run) {
    const auto* kept = run.observation.first_kept("CONNECTION_STATUS");
    if (kept == nullptr) {
        return {};
    }
    auto message = json::parse_json_text(kept->json, "CONNECTION_STATUS");
    const auto& status = message["connectionStatus"];
    auto text = [&status](const char* name) {
        return status.IsObject() && status.HasMember(name) && status[name].IsString()
                   ? std::string(status[name].GetString())
                   : std::string();
    };
    return {text("status"), text("message")};
}

// DST-CLI-2: SUCCEEDED for the config (exit 0); FAILED with a message (exit 0) or a TRACE error
// for the invalid one.
void check_check(const Inputs& inputs, Verdict& verdict) {
    for_each_run(inputs, 0, [&](const StepResult& step, const Run& run) {
        verdict.judged();
        bool invalid = step.step->kind == StepKind::check_invalid;
        auto count = run.observation.count("CONNECTION_STATUS");
        auto [status, message] = status_of(run);
        if (run.process().stop_reason == process::StopReason::timeout ||
            run.process().exit.signal) {
            verdict.fail(fmt::format("check {}", run.outcome()), {run.label, 0, stderr_tail(run)});
            return;
        }
        if (auto failure = run.trace_error_failure_type(); invalid && failure) {
            // A connector error, reported as the protocol says; a crash is not an answer.
            if (*failure == "system_error" && count == 0) {
                verdict.advise(
                    "with the invalid config check crashed: a system_error TRACE error "
                    "and no CONNECTION_STATUS, where a config it cannot use is "
                    "answered FAILED (or with a config_error)",
                    {run.label, 0, stderr_tail(run)});
            }
            return;
        }
        if (count != 1) {
            verdict.fail(fmt::format("expected exactly one CONNECTION_STATUS{}, got {}",
                                     invalid ? " (or a TRACE error)" : "", count),
                         {run.label, 0, stderr_tail(run)});
        } else if (status != (invalid ? "FAILED" : "SUCCEEDED")) {
            verdict.fail(fmt::format("with the {} expected status {}, got {}",
                                     invalid ? "invalid config" : "config",
                                     invalid ? "FAILED" : "SUCCEEDED", status),
                         {run.label});
        } else if (invalid && message.empty()) {
            verdict.fail("status FAILED carries no message explaining why", {run.label});
        }
        if (!run.exited_cleanly()) {
            verdict.fail(
                fmt::format("expected exit code 0 with a CONNECTION_STATUS, got {}", run.outcome()),
                {run.label, 0, stderr_tail(run)});
        }
    });
}

// DST-WRITE-1: a write of a whole sync exits 0; one that fails says why in a TRACE error.
void check_write_exit(const Inputs& inputs, Verdict& verdict) {
    for_each_run(inputs, 0, [&](const StepResult&, const Run& run) {
        verdict.judged();
        if (!run.exited_cleanly()) {
            verdict.fail(fmt::format("write ended with {}{}: it exits 0 once it accepted all its "
                                     "input",
                                     run.outcome(),
                                     run.has_trace_error() ? "" : " and emitted no TRACE error"),
                         {run.label, 0, stderr_tail(run)});
        } else if (run.has_trace_error()) {
            verdict.advise(
                "write exited 0 after a TRACE error: the platform reads exit 0 as a "
                "successful sync",
                {run.label});
        }
    });
}

// DST-WRITE-2: a write that exits 0 read its input to the end.
void check_reads_all_input(const Inputs& inputs, Verdict& verdict) {
    for_each_run(inputs, 0, [&](const StepResult& step, const Run& run) {
        if (!run.exited_cleanly() || step.input == nullptr) {
            return;  // a failed write is dst.write_exit's
        }
        verdict.judged();
        auto unread = run.process().stdin_unread;
        if (unread == 0) {
            return;
        }
        auto first = step.input->message_at(run.input_bytes - unread);
        verdict.fail(fmt::format("write exited 0 with {} of its {} input bytes unread, from input "
                                 "line {} on: it ended before the end of its input without an "
                                 "error",
                                 unread, run.input_bytes, first + 1),
                     {run.label, 0, excerpt(step.input->messages[first].line, 200)});
    });
    verdict.note("a destination that stops reading for a while is waited for (backpressure)");
}

const InputMessage* bad_record_of(const destination::Input& input) {
    for (const auto& message : input.messages) {
        if (message.unconfigured || message.breaks_schema) {
            return &message;
        }
    }
    return nullptr;
}

// The part of DST-WRITE-3 a verify command can judge: the good records landed, the bad one as
// documented.
void judge_bad_record_landing(const Inputs& inputs, const StepResult& write,
                              const InputMessage& bad, Handling handling, Verdict& verdict) {
    const auto* verify = inputs.steps(1).empty() ? nullptr : inputs.steps(1).front();
    if (verify == nullptr || !verify->verify) {
        verdict.note("without a verify command, what landed is not judged");
        return;
    }
    if (!verify->verify->problem.empty()) {
        verdict.fail("what landed could not be read: " + verify->verify->problem);
        return;
    }
    const auto& landed = verify->verify->landed;
    auto counts = destination::count_by_content(landed, 0);
    for (const auto& message : write.input->messages) {
        if (message.kind == InputMessage::Kind::record && &message != &bad &&
            counts[message.content] == 0) {
            verdict.fail("a good record around the bad one did not land: " +
                         destination::describe(inputs.catalog(), message, 1));
        }
    }
    if (bad.unconfigured) {
        auto& others = landed.other_streams;
        if (std::find(others.begin(), others.end(), "conform_unconfigured_stream") !=
            others.end()) {
            verdict.fail(
                "the record of the unconfigured stream landed, though the test config "
                "documents 'drop'");
        }
        return;
    }
    bool present = counts[bad.content] > 0;
    if (handling == Handling::drop && present) {
        verdict.fail(
            "the record that breaks its schema landed, though the test config documents "
            "'drop'");
    }
}

// DST-WRITE-3: a record the catalog does not allow gets the test config's documented handling,
// never a crash.
void check_bad_records(const Inputs& inputs, Verdict& verdict) {
    const auto& step = inputs.first(0);
    const auto& run = *step.run();
    const auto& config = inputs.test_config();
    const auto* bad = bad_record_of(*step.input);
    bool unknown = step.step->kind == StepKind::unknown_stream;
    auto handling = unknown ? config.unknown_stream : config.schema_violation;
    auto what = unknown ? std::string("a record of a stream not in the catalog")
                        : std::string("a record that breaks its stream's schema");
    engine::Where where{run.label, 0, bad != nullptr ? excerpt(bad->line, 200) : ""};
    verdict.judged();
    verdict.note(
        fmt::format("{}: the test config documents '{}'", what, destination::to_string(handling)));
    const auto& ended = run.process();
    if (ended.stop_reason == process::StopReason::timeout) {
        verdict.fail(fmt::format("write {} on {}", run.outcome(), what), where);
        return;
    }
    if (ended.exit.signal) {
        verdict.fail(fmt::format("write crashed ({}) on {}", run.outcome(), what), where);
        return;
    }
    if (handling == Handling::error) {
        if (run.exited_cleanly()) {
            verdict.fail(fmt::format("write accepted {} and exited 0, though the test config "
                                     "documents 'error'",
                                     what),
                         where);
        } else if (!run.has_trace_error()) {
            verdict.fail(fmt::format("write ended with {} on {} without a TRACE error: a crash, "
                                     "not the documented error",
                                     run.outcome(), what),
                         {run.label, 0, stderr_tail(run)});
        }
        return;
    }
    if (!run.exited_cleanly()) {
        // What the write said may show it failed on something else before the record came.
        auto said = protocol::trace_error_message(run.observation);
        verdict.fail(
            fmt::format("write ended with {} on {}, though the test config documents "
                        "'{}' (the sync goes on){}",
                        run.outcome(), what, destination::to_string(handling),
                        said.empty() ? "" : fmt::format("; its TRACE error: \"{}\"", said)),
            {run.label, 0, stderr_tail(run)});
        return;
    }
    auto last_state = last_state_index(*step.input, std::nullopt);
    bool echoed = std::any_of(run.echoes.begin(), run.echoes.end(),
                              [&](const auto& echo) { return echo.input_index == last_state; });
    if (last_state && !echoed) {
        verdict.fail(fmt::format("write exited 0 but never echoed the STATE after {}: the records "
                                 "after it are not known to be committed",
                                 what),
                     where);
    }
    if (bad != nullptr) {
        judge_bad_record_landing(inputs, step, *bad, handling, verdict);
    }
}

}  // namespace

destination::Checks command_checks() {
    using enum report::Level;
    using enum destination::Role;
    using engine::Count;
    return {
        {{k_messages_valid.id(),
          {"DST-IO-1"},
          must,
          "every stdout line is a valid AirbyteMessage (non-JSON lines warn)"},
         {{run}},
         "the destination wrote no stdout line",
         report_judge<k_messages_valid>,
         &k_messages_valid},
        {{k_secrets.id(), {"DST-SEC-1"}, must, "no airbyte_secret value appears in any output"},
         {{run}},
         "the destination wrote nothing to look for secrets in",
         report_secrets,
         &k_secrets},
        {{"dst.spec",
          {"DST-CLI-1"},
          must,
          "spec emits one SPEC with a valid connectionSpecification the config matches, exit 0"},
         {{spec, {}, {}, std::nullopt, Count::one}},
         "no spec ran",
         check_spec},
        {{"dst.spec_sync_modes",
          {"DST-SPEC-1"},
          should,
          "supported_destination_sync_modes lists every sync mode of the catalog"},
         {{spec, {}, {}, std::nullopt, Count::one}},
         "spec emitted no SPEC message (see dst.spec)",
         check_spec_sync_modes},
        {{"dst.spec_secrets_marked",
          {"DST-SPEC-3"},
          should,
          "properties named as secrets are marked airbyte_secret, and only those that hold a "
          "value"},
         {{spec, {}, {}, std::nullopt, Count::one}},
         "spec emitted no SPEC message (see dst.spec)",
         check_spec_secrets_marked},
        {{"dst.spec_matches_expected",
          {"DST-SPEC-2"},
          must,
          "spec emits the expected spec (Airbyte's spec_path)"},
         {{spec, {}, {}, std::nullopt, Count::one}},
         "the test config names no expected_spec (Airbyte: an existing spec_path)",
         check_spec_matches_expected},
        {{"dst.check",
          {"DST-CLI-2"},
          must,
          "check reports SUCCEEDED for the config, FAILED (or a TRACE error) for the invalid one"},
         {{check}},
         "no check ran",
         check_check},
        {{"dst.write_exit",
          {"DST-WRITE-1"},
          must,
          "a write of a whole sync exits 0; a failing one emits a TRACE error"},
         {{sync}},
         "no write of a whole sync ran",
         check_write_exit},
        {{"dst.reads_all_input",
          {"DST-WRITE-2"},
          must,
          "a write that exits 0 read its input to the end"},
         {{sync}},
         "no write exited 0",
         check_reads_all_input},
        {{"dst.bad_records_handled",
          {"DST-WRITE-3"},
          must,
          "a record of an unconfigured stream or against its schema gets the documented handling"},
         {{bad_records, {}, {}, std::nullopt, Count::one},
          {after_bad_record, {}, {}, std::nullopt, Count::any}},
         "no write with a bad record ran",
         check_bad_records},
    };
}

}  // namespace conform::checks::dst
