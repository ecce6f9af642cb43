#include "protocol/checkpoint_store.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

namespace conform::protocol {

namespace {

// One checkpoint in the file; its texts and stream list are in the text file.
struct FixedCheckpoint {
    std::uint64_t line;
    std::uint64_t records_before;
    std::uint64_t state_file_offset;
    std::uint64_t state_file_size;
    std::uint64_t materialized_offset;
    std::uint64_t materialized_size;
    std::uint64_t streams_offset;  // a single stream (a STREAM state) is kept here instead
    std::uint32_t stream_count;
    std::uint32_t all_streams;
};
static_assert(sizeof(FixedCheckpoint) == 64);

}  // namespace

struct CheckpointStore::Shared {
    std::mutex mutex;
    SpilledArray<FixedCheckpoint> entries;
    std::shared_ptr<SpillFile> texts;

    std::uint64_t append_text(std::string_view text) {
        if (!texts) {
            texts = std::make_shared<SpillFile>(entries.folder());
        }
        return texts->append(text);
    }

    void add(const Checkpoint& checkpoint) {
        auto state_file = checkpoint.state_file.text();
        auto materialized = checkpoint.materialized.text();
        FixedCheckpoint fixed{};
        fixed.line = checkpoint.line;
        fixed.records_before = checkpoint.records_before;
        fixed.state_file_offset = append_text(state_file);
        fixed.state_file_size = state_file.size();
        fixed.materialized_offset = append_text(materialized);
        fixed.materialized_size = materialized.size();
        fixed.streams_offset =
            checkpoint.streams.size() == 1
                ? checkpoint.streams.front()
                : append_text({reinterpret_cast<const char*>(checkpoint.streams.data()),
                               checkpoint.streams.size() * sizeof(std::uint32_t)});
        fixed.stream_count = static_cast<std::uint32_t>(checkpoint.streams.size());
        fixed.all_streams = checkpoint.all_streams ? 1 : 0;
        entries.push_back(fixed);
    }

    Checkpoint at(std::size_t index) {
        const auto fixed = entries.at(index);
        Checkpoint checkpoint;
        checkpoint.line = fixed.line;
        checkpoint.records_before = fixed.records_before;
        checkpoint.state_file =
            SpilledText::in_file(texts, fixed.state_file_offset, fixed.state_file_size);
        checkpoint.materialized =
            SpilledText::in_file(texts, fixed.materialized_offset, fixed.materialized_size);
        checkpoint.all_streams = fixed.all_streams != 0;
        if (fixed.stream_count == 1) {
            checkpoint.streams = {static_cast<std::uint32_t>(fixed.streams_offset)};
        } else if (fixed.stream_count > 1) {
            auto bytes =
                texts->read(fixed.streams_offset, fixed.stream_count * sizeof(std::uint32_t));
            checkpoint.streams.resize(fixed.stream_count);
            std::memcpy(checkpoint.streams.data(), bytes.data(), bytes.size());
        }
        return checkpoint;
    }
};

CheckpointStore::CheckpointStore() : m_shared(std::make_shared<Shared>()) {}

CheckpointStore::CheckpointStore(std::initializer_list<Checkpoint> checkpoints)
    : CheckpointStore() {
    for (const auto& checkpoint : checkpoints) {
        m_shared->add(checkpoint);
    }
}

CheckpointStore::CheckpointStore(const CheckpointStore& other) : CheckpointStore() {
    *this = other;
}

CheckpointStore& CheckpointStore::operator=(const CheckpointStore& other) {
    if (this == &other) {
        return *this;
    }
    auto copy = std::make_shared<Shared>();
    std::lock_guard lock(other.m_shared->mutex);
    copy->entries.set_folder(other.m_shared->entries.folder());
    for (std::size_t i = 0; i < other.m_shared->entries.size(); ++i) {
        copy->add(other.m_shared->at(i));
    }
    m_shared = std::move(copy);
    return *this;
}

void CheckpointStore::set_folder(const std::filesystem::path& folder) {
    std::lock_guard lock(m_shared->mutex);
    m_shared->entries.set_folder(folder);
}

void CheckpointStore::push_back(const Checkpoint& checkpoint) {
    std::lock_guard lock(m_shared->mutex);
    m_shared->add(checkpoint);
}

std::size_t CheckpointStore::size() const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->entries.size();
}

Checkpoint CheckpointStore::operator[](std::size_t index) const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->at(index);
}

}  // namespace conform::protocol
