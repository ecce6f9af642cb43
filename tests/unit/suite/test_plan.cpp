#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "suite/plan.hpp"

using namespace conform;
using namespace conform::suite;

namespace {

using Indexes = std::vector<std::size_t>;

Step read_step() {
    Step step;
    step.id = "child";
    step.run = Command::read;
    return step;
}

std::vector<std::string> ranges_of(const std::vector<RunPlan>& plans) {
    std::vector<std::string> ranges;
    for (const auto& plan : plans) {
        ranges.push_back(plan.range_json.value_or("<none>"));
    }
    return ranges;
}

std::string range(std::string_view begin, std::string_view end) {
    return "{\"begin\":\"" + std::string(begin) + "\",\"end\":\"" + std::string(end) + "\"}";
}

protocol::Observation run_with_checkpoints(std::size_t count) {
    protocol::Observation run;
    for (std::size_t i = 0; i < count; ++i) {
        run.checkpoints.push_back({i + 1, i, "{\"n\":" + std::to_string(i) + "}", "", true, {}});
    }
    return run;
}

// The older "resume": {"sample": n}: first, middle, last and n evenly spaced checkpoints.
config::ResumeSampling old_style(std::size_t sample) {
    config::ResumeSampling sampling;
    sampling.sample = sample;
    return sampling;
}

config::ResumeSampling at_most(std::size_t max) {
    config::ResumeSampling sampling;
    sampling.max = max;
    return sampling;
}

std::vector<RunPlan> expand(const Step& step, const protocol::Observation* base = nullptr,
                            const config::ResumeSampling& sampling = old_style(2)) {
    std::string why_not;
    auto plans = expand_step(step, base, sampling, why_not);
    CHECK(why_not.empty());
    return plans;
}

// The checkpoint choice a suite spells `which` ("first", ..., or a number).
CheckpointChoice choice(const std::string& which) {
    for (auto [name, kind] : {std::pair{"first", CheckpointChoice::Kind::first},
                              {"middle", CheckpointChoice::Kind::middle},
                              {"last", CheckpointChoice::Kind::last},
                              {"sample", CheckpointChoice::Kind::sample}}) {
        if (which == name) {
            return {kind, 0};
        }
    }
    return {CheckpointChoice::Kind::number, std::stoul(which)};
}

}  // namespace

TEST_CASE("pick_checkpoints: first, middle, last") {
    CHECK(pick_checkpoints(choice("first"), 5, old_style(2)) == Indexes{0});
    CHECK(pick_checkpoints(choice("middle"), 5, old_style(2)) == Indexes{2});
    CHECK(pick_checkpoints(choice("middle"), 4, old_style(2)) == Indexes{2});
    CHECK(pick_checkpoints(choice("middle"), 1, old_style(2)) == Indexes{0});
    CHECK(pick_checkpoints(choice("last"), 5, old_style(2)) == Indexes{4});
    CHECK(pick_checkpoints(choice("last"), 1, old_style(2)) == Indexes{0});
}

TEST_CASE("pick_checkpoints: sample adds evenly spaced checkpoints, without repeats, in order") {
    CHECK(pick_checkpoints(choice("sample"), 10, old_style(2)) == Indexes{0, 3, 5, 6, 9});
    CHECK(pick_checkpoints(choice("sample"), 10, old_style(0)) == Indexes{0, 5, 9});
    CHECK(pick_checkpoints(choice("sample"), 1, old_style(3)) == Indexes{0});
    CHECK(pick_checkpoints(choice("sample"), 2, old_style(5)) == Indexes{0, 1});
    auto all = pick_checkpoints(choice("sample"), 4, old_style(100));
    CHECK(all == Indexes{0, 1, 2, 3});
}

TEST_CASE("pick_checkpoints: sample by default is every checkpoint up to the bound of 20") {
    config::ResumeSampling by_default;
    CHECK(by_default.max == 20);
    CHECK(pick_checkpoints(choice("sample"), 14, by_default) ==
          Indexes{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13});
    CHECK(pick_checkpoints(choice("sample"), 20, by_default).size() == 20);
    CHECK(pick_checkpoints(choice("sample"), 1, by_default) == Indexes{0});
}

TEST_CASE("pick_checkpoints: beyond the bound, that many evenly spaced, first and last included") {
    CHECK(pick_checkpoints(choice("sample"), 10, at_most(4)) == Indexes{0, 3, 6, 9});
    CHECK(pick_checkpoints(choice("sample"), 9, at_most(3)) == Indexes{0, 4, 8});
    CHECK(pick_checkpoints(choice("sample"), 100, at_most(1)) == Indexes{99});
    auto picked = pick_checkpoints(choice("sample"), 45, config::ResumeSampling{});
    CHECK(picked.size() == 20);
    CHECK(picked.front() == 0);
    CHECK(picked.back() == 44);
}

TEST_CASE("pick_checkpoints: beyond the bound, the preferred ones first, then evenly spaced") {
    // 10 checkpoints, 4 to resume from: first, last, then the preferred 2 and 4.
    CHECK(pick_checkpoints(choice("sample"), 10, at_most(4), {2, 4}) == Indexes{0, 2, 4, 9});
    // More preferred than the bound leaves room for: evenly spaced among them.
    CHECK(pick_checkpoints(choice("sample"), 10, at_most(4), {1, 2, 3, 5, 6, 7}) ==
          Indexes{0, 1, 7, 9});
    // Fewer: the rest evenly spaced, as without a preference.
    CHECK(pick_checkpoints(choice("sample"), 10, at_most(5), {5}) == Indexes{0, 2, 5, 7, 9});
    // Within the bound, every checkpoint whatever is preferred.
    CHECK(pick_checkpoints(choice("sample"), 3, at_most(4), {1}) == Indexes{0, 1, 2});
}

TEST_CASE("mid_stream_checkpoints: a STATE followed by more records of a stream it commits") {
    // users: 3 records, STATE (users), 2 records, STATE (users); orders: 1 record, STATE (orders),
    // STATE (orders) again, then a record of users after a legacy STATE (all streams).
    protocol::Observation run;
    auto record = [&run](std::uint32_t stream, std::uint32_t checkpoint) {
        protocol::RecordEntry entry;
        entry.stream = stream;
        entry.checkpoint = checkpoint;
        entry.line = run.records.size() + 1;
        run.records.push_back(entry);
    };
    auto state = [&run](std::vector<std::uint32_t> streams) {
        protocol::Checkpoint checkpoint;
        checkpoint.all_streams = streams.empty();
        checkpoint.streams = std::move(streams);
        run.checkpoints.push_back(std::move(checkpoint));
    };
    record(0, 0), record(0, 0), record(0, 0);
    state({0});  // 0: users goes on: mid-stream
    record(0, 1), record(0, 1);
    state({0});  // 1: orders comes next
    record(1, 2);
    state({1});  // 2: another STATE next
    state({1});  // 3: users comes next, and this commits orders
    record(0, 4);
    state({});  // 4: a legacy STATE, then a record
    record(0, 5);
    state({0});  // 5: the end
    CHECK(mid_stream_checkpoints(run) == Indexes{0, 4});
}

TEST_CASE("describe_checkpoints_used: every checkpoint, or which of them") {
    auto base_run = run_with_checkpoints(5);
    Step step = read_step();
    step.state_from = "full";
    step.state_checkpoint = choice("sample");
    BaseStep base;
    base.runs = std::span<const protocol::Observation>(&base_run, 1);
    std::string why_not;
    auto all = expand_step(step, base, config::ResumeSampling{}, why_not);
    CHECK(describe_checkpoints_used(all, base) == "resumed from every checkpoint (1-5 of 5)");
    auto some = expand_step(step, base, at_most(2), why_not);
    CHECK(describe_checkpoints_used(some, base) == "resumed from 2 of 5 checkpoints: 1, 5");
    CHECK(describe_checkpoints_used(expand(read_step()), BaseStep{}).empty());
}

TEST_CASE("pick_checkpoints: a 1-based number, and nothing when out of range") {
    CHECK(pick_checkpoints(choice("1"), 3, old_style(2)) == Indexes{0});
    CHECK(pick_checkpoints(choice("3"), 3, old_style(2)) == Indexes{2});
    CHECK(pick_checkpoints(choice("4"), 3, old_style(2)).empty());
    CHECK(pick_checkpoints(choice("0"), 3, old_style(2)).empty());
}

TEST_CASE("pick_checkpoints: no checkpoints gives nothing") {
    for (std::string which : {"first", "middle", "last", "sample", "1"}) {
        CAPTURE(which);
        CHECK(pick_checkpoints(choice(which), 0, old_style(2)).empty());
    }
}

TEST_CASE("expand_step: a plain read is one run without range or state") {
    auto plans = expand(read_step());
    REQUIRE(plans.size() == 1);
    CHECK(plans[0].label == "read");
    CHECK(!plans[0].range_json);
    CHECK(!plans[0].checkpoint);
    CHECK(plans[0].state_text.empty());
}

TEST_CASE("expand_step: full and explicit ranges") {
    auto step = read_step();
    step.range.kind = RangeChoice::Kind::full;
    auto plans = expand(step);
    CHECK(ranges_of(plans) == std::vector<std::string>{range("00000000", "ffffffff")});
    CHECK(plans[0].label == "read [range 00000000-ffffffff]");
    step.range = {RangeChoice::Kind::given, "00000000", "0000ffff"};
    CHECK(ranges_of(expand(step)) == std::vector<std::string>{range("00000000", "0000ffff")});
}

TEST_CASE("expand_step: split halves uses Flow's pivot") {
    auto step = read_step();
    step.split.kind = SplitChoice::Kind::halves;
    auto plans = expand(step);
    CHECK(ranges_of(plans) ==
          std::vector<std::string>{range("00000000", "7fffffff"), range("80000000", "ffffffff")});
    REQUIRE(plans.size() == 2);
    CHECK(plans[1].label == "read [range 80000000-ffffffff]");
}

TEST_CASE("expand_step: split into equal parts") {
    auto step = read_step();
    step.split = {SplitChoice::Kind::equal, 4, {}};
    CHECK(ranges_of(expand(step)) ==
          std::vector<std::string>{range("00000000", "3fffffff"), range("40000000", "7fffffff"),
                                   range("80000000", "bfffffff"), range("c0000000", "ffffffff")});
    step.split = {SplitChoice::Kind::equal, 3, {}};
    CHECK(ranges_of(expand(step)) == std::vector<std::string>{range("00000000", "55555554"),
                                                              range("55555555", "aaaaaaa9"),
                                                              range("aaaaaaaa", "ffffffff")});
}

TEST_CASE("expand_step: split at cuts, hex in either case") {
    auto step = read_step();
    step.split = {SplitChoice::Kind::cuts, 0, {0x10000000, 0xA0000000}};
    CHECK(ranges_of(expand(step)) == std::vector<std::string>{range("00000000", "0fffffff"),
                                                              range("10000000", "9fffffff"),
                                                              range("a0000000", "ffffffff")});
}

TEST_CASE("expand_step: one-key ranges at either boundary") {
    auto step = read_step();
    step.split.kind = SplitChoice::Kind::one_key_at_end;
    CHECK(ranges_of(expand(step)) ==
          std::vector<std::string>{range("00000000", "fffffffe"), range("ffffffff", "ffffffff")});
    step.split.kind = SplitChoice::Kind::one_key_at_start;
    CHECK(ranges_of(expand(step)) ==
          std::vector<std::string>{range("00000000", "00000000"), range("00000001", "ffffffff")});
}

TEST_CASE("expand_step: malformed ranges are several broken variants") {
    auto step = read_step();
    step.range.kind = RangeChoice::Kind::malformed;
    auto plans = expand(step);
    REQUIRE(plans.size() == 3);
    CHECK(ranges_of(plans) == std::vector<std::string>{range("0000000", "ffffffff"),
                                                       range("zzzzzzzz", "ffffffff"),
                                                       range("80000000", "7fffffff")});
}

TEST_CASE("expand_step: resuming without checkpoints cannot run and says why") {
    auto step = read_step();
    step.state_from = "first";
    step.state_checkpoint.kind = CheckpointChoice::Kind::last;
    const auto empty = run_with_checkpoints(0);
    for (const auto* base : {&empty, static_cast<const protocol::Observation*>(nullptr)}) {
        std::string why_not;
        CHECK(expand_step(step, base, old_style(2), why_not).empty());
        CHECK(why_not ==
              "step 'child' resumes from step 'first', which emitted 0 STATE "
              "message(s): no checkpoint 'last' to resume from");
    }
    auto two = run_with_checkpoints(2);
    step.state_checkpoint = {CheckpointChoice::Kind::number, 3};
    std::string why_not;
    CHECK(expand_step(step, &two, old_style(2), why_not).empty());
    CHECK(why_not ==
          "step 'child' resumes from step 'first', which emitted 2 STATE "
          "message(s): no checkpoint '3' to resume from");
}

TEST_CASE("expand_step: a step compared with its base is not resumed when every base read failed") {
    auto step = read_step();
    step.state_from = "first";
    step.state_checkpoint.kind = CheckpointChoice::Kind::sample;
    step.compares_with_base = true;
    auto crashed = run_with_checkpoints(3);
    crashed.label = "read";
    crashed.process.exit.code = 1;
    auto hung = run_with_checkpoints(3);
    hung.label = "read [range 2/2]";
    hung.process.exit.signal = 15;
    hung.process.stop_reason = process::StopReason::timeout;
    hung.process.elapsed = std::chrono::milliseconds(5000);
    auto fine = run_with_checkpoints(3);
    fine.process.exit.code = 0;
    auto stopped = run_with_checkpoints(3);  // a tailing read conform stopped on purpose
    stopped.process.exit.signal = 15;
    stopped.process.stop_reason = process::StopReason::requested;

    std::string why_not;
    CHECK(expand_step(step, &crashed, old_style(0), why_not).empty());
    CHECK(why_not ==
          "the read of step 'first' that it resumes from failed ('read': exit code 1); it is "
          "there to be compared with that read, so nothing was resumed");
    why_not.clear();
    CHECK(expand_step(step, &hung, old_style(0), why_not).empty());
    CHECK(why_not.find("stopped at its timeout after 5000 ms") != std::string::npos);

    std::vector<protocol::Observation> mixed{crashed, fine};
    BaseStep both{std::span<const protocol::Observation>(mixed), {}};
    CHECK(expand_step(step, both, old_style(0), why_not).size() == 6);
    CHECK(expand(step, &stopped, old_style(0)).size() == 3);
    step.compares_with_base = false;
    CHECK(expand(step, &crashed, old_style(0)).size() == 3);
}

TEST_CASE("expand_step: resuming runs once per picked checkpoint with its state file") {
    auto base = run_with_checkpoints(3);
    auto step = read_step();
    step.state_from = "first";
    step.state_checkpoint.kind = CheckpointChoice::Kind::sample;
    auto plans = expand(step, &base, old_style(0));
    REQUIRE(plans.size() == 3);
    for (std::size_t i = 0; i < plans.size(); ++i) {
        CAPTURE(i);
        CHECK(plans[i].checkpoint == i);
        CHECK(plans[i].state_text == base.checkpoints[i].state_file);
        CHECK(!plans[i].range_json);
    }
    CHECK(plans[0].label == "read [from checkpoint 1/3]");
    CHECK(plans[2].label == "read [from checkpoint 3/3]");
}

TEST_CASE("expand_step: resuming split ranges is every checkpoint times every range") {
    auto base = run_with_checkpoints(4);
    auto step = read_step();
    step.state_from = "first";
    step.state_checkpoint.kind = CheckpointChoice::Kind::middle;
    step.split.kind = SplitChoice::Kind::halves;
    auto plans = expand(step, &base);
    REQUIRE(plans.size() == 2);
    CHECK(plans[0].checkpoint == 2);
    CHECK(plans[1].checkpoint == 2);
    CHECK(plans[0].state_text == "{\"n\":2}");
    CHECK(plans[0].label == "read [from checkpoint 3/4] [range 00000000-7fffffff]");
    CHECK(ranges_of(plans) ==
          std::vector<std::string>{range("00000000", "7fffffff"), range("80000000", "ffffffff")});
}
