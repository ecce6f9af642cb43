#include <doctest/doctest.h>

#include <atomic>
#include <cstddef>
#include <stdexcept>
#include <thread>
#include <vector>

#include "protocol/batch_pipeline.hpp"

using conform::protocol::BatchPipeline;

TEST_CASE(
    "batch pipeline: slots are judged in the order submitted, by the thread that prepared "
    "them, one at a time") {
    constexpr std::size_t k_slots = 4;
    constexpr int k_rounds = 5000;
    std::vector<int> value(k_slots, 0);
    std::vector<std::atomic<int>> prepared(k_slots);
    std::vector<std::thread::id> preparer(k_slots);
    std::vector<int> judged_values;  // judging is never concurrent: no lock needed
    std::atomic<int> judging{0};
    std::atomic<bool> overlapped{false};
    std::atomic<bool> judged_elsewhere{false};
    BatchPipeline pipeline(
        k_slots,
        [&](std::size_t slot, bool) {
            value[slot] *= 2;  // each slot's value is the caller's until it is submitted
            preparer[slot] = std::this_thread::get_id();
            prepared[slot].fetch_add(1);
        },
        [&](std::size_t slot) {
            if (judging.fetch_add(1) != 0) {
                overlapped = true;
            }
            if (preparer[slot] != std::this_thread::get_id()) {
                judged_elsewhere = true;
            }
            judged_values.push_back(value[slot]);
            judging.fetch_sub(1);
        });
    std::size_t next = 0;
    int taken = 0;
    auto take = [&] {
        auto oldest = pipeline.take_oldest();
        CHECK(oldest.error == nullptr);
        CHECK(oldest.slot == static_cast<std::size_t>(taken) % k_slots);
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
    REQUIRE(judged_values.size() == static_cast<std::size_t>(k_rounds));
    bool in_order = true;
    for (int round = 0; round < k_rounds; ++round) {
        in_order = in_order && judged_values[static_cast<std::size_t>(round)] == 2 * round;
    }
    CHECK(in_order);
    CHECK_FALSE(overlapped.load());
    CHECK_FALSE(judged_elsewhere.load());
}

TEST_CASE(
    "batch pipeline: a slot the caller prepared is judged by the caller, after the worker "
    "judged the one before it") {
    std::atomic<bool> worker_started{false};
    std::atomic<bool> release_worker{false};
    std::vector<std::thread::id> judged_by(2);
    BatchPipeline pipeline(
        2,
        [&](std::size_t slot, bool on_worker) {
            if (slot == 0) {
                REQUIRE(on_worker);
                worker_started = true;
                while (!release_worker) {  // until the caller has prepared slot 1
                    std::this_thread::yield();
                }
            } else {
                REQUIRE_FALSE(on_worker);
                release_worker = true;
            }
        },
        [&](std::size_t slot) { judged_by[slot] = std::this_thread::get_id(); });
    pipeline.submit(0);
    while (!worker_started) {
        std::this_thread::yield();
    }
    pipeline.submit(1);
    CHECK(pipeline.take_oldest().slot == 0);  // the caller prepares slot 1 meanwhile
    CHECK(pipeline.take_oldest().slot == 1);
    CHECK(judged_by[0] != std::this_thread::get_id());
    CHECK(judged_by[1] == std::this_thread::get_id());
}

TEST_CASE(
    "batch pipeline: what preparing or judging a slot threw comes back with that slot, and "
    "nothing after it is judged") {
    for (bool in_judge : {false, true}) {
        CAPTURE(in_judge);
        std::vector<std::size_t> judged;
        auto broken = [](std::size_t slot) {
            if (slot == 1) {
                throw std::runtime_error("slot 1 broke");
            }
        };
        BatchPipeline pipeline(
            3,
            [&](std::size_t slot, bool) {
                if (!in_judge) {
                    broken(slot);
                }
            },
            [&](std::size_t slot) {
                if (in_judge) {
                    broken(slot);
                }
                judged.push_back(slot);
            });
        pipeline.submit(0);
        pipeline.submit(1);
        pipeline.submit(2);
        auto first = pipeline.take_oldest();
        CHECK(first.slot == 0);
        CHECK(first.error == nullptr);
        auto second = pipeline.take_oldest();
        CHECK(second.slot == 1);
        REQUIRE(second.error != nullptr);
        CHECK_THROWS_WITH_AS(std::rethrow_exception(second.error), "slot 1 broke",
                             std::runtime_error);
        auto third = pipeline.take_oldest();
        CHECK(third.slot == 2);
        REQUIRE(third.error != nullptr);
        CHECK_THROWS_WITH_AS(std::rethrow_exception(third.error), "slot 1 broke",
                             std::runtime_error);
        CHECK(judged == std::vector<std::size_t>{0});
        CHECK(pipeline.in_flight() == 0);
    }
}

TEST_CASE("batch pipeline: without a worker the caller prepares and judges every slot, in order") {
    std::vector<std::size_t> prepared;
    std::vector<std::size_t> judged;
    bool on_a_worker = false;
    BatchPipeline pipeline(
        3,
        [&](std::size_t slot, bool worker) {
            prepared.push_back(slot);
            on_a_worker = on_a_worker || worker;
        },
        [&](std::size_t slot) { judged.push_back(slot); }, false);
    for (std::size_t slot = 0; slot < 3; ++slot) {
        pipeline.submit(slot);
    }
    CHECK(prepared.empty());  // nothing runs before the caller takes a slot
    for (std::size_t slot = 0; slot < 3; ++slot) {
        CHECK(pipeline.take_oldest().slot == slot);
    }
    CHECK(prepared == std::vector<std::size_t>{0, 1, 2});
    CHECK(judged == std::vector<std::size_t>{0, 1, 2});
    CHECK_FALSE(on_a_worker);
    pipeline.submit(1);  // a slot taken back can be submitted again
    CHECK(pipeline.take_oldest().slot == 1);
}
