#include <doctest/doctest.h>

#include "suite/commits.hpp"

using namespace conform;
using namespace conform::suite;

namespace {

protocol::RecordEntry record(std::uint32_t stream, std::uint32_t states_before) {
    protocol::RecordEntry entry;
    entry.stream = static_cast<decltype(entry.stream)>(stream);
    entry.checkpoint = states_before;
    return entry;
}

protocol::Checkpoint stream_state(std::uint32_t stream) {
    protocol::Checkpoint checkpoint;
    checkpoint.all_streams = false;
    checkpoint.streams = {stream};
    return checkpoint;
}

}  // namespace

TEST_CASE("commits: a legacy or global state commits every stream's earlier records") {
    protocol::Observation run;
    run.checkpoints = {protocol::Checkpoint{}, protocol::Checkpoint{}};
    CommitModel commits(run);
    CHECK(commits.commit_of(record(0, 0)) == 0);
    CHECK(commits.commit_of(record(3, 1)) == 1);
    CHECK(commits.commit_of(record(0, 2)) == CommitModel::k_never);
}

TEST_CASE("commits: interleaved per-stream states commit only their own stream") {
    // a1 b1 STATE(a) b2 STATE(b) a2 STATE(a)
    protocol::Observation run;
    run.checkpoints = {stream_state(0), stream_state(1), stream_state(0)};
    CommitModel commits(run);
    CHECK(commits.commit_of(record(0, 0)) == 0);  // a1 by STATE(a) #0
    CHECK(commits.commit_of(record(1, 0)) == 1);  // b1 not by STATE(a), by STATE(b) #1
    CHECK(commits.commit_of(record(1, 1)) == 1);  // b2
    CHECK(commits.commit_of(record(0, 2)) == 2);  // a2
    CHECK(commits.next_covering(1, 2) == CommitModel::k_never);
}

TEST_CASE("commits: a STATE for a stream outside the catalog commits nothing") {
    protocol::Observation run;
    protocol::Checkpoint unknown;
    unknown.all_streams = false;
    run.checkpoints = {unknown, protocol::Checkpoint{}};
    CommitModel commits(run);
    CHECK(commits.commit_of(record(0, 0)) == 1);
}
