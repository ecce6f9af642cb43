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
    std::vector<RecordEntry> memory;  // every record, once loaded
    bool is_loaded = false;

    std::size_t size() const { return is_loaded ? memory.size() : written + unwritten.size(); }

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
        if (is_loaded) {
            memory.push_back(entry);
            return;
        }
        unwritten.push_back({entry.identity, entry.content, entry.projected, entry.line,
                             entry.checkpoint, entry.stream, 0});
        unwritten_keys.push_back(entry.key.substr(0, k_key_length_limit));
        if (unwritten.size() >= k_block_entries) {
            write_unwritten();
        }
    }

    RecordEntry read_fixed(const FixedEntry& fixed, const std::string* key_text) const {
        RecordEntry entry{fixed.identity,
                          fixed.content,
                          fixed.projected,
                          fixed.line,
                          fixed.checkpoint,
                          fixed.stream,
                          {}};
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
            auto count = std::min(k_block_entries, written - block_start);
            auto bytes =
                entries->read(block_start * sizeof(FixedEntry), count * sizeof(FixedEntry));
            block.resize(count);
            std::memcpy(block.data(), bytes.data(), bytes.size());
        }
        return block[index - block_start];
    }

    RecordEntry at(std::size_t index) {
        if (is_loaded) {
            return memory.at(index);
        }
        if (index >= written) {
            auto pending = index - written;
            return read_fixed(unwritten.at(pending), &unwritten_keys.at(pending));
        }
        return read_fixed(fixed_at(index), nullptr);
    }

    void load_all() {
        if (is_loaded) {
            return;
        }
        std::vector<RecordEntry> all;
        all.reserve(size());
        for (std::size_t i = 0; i < size(); ++i) {
            all.push_back(at(i));
        }
        memory = std::move(all);
        is_loaded = true;
        block.clear();
        block.shrink_to_fit();
        unwritten.clear();
        unwritten_keys.clear();
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
    copy->is_loaded = source.is_loaded;
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

RecordEntry& RecordStore::operator[](std::size_t index) {
    std::lock_guard lock(m_shared->mutex);
    m_shared->load_all();
    return m_shared->memory.at(index);
}

const std::vector<RecordEntry>& RecordStore::load() const {
    std::lock_guard lock(m_shared->mutex);
    m_shared->load_all();
    return m_shared->memory;
}

bool RecordStore::loaded() const {
    std::lock_guard lock(m_shared->mutex);
    return m_shared->is_loaded;
}

}  // namespace conform::protocol
