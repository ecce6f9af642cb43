#include "protocol/record_store.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>

#include "protocol/spill.hpp"

namespace conform::protocol {

namespace {

// One record in the file: the three digests, line, checkpoint, stream, and where its key text
// is in the key file (offset in the low 56 bits, length in the high 8).
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

constexpr std::size_t k_key_length_limit = 255;
constexpr std::size_t k_block_entries = 1024;  // written and read this many at a time

std::string bytes_of(const std::vector<FixedEntry>& entries) {
    std::string bytes(entries.size() * sizeof(FixedEntry), '\0');
    std::memcpy(bytes.data(), entries.data(), bytes.size());
    return bytes;
}

}  // namespace

struct RecordStore::Shared {
    std::mutex mutex;
    std::filesystem::path folder = std::filesystem::temp_directory_path();
    std::shared_ptr<SpillFile> entries;
    std::shared_ptr<SpillFile> keys;
    std::size_t written = 0;            // entries in the file
    std::uint64_t keys_written = 0;     // bytes in the key file
    std::vector<FixedEntry> unwritten;  // entries after them, not yet written
    std::vector<std::string> unwritten_keys;
    std::size_t block_start = 0;  // the block last read from the file
    std::vector<FixedEntry> block;

    std::size_t size() const { return written + unwritten.size(); }

    void write_unwritten() {
        if (unwritten.empty()) {
            return;
        }
        if (!entries) {
            entries = std::make_shared<SpillFile>(folder);
            keys = std::make_shared<SpillFile>(folder);
        }
        std::string block_keys;
        for (std::size_t i = 0; i < unwritten.size(); ++i) {
            const auto& key = unwritten_keys[i];
            unwritten[i].key_place =
                (keys_written + block_keys.size()) | (static_cast<std::uint64_t>(key.size()) << 56);
            block_keys += key;
        }
        keys->append(block_keys);
        keys_written += block_keys.size();
        entries->append(bytes_of(unwritten));
        written += unwritten.size();
        unwritten.clear();
        unwritten_keys.clear();
    }

    void add(const RecordEntry& entry) {
        unwritten.push_back({entry.identity, entry.content, entry.projected, entry.line,
                             entry.checkpoint, entry.stream, 0});
        unwritten_keys.push_back(entry.key.substr(0, k_key_length_limit));
        if (unwritten.size() >= k_block_entries) {
            write_unwritten();
        }
    }

    std::vector<FixedEntry> read_block(std::size_t start) const {
        auto count = std::min(k_block_entries, written - start);
        auto bytes = entries->read(start * sizeof(FixedEntry), count * sizeof(FixedEntry));
        std::vector<FixedEntry> fixed(count);
        std::memcpy(fixed.data(), bytes.data(), bytes.size());
        return fixed;
    }

    static RecordEntry without_key(const FixedEntry& fixed) {
        return {fixed.identity,
                fixed.content,
                fixed.projected,
                fixed.line,
                fixed.checkpoint,
                fixed.stream,
                {}};
    }

    RecordEntry read_fixed(const FixedEntry& fixed, const std::string* key_text) const {
        auto entry = without_key(fixed);
        if (key_text != nullptr) {
            entry.key = *key_text;
            return entry;
        }
        auto length = static_cast<std::size_t>(fixed.key_place >> 56);
        if (length > 0) {
            entry.key = keys->read(fixed.key_place & ((std::uint64_t{1} << 56) - 1), length);
        }
        return entry;
    }

    const FixedEntry& fixed_at(std::size_t index) {
        if (block.empty() || index < block_start || index >= block_start + block.size()) {
            block_start = index - index % k_block_entries;
            block = read_block(block_start);
        }
        return block[index - block_start];
    }

    RecordEntry at(std::size_t index) {
        if (index >= written) {
            auto pending = index - written;
            return read_fixed(unwritten.at(pending), &unwritten_keys.at(pending));
        }
        return read_fixed(fixed_at(index), nullptr);
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
    copy->folder = source.folder;
    for (std::size_t i = 0; i < source.size(); ++i) {
        copy->add(source.at(i));
    }
    m_shared = std::move(copy);
    return *this;
}

void RecordStore::set_folder(const std::filesystem::path& folder) {
    std::lock_guard lock(m_shared->mutex);
    m_shared->folder = folder;
}

void RecordStore::push_back(const RecordEntry& entry) {
    std::lock_guard lock(m_shared->mutex);
    m_shared->add(entry);
}

std::size_t RecordStore::size() const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->size();
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
        std::vector<RecordEntry> batch;
        {
            std::lock_guard lock(m_shared->mutex);
            auto& shared = *m_shared;
            if (index >= shared.size()) {
                return;
            }
            if (index < shared.written) {
                for (const auto& fixed : shared.read_block(index)) {
                    batch.push_back(Shared::without_key(fixed));
                }
            } else {
                for (auto pending = index - shared.written; pending < shared.unwritten.size();
                     ++pending) {
                    batch.push_back(Shared::without_key(shared.unwritten[pending]));
                }
            }
        }
        for (const auto& entry : batch) {
            visit(index++, entry);
        }
    }
}

std::filesystem::path RecordStore::folder() const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->folder;
}

}  // namespace conform::protocol
