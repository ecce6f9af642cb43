#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "protocol/batch_pipeline.hpp"

using conform::protocol::BatchPipeline;

TEST_CASE("batch pipeline: slots come back in the order submitted, each prepared once") {
    constexpr std::size_t k_slots = 4;
    constexpr int k_rounds = 5000;
    std::vector<int> value(k_slots, 0);
    std::vector<std::atomic<int>> prepared(k_slots);
    // Which thread prepares a slot depends on the scheduler: either must do.
    BatchPipeline pipeline(k_slots, [&](std::size_t slot, bool) {
        value[slot] *= 2;  // each slot's value is the caller's until it is submitted
        prepared[slot].fetch_add(1);
    });
    std::size_t next = 0;
    int taken = 0;
    auto take = [&] {
        auto oldest = pipeline.take_oldest();
        CHECK(oldest.error == nullptr);
        CHECK(oldest.slot == static_cast<std::size_t>(taken) % k_slots);
        CHECK(value[oldest.slot] == 2 * taken);
        CHECK(prepared[oldest.slot].exchange(0) == 1);
        ++taken;
    };
    for (int round = 0; round < k_rounds; ++round) {
        value[next] = round;
        pipeline.submit(next);
        next = (next + 1) % k_slots;
        if (pipeline.in_flight() == k_slots) {
            take();
        }
    }
    while (pipeline.in_flight() > 0) {
        take();
    }
    CHECK(taken == k_rounds);
}

TEST_CASE("batch pipeline: what preparing a slot threw comes back with that slot") {
    BatchPipeline pipeline(2, [](std::size_t slot, bool) {
        if (slot == 1) {
            throw std::runtime_error("slot 1 broke");
        }
    });
    pipeline.submit(0);
    pipeline.submit(1);
    auto first = pipeline.take_oldest();
    CHECK(first.slot == 0);
    CHECK(first.error == nullptr);
    auto second = pipeline.take_oldest();
    CHECK(second.slot == 1);
    REQUIRE(second.error != nullptr);
    CHECK_THROWS_WITH_AS(std::rethrow_exception(second.error), "slot 1 broke", std::runtime_error);
    CHECK(pipeline.in_flight() == 0);
    pipeline.submit(1);  // a slot taken back can be submitted again
    CHECK(pipeline.take_oldest().slot == 1);
}

TEST_CASE("batch pipeline: without a worker the caller prepares every slot, in order") {
    std::vector<std::size_t> prepared;
    bool on_a_worker = false;
    BatchPipeline pipeline(
        3,
        [&](std::size_t slot, bool worker) {
            prepared.push_back(slot);
            on_a_worker = on_a_worker || worker;
        },
        false);
    for (std::size_t slot = 0; slot < 3; ++slot) {
        pipeline.submit(slot);
    }
    CHECK(prepared.empty());  // nothing runs before the caller takes a slot
    for (std::size_t slot = 0; slot < 3; ++slot) {
        CHECK(pipeline.take_oldest().slot == slot);
    }
    CHECK(prepared == std::vector<std::size_t>{0, 1, 2});
    CHECK_FALSE(on_a_worker);
}
