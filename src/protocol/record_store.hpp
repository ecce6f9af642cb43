#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "json/digest.hpp"
#include "protocol/spilled_array.hpp"

namespace conform::protocol {

// A record as conform remembers it: digests, never the document, so memory stays small.
struct RecordEntry {
    json::Digest identity;   // primary key when the stream has one, else the content digest
    json::Digest content;    // the data without volatile fields
    json::Digest projected;  // the content after conform applied projections (when asked)
    std::uint64_t line = 0;
    std::uint32_t checkpoint = 0;  // how many STATEs came before it
    std::uint32_t stream = 0;
    std::string key;  // primary key as short text, for examples
    // The stream has a primary key but this record lacks a field of it (read.primary_key_present's
    // finding): it has no identity to compare across runs.
    bool key_missing = false;

    // Whether the record has an identity of its own (a key), not its content's.
    bool keyed() const { return identity != content; }
};

// What a record store holds of one catalog stream, counted as records are added, so that a
// check needing no more than this does not read the store again.
struct StreamRecords {
    std::uint64_t records = 0;
    std::uint64_t keyed = 0;      // records with an identity of their own (RecordEntry::keyed)
    std::uint64_t last_line = 0;  // the line of its last record; 0 when none
};

// The records of one run, kept in an unlinked file rather than in memory: a run's records cost
// conform a block of entries however many there are. Checks across runs read them by index or
// scan them in order. A copy is independent: it writes its own file.
class RecordStore {
public:
    RecordStore();
    RecordStore(const RecordStore& other);
    RecordStore& operator=(const RecordStore& other);
    RecordStore(RecordStore&& other) noexcept = default;
    RecordStore& operator=(RecordStore&& other) noexcept = default;
    ~RecordStore() = default;
    // Where the file goes (the run's scratch folder); the system's temporary folder by default.
    void set_folder(const std::filesystem::path& folder);
    std::filesystem::path folder() const;

    void push_back(const RecordEntry& entry);
    // The same for several entries, in order, under one lock.
    void append(const std::vector<RecordEntry>& entries);
    std::size_t size() const;
    bool empty() const { return size() == 0; }
    // Per catalog stream (a record's `stream`, the index): its records so far. Streams after the
    // last one that had a record are not listed.
    std::vector<StreamRecords> per_stream() const;

    RecordEntry operator[](std::size_t index) const;
    // Calls visit(index, record) for every record in order, reading the file a block at a time.
    // The record's key text is left empty: it costs a read of its own (use operator[]).
    void scan(const std::function<void(std::size_t, const RecordEntry&)>& visit) const {
        scan(0, visit);
    }
    void scan(std::size_t from,
              const std::function<void(std::size_t, const RecordEntry&)>& visit) const;

    using const_iterator = IndexIterator<RecordStore, RecordEntry>;
    const_iterator begin() const { return {this, 0}; }
    const_iterator end() const { return {this, size()}; }

private:
    struct Shared;
    std::shared_ptr<Shared> m_shared;
};

}  // namespace conform::protocol
