#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "protocol/observation.hpp"

namespace conform::suite {

// Which checkpoint commits each record of a run (X-STATE-1, per stream): a record is committed by
// the first checkpoint after it that covers its stream: a STATE of that stream, or a legacy or
// GLOBAL state. Interleaved per-stream STATEs commit only their own stream's records.
class CommitModel {
public:
    static constexpr std::size_t k_never = std::numeric_limits<std::size_t>::max();

    explicit CommitModel(const protocol::Observation& run);

    // Index of the first checkpoint at or after `from` covering `stream`; k_never when none.
    std::size_t next_covering(std::uint32_t stream, std::size_t from) const;

    // Index of the checkpoint that commits `record`; k_never when no later STATE covers it.
    std::size_t commit_of(const protocol::RecordEntry& record) const {
        return next_covering(record.stream, record.checkpoint);
    }

private:
    std::vector<std::size_t> m_all_streams;              // checkpoints covering every stream
    std::vector<std::vector<std::size_t>> m_per_stream;  // checkpoints covering one stream
};

}  // namespace conform::suite
