#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <vector>

#include "protocol/spill.hpp"
#include "protocol/spilled_array.hpp"

namespace conform::protocol {

// The reduced state after one STATE message, and where it stood.
struct Checkpoint {
    std::uint64_t line = 0;
    std::size_t records_before = 0;
    SpilledText state_file;    // what to pass as --state to resume from here
    SpilledText materialized;  // canonical JSON of the whole reduced state
    // The catalog streams whose records this STATE commits: one for a STREAM state, all (empty
    // list, all_streams) for a legacy or GLOBAL state.
    bool all_streams = true;
    std::vector<std::uint32_t> streams;
};

// The checkpoints of one run, kept in unlinked files rather than in memory: a connector may emit
// a STATE after every record, and each carries the whole reduced state twice. Reading one gives
// its texts as spilled texts, read from the file when used. A copy is independent: it writes its
// own files.
class CheckpointStore {
public:
    CheckpointStore();
    CheckpointStore(std::initializer_list<Checkpoint> checkpoints);
    CheckpointStore(const CheckpointStore& other);
    CheckpointStore& operator=(const CheckpointStore& other);
    CheckpointStore(CheckpointStore&& other) noexcept = default;
    CheckpointStore& operator=(CheckpointStore&& other) noexcept = default;
    ~CheckpointStore() = default;
    // Where the files go (the run's scratch folder); the system's temporary folder by default.
    void set_folder(const std::filesystem::path& folder);

    void push_back(const Checkpoint& checkpoint);
    std::size_t size() const;
    bool empty() const { return size() == 0; }
    Checkpoint operator[](std::size_t index) const;
    Checkpoint back() const { return (*this)[size() - 1]; }

    using const_iterator = IndexIterator<CheckpointStore, Checkpoint>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

private:
    struct Shared;
    std::shared_ptr<Shared> m_shared;
};

}  // namespace conform::protocol
