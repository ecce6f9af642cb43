#include <doctest/doctest.h>

#include "suite/tail.hpp"

using namespace conform;
using namespace conform::suite;
using std::chrono::milliseconds;

namespace {

protocol::RecordEntry record(std::uint64_t id, std::uint64_t line) {
    protocol::RecordEntry entry;
    entry.identity = json::Digest{0, id};
    entry.line = line;
    return entry;
}

void add_state(protocol::Observation& run, std::uint64_t line) {
    protocol::Checkpoint checkpoint;
    checkpoint.line = line;
    run.checkpoints.push_back(checkpoint);
}

protocol::RecordStore store_of(const std::vector<protocol::RecordEntry>& records) {
    protocol::RecordStore store;
    for (const auto& record : records) {
        store.push_back(record);
    }
    return store;
}

bool saw(const TailDriver& driver, std::string_view what) {
    for (const auto& [event, at] : driver.events()) {
        if (event == what) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE(
    "tail driver: injects once the backlog arrived, stops after new data, a STATE and the "
    "observation window") {
    int injected = 0;
    TailDriver::Settings settings;
    settings.observe = milliseconds(100);
    settings.wait_limit = milliseconds(10'000);
    settings.inject = [&injected] { ++injected; };
    TailDriver driver(store_of({record(1, 1), record(2, 2)}), settings);
    protocol::Observation run;

    run.records.push_back(record(1, 1));
    CHECK(driver.on_tick(run, milliseconds(5'000)) == process::Decision::keep_going);
    CHECK(injected == 0);  // however long it takes: the backlog is not complete

    run.records.push_back(record(2, 2));
    CHECK(driver.on_tick(run, milliseconds(6'000)) == process::Decision::keep_going);
    CHECK(injected == 1);

    run.records.push_back(record(3, 3));
    CHECK(driver.on_tick(run, milliseconds(6'050)) == process::Decision::keep_going);
    CHECK_FALSE(saw(driver, "delivered new data and a STATE after it"));  // no STATE yet

    add_state(run, 4);
    CHECK(driver.on_tick(run, milliseconds(9'000)) == process::Decision::keep_going);
    CHECK(saw(driver, "delivered new data and a STATE after it"));
    CHECK(driver.on_tick(run, milliseconds(9'050)) == process::Decision::keep_going);
    CHECK(driver.on_tick(run, milliseconds(9'100)) == process::Decision::stop);
    CHECK(injected == 1);
}

TEST_CASE("tail driver: without an inject command it only observes after the backlog") {
    TailDriver::Settings settings;
    settings.observe = milliseconds(100);
    TailDriver driver(protocol::RecordStore{}, settings);
    protocol::Observation run;
    CHECK(driver.on_tick(run, milliseconds(0)) == process::Decision::keep_going);
    CHECK(driver.on_tick(run, milliseconds(50)) == process::Decision::keep_going);
    CHECK(driver.on_tick(run, milliseconds(100)) == process::Decision::stop);
    CHECK(saw(driver, "caught up with the backlog"));
}

TEST_CASE("tail driver: a connector that never catches up is judged after the wait limit") {
    TailDriver::Settings settings;
    settings.observe = milliseconds(10);
    settings.wait_limit = milliseconds(1'000);
    bool injected = false;
    settings.inject = [&injected] { injected = true; };
    TailDriver driver(store_of({record(1, 1)}), settings);
    protocol::Observation run;
    CHECK(driver.on_tick(run, milliseconds(999)) == process::Decision::keep_going);
    CHECK_FALSE(injected);
    driver.on_tick(run, milliseconds(1'000));
    CHECK(saw(driver, "gave up waiting for the backlog"));
    CHECK(injected);  // the new data is still offered; the checks judge what arrives
}
