#include "protocol/record_store.hpp"

#include <algorithm>
#include <mutex>

#include "protocol/spill.hpp"

namespace conform::protocol {

namespace {

// One record in the file: the three digests, line, checkpoint, stream (with key_missing in its
// top bit), and where its key text is among the keys (offset in the low 56 bits, length in the
// high 8).
struct FixedEntry {
    json::Digest identity;
    json::Digest content;
    json::Digest projected;
    std::uint64_t line;
    std::uint32_t checkpoint;
    std::uint32_t stream;
    std::uint64_t key_place;
};
static_assert(sizeof(FixedEntry) == 72);

constexpr std::uint32_t k_key_missing_bit = std::uint32_t{1} << 31;
constexpr std::size_t k_key_length_limit = 255;
constexpr std::size_t k_key_buffer = 64 * 1024;  // key bytes written at a time

RecordEntry without_key(const FixedEntry& fixed) {
    return {fixed.identity,
            fixed.content,
            fixed.projected,
            fixed.line,
            fixed.checkpoint,
            fixed.stream & ~k_key_missing_bit,
            {},
            (fixed.stream & k_key_missing_bit) != 0};
}

}  // namespace

struct RecordStore::Shared {
    std::mutex mutex;
    SpilledArray<FixedEntry> entries;
    std::unique_ptr<SpillFile> keys;
    std::uint64_t keys_written = 0;  // bytes in the key file
    std::string pending_keys;        // key bytes after them
    std::vector<StreamRecords> streams;

    void add(const RecordEntry& entry) {
        count(entry);
        auto key = std::string_view(entry.key).substr(0, k_key_length_limit);
        auto place =
            (keys_written + pending_keys.size()) | (static_cast<std::uint64_t>(key.size()) << 56);
        pending_keys += key;
        if (pending_keys.size() >= k_key_buffer) {
            write_pending_keys();
        }
        entries.push_back({entry.identity, entry.content, entry.projected, entry.line,
                           entry.checkpoint,
                           entry.stream | (entry.key_missing ? k_key_missing_bit : 0), place});
    }

    void count(const RecordEntry& entry) {
        if (entry.stream >= streams.size()) {
            streams.resize(std::size_t{entry.stream} + 1);
        }
        auto& stream = streams[entry.stream];
        ++stream.records;
        stream.keyed += entry.keyed() ? 1 : 0;
        stream.last_line = std::max(stream.last_line, entry.line);
    }

    void write_pending_keys() {
        if (!keys) {
            keys = std::make_unique<SpillFile>(entries.folder());
        }
        keys->append(pending_keys);
        keys_written += pending_keys.size();
        pending_keys.clear();
    }

    std::string key_of(const FixedEntry& fixed) const {
        auto length = static_cast<std::size_t>(fixed.key_place >> 56);
        auto offset = fixed.key_place & ((std::uint64_t{1} << 56) - 1);
        if (length == 0) {
            return {};
        }
        if (offset >= keys_written) {
            return pending_keys.substr(offset - keys_written, length);
        }
        return keys->read(offset, length);
    }

    RecordEntry at(std::size_t index) {
        const auto& fixed = entries.at(index);
        auto entry = without_key(fixed);
        entry.key = key_of(fixed);
        return entry;
    }
};

RecordStore::RecordStore() : m_shared(std::make_shared<Shared>()) {}

RecordStore::RecordStore(const RecordStore& other) : RecordStore() {
    *this = other;
}

RecordStore& RecordStore::operator=(const RecordStore& other) {
    if (this == &other) {
        return *this;
    }
    auto copy = std::make_shared<Shared>();
    std::lock_guard lock(other.m_shared->mutex);
    auto& source = *other.m_shared;
    copy->entries.set_folder(source.entries.folder());
    for (std::size_t i = 0; i < source.entries.size(); ++i) {
        copy->add(source.at(i));
    }
    m_shared = std::move(copy);
    return *this;
}

void RecordStore::set_folder(const std::filesystem::path& folder) {
    std::lock_guard lock(m_shared->mutex);
    m_shared->entries.set_folder(folder);
}

std::filesystem::path RecordStore::folder() const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->entries.folder();
}

void RecordStore::push_back(const RecordEntry& entry) {
    std::lock_guard lock(m_shared->mutex);
    m_shared->add(entry);
}

void RecordStore::append(const std::vector<RecordEntry>& entries) {
    std::lock_guard lock(m_shared->mutex);
    for (const auto& entry : entries) {
        m_shared->add(entry);
    }
}

std::size_t RecordStore::size() const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->entries.size();
}

std::vector<StreamRecords> RecordStore::per_stream() const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->streams;
}

RecordEntry RecordStore::operator[](std::size_t index) const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->at(index);
}

void RecordStore::scan(std::size_t from,
                       const std::function<void(std::size_t, const RecordEntry&)>& visit) const {
    // The lock is held only while reading: `visit` may read this store again.
    auto index = from;
    while (true) {
        std::vector<FixedEntry> batch;
        {
            std::lock_guard lock(m_shared->mutex);
            batch = m_shared->entries.items_from(index);
        }
        if (batch.empty()) {
            return;
        }
        for (const auto& fixed : batch) {
            visit(index++, without_key(fixed));
        }
    }
}

}  // namespace conform::protocol
