#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "diff/records.hpp"
#include "diff/state_diff.hpp"

using namespace conform::diff;

namespace {

ReadCapture capture_of(const std::vector<std::string>& lines,
                       std::map<std::string, std::vector<std::string>> volatile_fields = {}) {
    ReadCollector collector(std::move(volatile_fields));
    for (const auto& line : lines) {
        collector.add_line(line);
    }
    return collector.take();
}

std::string record(const std::string& stream, const std::string& data) {
    return R"({"type":"RECORD","record":{"stream":")" + stream + R"(","data":)" + data +
           R"(,"emitted_at":1}})";
}

std::string stream_state(const std::string& stream, int position) {
    return R"({"type":"STATE","state":{"type":"STREAM","stream":{"stream_descriptor":{"name":")" +
           stream + R"("},"stream_state":{"pos":)" + std::to_string(position) + "}}}}";
}

const StreamIdentities k_keys = identities_of_keys({{"users", {"/id"}}});

std::vector<std::string> rules_of(const std::vector<Change>& changes) {
    std::vector<std::string> rules;
    for (const auto& change : changes) {
        rules.push_back(change.rule + (change.breaking ? "!" : "") + "@" + change.where);
    }
    return rules;
}

}  // namespace

TEST_CASE("the collector keeps records by stream without volatile fields, and each state") {
    auto capture =
        capture_of({record("users", R"({"id":1,"at":"now"})"), "not json", stream_state("users", 1),
                    record("users", R"({"id":2,"at":"x"})"), stream_state("users", 2)},
                   {{"users", {"/at"}}});
    REQUIRE(capture.streams["users"].size() == 2);
    CHECK(capture.streams["users"][0].data == R"({"id":1})");
    CHECK(capture.streams["users"][1].checkpoint == 1);
    REQUIRE(capture.states.size() == 2);
    CHECK(
        capture.states[1] ==
        R"([{"stream":{"stream_descriptor":{"name":"users"},"stream_state":{"pos":2}},"type":"STREAM"}])");
}

TEST_CASE("records removed, added and changed by identity: only the removed ones break") {
    auto control = capture_of({record("users", R"({"id":1,"name":"a"})"),
                               record("users", R"({"id":2,"name":"b"})"),
                               record("users", R"({"id":3,"name":"c","tags":[1]})")});
    auto target = capture_of({record("users", R"({"id":1,"name":"a"})"),
                              record("users", R"({"id":3,"name":"C","tags":[1,2]})"),
                              record("users", R"({"id":4,"name":"d"})")});
    std::vector<StreamSummary> summary;
    auto changes = diff_records(control, target, k_keys, summary);
    REQUIRE(summary.size() == 1);
    CHECK(summary[0].control == 3);
    CHECK(summary[0].target == 3);
    CHECK(summary[0].removed == 1);
    CHECK(summary[0].added == 1);
    CHECK(summary[0].changed == 1);
    REQUIRE(changes.size() == 3);
    CHECK(changes[0].rule == "records.removed");
    CHECK(changes[0].detail.find("[2]") != std::string::npos);
    CHECK(changes[0].breaking);
    CHECK(changes[1].rule == "records.changed");
    CHECK(changes[1].detail.find(R"(/name: "c" -> "C"; /tags: [1] -> [1,2])") != std::string::npos);
    CHECK_FALSE(changes[1].breaking);
    CHECK(changes[2].rule == "records.added");
    CHECK_FALSE(changes[2].breaking);
}

TEST_CASE("volatile fields do not make a record changed") {
    auto control = capture_of({record("users", R"({"id":1,"at":"t1"})")}, {{"users", {"/at"}}});
    auto target = capture_of({record("users", R"({"id":1,"at":"t2"})")}, {{"users", {"/at"}}});
    std::vector<StreamSummary> summary;
    CHECK(diff_records(control, target, k_keys, summary).empty());
}

TEST_CASE("keys come from the configured primary key, else the source-defined one") {
    auto keys = keys_of_catalog(R"({"streams":[
        {"stream":{"name":"users","source_defined_primary_key":[["id"]]}},
        {"stream":{"name":"events","source_defined_primary_key":[["id"]]},"primary_key":[["a","b"]]},
        {"stream":{"name":"logs"}}]})");
    CHECK(keys["users"] == std::vector<std::string>{"/id"});
    CHECK(keys["events"] == std::vector<std::string>{"/a/b"});
    CHECK(keys["logs"].empty());
}

TEST_CASE("a resumed target that skips records loses them; one that covers them does not") {
    auto control = capture_of({record("users", R"({"id":1})"), stream_state("users", 1),
                               record("users", R"({"id":2})"), stream_state("users", 2),
                               record("users", R"({"id":3})"), stream_state("users", 3)});
    auto full = capture_of({record("users", R"({"id":1})"), record("users", R"({"id":2})"),
                            record("users", R"({"id":3})")});
    auto good_resume = capture_of({record("users", R"({"id":2})"), record("users", R"({"id":3})")});
    auto skipping_resume = capture_of({record("users", R"({"id":3})")});
    ResumePoint first{0, "first"};
    CHECK(resume_losses(control, first, full, good_resume, k_keys).empty());
    auto losses = resume_losses(control, first, full, skipping_resume, k_keys);
    REQUIRE(losses.size() == 1);
    CHECK(losses[0].rule == "state.resume_loss");
    CHECK(losses[0].detail.find("[2]") != std::string::npos);
    CHECK(losses[0].detail.find("the control's first state (after STATE 1 of 3)") !=
          std::string::npos);
    CHECK(resume_losses(control, {1, "middle"}, full, skipping_resume, k_keys).empty());
}

TEST_CASE("the target is resumed from the first, the middle and the final state") {
    auto names = [](std::size_t states) {
        std::vector<std::string> text;
        for (const auto& point : resume_points(states)) {
            text.push_back(point.name + "=" + std::to_string(point.checkpoint));
        }
        return text;
    };
    CHECK(names(0).empty());
    CHECK(names(1) == std::vector<std::string>{"only=0"});
    CHECK(names(2) == std::vector<std::string>{"first=0", "final=1"});
    CHECK(names(8) == std::vector<std::string>{"first=0", "middle=3", "final=7"});
}

TEST_CASE("fields that differ between two reads of the control are not a version's change") {
    auto first = capture_of({record("users", R"({"id":1,"at":"t1","name":"a"})")});
    auto second = capture_of({record("users", R"({"id":1,"at":"t2","name":"a"})")});
    auto unstable = unstable_fields(first, second, k_keys);
    CHECK(unstable["users"] == std::set<std::string>{"/at"});
    auto only_time = capture_of({record("users", R"({"id":1,"at":"t3","name":"a"})")});
    auto renamed = capture_of({record("users", R"({"id":1,"at":"t3","name":"b"})")});
    std::vector<StreamSummary> summary;
    CHECK(diff_records(first, only_time, k_keys, summary, unstable).empty());
    auto changes = diff_records(first, renamed, k_keys, summary, unstable);
    REQUIRE(changes.size() == 1);
    CHECK(changes[0].detail.find(R"([1]: /name: "a" -> "b")") != std::string::npos);
    CHECK(changes[0].detail.find("/at") == std::string::npos);
}

TEST_CASE("without a key, records are matched by a unique field both versions agree on") {
    auto control = capture_of({record("logs", R"({"n":1,"msg":"a","at":"t1"})"),
                               record("logs", R"({"n":2,"msg":"b","at":"t2"})"),
                               record("logs", R"({"n":3,"msg":"c","at":"t3"})")});
    auto target = capture_of({record("logs", R"({"n":1,"msg":"a","at":"u1","extra":{"x":1}})"),
                              record("logs", R"({"n":2,"msg":"B","at":"u2","extra":{"x":1}})"),
                              record("logs", R"({"n":3,"msg":"c","at":"u3","extra":{"x":1}})")});
    auto identities = choose_identities({}, control, target);
    const auto& identity = identities.at("logs");
    CHECK(identity.kind == StreamIdentity::Kind::fields);
    CHECK(identity.pointers == std::vector<std::string>{"/n"});
    CHECK(identity.describe().find("/n (no primary key") == 0);
    std::vector<StreamSummary> summary;
    auto changes = diff_records(control, target, identities, summary, {{"logs", {"/at"}}});
    CHECK(rules_of(changes) ==
          std::vector<std::string>{"records.changed@logs", "records.field_added@logs:/extra"});
    CHECK(summary[0].removed == 0);
    CHECK(summary[0].identity == identity.describe());
}

TEST_CASE("the identity: a key first, then fields with equal values, then the order") {
    auto control =
        capture_of({record("s", R"({"k":"x","v":1})"), record("s", R"({"k":"x","v":2})")});
    auto same = capture_of({record("s", R"({"k":"x","v":1})"), record("s", R"({"k":"x","v":2})")});
    auto keyed = choose_identities({{{"s", {"/v"}}}, {}, {}}, control, same);
    CHECK(keyed.at("s").kind == StreamIdentity::Kind::configured_key);
    auto source = choose_identities({{}, {}, {{"s", {"/v"}}}}, control, same);
    CHECK(source.at("s").kind == StreamIdentity::Kind::target_key);
    // A key only the target has, whose field the control's records lack, identifies nothing.
    auto uncarried = choose_identities({{}, {}, {{"s", {"/w"}}}}, control, same);
    CHECK(uncarried.at("s").kind == StreamIdentity::Kind::fields);
    // "k" repeats, "v" is unique and agrees.
    CHECK(choose_identities({}, control, same).at("s").pointers == std::vector<std::string>{"/v"});
    // Nothing unique agrees for most records, but together the fields do.
    auto pairs = capture_of({record("s", R"({"a":1,"b":1})"), record("s", R"({"a":1,"b":2})"),
                             record("s", R"({"a":2,"b":1})")});
    auto fields = infer_identity(pairs.streams["s"], pairs.streams["s"]);
    CHECK(fields.kind == StreamIdentity::Kind::fields);
    CHECK(fields.pointers == std::vector<std::string>{"/a", "/b"});
    // Every value changed: only the order is left.
    auto other = capture_of({record("s", R"({"k":"y","v":3})"), record("s", R"({"k":"y","v":4})")});
    auto order = infer_identity(control.streams["s"], other.streams["s"]);
    CHECK(order.kind == StreamIdentity::Kind::order);
    CHECK(order.describe().find("order within the stream") != std::string::npos);
}

TEST_CASE("an undeclared volatile field of a keyless stream is found by two reads") {
    auto first =
        capture_of({record("s", R"({"n":1,"at":"t1"})"), record("s", R"({"n":2,"at":"t2"})")});
    auto second =
        capture_of({record("s", R"({"n":1,"at":"t3"})"), record("s", R"({"n":2,"at":"t4"})")});
    auto identities = choose_identities({}, first, second);
    CHECK(unstable_fields(first, second, identities)["s"] == std::set<std::string>{"/at"});
    std::vector<StreamSummary> summary;
    CHECK(
        diff_records(first, second, identities, summary, unstable_fields(first, second, identities))
            .empty());
}

TEST_CASE("fields removed or retyped break, fields added and other values do not") {
    auto control =
        capture_of({record("users", R"({"id":1,"a":"x","n":1,"f":1.5,"o":{"p":1},"z":null})"),
                    record("users", R"({"id":2,"a":"y","n":2,"f":2.5,"o":{"p":2}})")});
    auto target =
        capture_of({record("users", R"({"id":1,"n":"1","f":2,"o":{"p":1,"q":true}})"),
                    record("users", R"({"id":2,"n":2.5,"f":3.5,"o":{"p":2,"q":false}})")});
    std::vector<StreamSummary> summary;
    auto changes = diff_records(control, target, k_keys, summary);
    CHECK(rules_of(changes) == std::vector<std::string>{"records.field_removed!@users:/a",
                                                        "records.field_retyped!@users:/n",
                                                        "records.changed@users",
                                                        "records.field_added@users:/o/q"});
    CHECK(changes[1].detail.find("integer -> number, integer -> string") != std::string::npos);
    CHECK(changes[0].detail.find("absent in 2 matched record(s)") != std::string::npos);
    CHECK(summary[0].changed == 2);
}

TEST_CASE("other values of a record the test config expects break") {
    auto control = capture_of(
        {record("users", R"({"id":1,"name":"a"})"), record("users", R"({"id":2,"name":"b"})")});
    auto target = capture_of(
        {record("users", R"({"id":1,"name":"A"})"), record("users", R"({"id":2,"name":"B"})")});
    std::vector<StreamSummary> summary;
    auto changes = diff_records(control, target, k_keys, summary, {},
                                {{"users", {R"({"name": "a", "id": 1})"}}});
    CHECK(rules_of(changes) ==
          std::vector<std::string>{"records.expected_changed!@users", "records.changed@users"});
    CHECK(changes[0].detail.find("[1]") != std::string::npos);
    CHECK(changes[1].detail.find("1 record(s)") == 0);
}

TEST_CASE("the collector counts messages and states per stream and keeps the connector's error") {
    auto capture = capture_of(
        {record("users", R"({"id":1})"), stream_state("users", 1),
         R"({"type":"STATE","state":{"type":"LEGACY","data":{"users":1}}})",
         R"({"type":"LOG","log":{"level":"ERROR","message":"first\ntraceback"}})",
         R"({"type":"TRACE","trace":{"type":"ERROR","emitted_at":1,"error":{"message":"stream X was not found"}}})"});
    CHECK(capture.messages["STATE"] == 2);
    CHECK(capture.messages["LOG"] == 1);
    CHECK(capture.states_per_stream["users"] == 1);
    CHECK(capture.states_per_stream["*"] == 1);
    CHECK(capture.error == "stream X was not found");
    auto generic = capture_of(
        {R"({"type":"TRACE","trace":{"type":"ERROR","error":{"message":"Something went wrong","internal_message":"KeyError: 'Users'"}}})"});
    CHECK(generic.error == "Something went wrong (KeyError: 'Users')");
    auto logged = capture_of({R"({"type":"LOG","log":{"level":"FATAL","message":"boom\nat x"}})"});
    CHECK(logged.error == "boom");
}

TEST_CASE("the shape of the final state: type and members per stream") {
    auto shapes = state_shapes(
        R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"users"},"stream_state":{"seq":1,"at":"x"}}}])");
    CHECK(shapes["state"] == "per-stream");
    CHECK(shapes["users"] == R"(STREAM {"at":string,"seq":integer})");
    auto legacy = state_shapes(R"({"users":{"seq":1}})");
    CHECK(legacy["state"] == "legacy");
    CHECK(legacy["users"] == R"(legacy {"seq":integer})");
    auto control = capture_of({stream_state("users", 1)});
    auto target =
        capture_of({R"({"type":"STATE","state":{"type":"LEGACY","data":{"users":{"pos":1}}}})"});
    auto changes = diff_state_shapes(control, target);
    CHECK(rules_of(changes) ==
          std::vector<std::string>{"state.shape_changed@state", "state.shape_changed@users"});
    CHECK(changes[0].detail == "the final state: per-stream -> legacy");
    CHECK(diff_state_shapes(control, control).empty());
}
