// Cross-run checks through the runner's seam: a connector model in C++ answers with canned NDJSON,
// and the real Runner, analyzer and checks judge it. Each case is one reading of the contract.
#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>

#include "fake_connector.hpp"
#include "json/parse.hpp"

using namespace conform;
using namespace conform::testing;

namespace {

// items: full refresh, 3 records. events: incremental on seq, 6 records. logs: incremental on
// seq, 6 records, interleaved with events, checkpointed less often.
const std::string k_catalog = R"({"streams":[
  {"stream":{"name":"items","json_schema":{"type":"object"},"supported_sync_modes":["full_refresh"]},
   "sync_mode":"full_refresh","destination_sync_mode":"overwrite","primary_key":[["id"]]},
  {"stream":{"name":"events","json_schema":{"type":"object"},
             "supported_sync_modes":["full_refresh","incremental"]},
   "sync_mode":"incremental","destination_sync_mode":"append","cursor_field":["seq"],
   "primary_key":[["id"]]},
  {"stream":{"name":"logs","json_schema":{"type":"object"},
             "supported_sync_modes":["full_refresh","incremental"]},
   "sync_mode":"incremental","destination_sync_mode":"append","cursor_field":["seq"],
   "primary_key":[["id"]]}]})";

const std::string k_suite = R"({"suite":"test","scenarios":[
  {"id":"resume","title":"resume","steps":[
     {"id":"full","run":"read"},
     {"id":"resume","run":"read","state":{"from":"full","checkpoint":"sample"}}],
   "checks":["state.commit_boundaries","state.resume_no_loss","state.resume_exactly_once"]},
  {"id":"read-from-final-state","title":"again","steps":[
     {"id":"first","run":"read"},
     {"id":"again","run":"read","state":{"from":"first","checkpoint":"last"},
      "cursor_floor_from":"first"}],
   "checks":["state.incremental_no_older","cli.read"]},
  {"id":"range-subdivide","title":"subdivide","steps":[
     {"id":"full","run":"read","range":"full"},
     {"id":"children","run":"read","split":"halves","state":{"from":"full","checkpoint":"middle"}}],
   "checks":["range.state_subdivision"]}]})";

struct Model {
    bool emit_states = true;
    bool state_ahead = false;       // an events STATE claims the next record too
    bool resume_inclusive = false;  // resuming re-reads the record at the state's cursor
    bool fail_resumed = false;      // a read given a state exits 1
    bool fail_always = false;
};

std::string stream_state(const std::string& stream, const std::string& state_json) {
    return fmt::format(R"({{"type":"STATE","state":{{"type":"STREAM","stream":{{)"
                       R"("stream_descriptor":{{"name":"{}","namespace":null}},)"
                       R"("stream_state":{}}},"sourceStats":{{"recordCount":1.0}}}}}})",
                       stream, state_json);
}

// The seq a state file holds for `stream` (0 when none).
int resumed_seq(const Invocation& invocation, const std::string& stream) {
    if (!invocation.state) {
        return 0;
    }
    auto state = json::parse_json_text(*invocation.state, "state");
    for (const auto& entry : state.GetArray()) {
        const auto& body = entry["stream"];
        if (body["stream_descriptor"]["name"].GetString() == stream &&
            body["stream_state"].HasMember("seq")) {
            return body["stream_state"]["seq"].GetInt();
        }
    }
    return 0;
}

// Keys: id * 0x10000000 spreads the records over the range space.
bool in_range(const Invocation& invocation, int id) {
    return invocation.range.includes(static_cast<std::uint32_t>(id) * 0x10000000u);
}

Answer read_with(const Model& model, const Invocation& invocation) {
    Answer answer;
    if (model.fail_always || (model.fail_resumed && invocation.state)) {
        answer.exit_code = 1;
        answer.lines.push_back(
            R"({"type":"TRACE","trace":{"type":"ERROR","emitted_at":1,"error":{"message":"x"}}})");
        return answer;
    }
    int events_from = resumed_seq(invocation, "events") - (model.resume_inclusive ? 1 : 0);
    int logs_from = resumed_seq(invocation, "logs");
    for (int id = 1; id <= 3; ++id) {
        if (in_range(invocation, id)) {
            answer.lines.push_back(record_line("items", fmt::format(R"({{"id":{}}})", id)));
        }
    }
    if (model.emit_states) {
        answer.lines.push_back(
            stream_state("items", R"({"__ab_full_refresh_state_message":true})"));
    }
    for (int seq = 1; seq <= 6; ++seq) {
        if (seq > events_from && in_range(invocation, seq)) {
            answer.lines.push_back(
                record_line("events", fmt::format(R"({{"id":{0},"seq":{0}}})", seq)));
        }
        if (seq > logs_from && in_range(invocation, seq)) {
            answer.lines.push_back(
                record_line("logs", fmt::format(R"({{"id":{0},"seq":{0}}})", seq)));
        }
        if (model.emit_states && seq % 2 == 0) {
            int claimed = model.state_ahead && seq < 6 ? seq + 1 : seq;
            answer.lines.push_back(stream_state("events", fmt::format(R"({{"seq":{}}})", claimed)));
        }
        if (model.emit_states && seq % 3 == 0) {
            answer.lines.push_back(stream_state("logs", fmt::format(R"({{"seq":{}}})", seq)));
        }
    }
    return answer;
}

report::RunReport run_model(const Model& model, bool strict = false) {
    return run_fake(
        [model](const Invocation& invocation) {
            return invocation.command == "spec" ? answer_with({spec_line()})
                                                : read_with(model, invocation);
        },
        fake_test_config(k_catalog, {"range"}), k_suite, strict);
}

}  // namespace

TEST_CASE("cross-run: a correct connector with interleaved per-stream STATEs passes resume") {
    auto report = run_model(Model{});
    // logs records emitted before an events STATE are not committed by it: re-emitting them after
    // resuming from it is correct, not a duplicate; items (full refresh) are read whole again.
    CHECK(status_of(report, "resume", "state.resume_exactly_once") == "passed");
    CHECK(status_of(report, "resume", "state.resume_no_loss") == "passed");
    CHECK(status_of(report, "resume", "state.commit_boundaries") == "passed");
    CHECK(status_of(report, "range-subdivide", "range.state_subdivision") == "passed");
    // The read from the final state emits nothing: no cursor to hold to the floor, so no verdict.
    CHECK(status_of(report, "read-from-final-state", "state.incremental_no_older") == "skipped");
}

TEST_CASE("cross-run: a STATE ahead of its records is X-STATE-1, counted over every lost record") {
    Model model;
    model.state_ahead = true;
    auto report = run_model(model);
    CHECK(status_of(report, "resume", "state.resume_no_loss") == "failed");
    CHECK(status_of(report, "resume", "state.commit_boundaries") == "failed");
    INFO(first_message(report, "resume", "state.commit_boundaries"));
    CHECK(first_message(report, "resume", "state.commit_boundaries")
              .find("lost 1 of the 2 record(s) that the next STATE of their stream commits") !=
          std::string::npos);
}

TEST_CASE(
    "cross-run: re-emission after a resume is X-STATE-3's SHOULD, and only a warning in "
    "X-RANGE-2") {
    Model model;
    model.resume_inclusive = true;
    auto report = run_model(model);
    CHECK(status_of(report, "resume", "state.resume_exactly_once") == "warned");
    CHECK(status_of(report, "resume", "state.resume_no_loss") == "passed");
    CHECK(status_of(report, "range-subdivide", "range.state_subdivision") == "warned");
    CHECK(first_message(report, "range-subdivide", "range.state_subdivision")
              .starts_with("(SHOULD) re-emitted by a child range"));
    auto strict = run_model(model, true);
    CHECK(status_of(strict, "range-subdivide", "range.state_subdivision") == "failed");
}

TEST_CASE("cross-run: a check whose second read never ran is skipped, never passed") {
    Model model;
    model.emit_states = false;
    auto report = run_model(model);
    CHECK(status_of(report, "read-from-final-state", "state.incremental_no_older") == "skipped");
    CHECK(status_of(report, "read-from-final-state", "cli.read") == "skipped");
    CHECK(first_message(report, "read-from-final-state", "cli.read")
              .find("step 'again' did not run") != std::string::npos);
    CHECK(status_of(report, "resume", "state.resume_no_loss") == "skipped");
}

TEST_CASE(
    "cross-run: a resumed read that fails fails the resume; when every read fails, cli.read "
    "says so and the comparisons are skipped") {
    Model resumed_fails;
    resumed_fails.fail_resumed = true;
    auto report = run_model(resumed_fails);
    CHECK(status_of(report, "resume", "state.resume_no_loss") == "failed");
    auto message = first_message(report, "resume", "state.resume_no_loss");
    CHECK(message.starts_with("the read resumed from checkpoint 1 (line "));
    CHECK(message.find("did not succeed") != std::string::npos);
    // Said once, with the count, however many resumed reads failed.
    auto said = all_messages(report, "resume", "state.resume_no_loss");
    INFO(said);
    auto note_at = said.find("resumed read(s) that failed are not compared");
    CHECK(note_at != std::string::npos);
    CHECK(said.find("resumed read(s) that failed", note_at + 1) == std::string::npos);
    // The crash is resume_no_loss's one finding: the comparisons that need its records skip.
    CHECK(status_of(report, "resume", "state.commit_boundaries") == "skipped");
    CHECK(status_of(report, "resume", "state.resume_exactly_once") == "skipped");

    Model all_fail;
    all_fail.fail_always = true;
    auto failing = run_model(all_fail);
    CHECK(status_of(failing, "resume", "state.resume_no_loss") == "skipped");
    CHECK(status_of(failing, "read-from-final-state", "cli.read") == "failed");
}
