#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "diff/records.hpp"

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

const StreamKeys k_keys = {{"users", {"/id"}}};

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

TEST_CASE("records removed, added and changed by identity, with the changed fields") {
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
    CHECK(resume_losses(control, 0, full, good_resume, k_keys).empty());
    auto losses = resume_losses(control, 0, full, skipping_resume, k_keys);
    REQUIRE(losses.size() == 1);
    CHECK(losses[0].rule == "state.resume_loss");
    CHECK(losses[0].detail.find("[2]") != std::string::npos);
    CHECK(resume_losses(control, 1, full, skipping_resume, k_keys).empty());
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
