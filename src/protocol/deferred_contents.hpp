#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "json/digest.hpp"

namespace conform::protocol {

struct Observation;

// The contents of keyed records that the analyzer left undigested (AnalyzerSetup::
// defer_keyed_contents): such a record's RecordEntry::content is a placeholder for its line, equal
// to no other record's, until a check that needs it asks. A run's records are digested on demand
// only where their identity repeats (read.no_duplicates), so a run of distinct keys costs no
// digest.
class DeferredContents {
public:
    // Per catalog stream, the digester a record's data is digested with (its volatile fields left
    // out), and the longest line the run's transcript keeps whole; `maybe_repeated`, sorted, holds
    // every identity a keyed record of the run had that an earlier one may have had too
    // (SeenIdentities::maybe_repeated), when the analyzer could remember them.
    DeferredContents(std::vector<json::Digester> digesters, std::size_t max_line,
                     std::optional<std::vector<json::Digest>> maybe_repeated = std::nullopt);

    static json::Digest placeholder(std::uint64_t line);
    static bool is_placeholder(const json::Digest& content);

    // A record whose content is wanted: its line and catalog stream, and its content once read.
    struct Wanted {
        std::uint64_t line = 0;
        std::uint32_t stream = 0;
        json::Digest content;
    };
    // Sorts `wanted` by line and fills each record's content from `run`'s transcript, in one
    // pass over it (the kept transcript, or the file `conform validate` checked). A line that
    // holds no RECORD data of that stream any more (the file changed since) keeps its
    // placeholder: equal to no other.
    void resolve(const Observation& run, std::vector<Wanted>& wanted);

    // Whether another keyed record of the run may have `identity`: false only for an identity
    // the run showed once, whose record read.no_duplicates need not compare.
    bool may_repeat(const json::Digest& identity) const;

private:
    std::vector<json::Digester> m_digesters;
    std::size_t m_max_line;
    std::optional<std::vector<json::Digest>> m_maybe_repeated;
};

// The record identities a run has probably shown before, in a fixed 1 MiB (a Bloom filter of two
// probes): the analyzer digests a keyed record at once when its identity was seen, so that of a
// key that repeats only the first copy is read again. "Not seen" is always right; a wrong "seen"
// only costs a digest. The identities said to be seen are remembered in at most 1 MiB (64 Ki of
// them, made unique whenever they fill it), so that read.no_duplicates compares only their records.
class SeenIdentities {
public:
    // Whether `identity` was probably added before; adds it.
    bool add(const json::Digest& identity);
    // Every identity add() said was seen, sorted and each once (so every identity added twice or
    // more is among them); nullopt when there were too many to remember.
    std::optional<std::vector<json::Digest>> maybe_repeated() const;

private:
    static constexpr std::size_t k_most_remembered = 64 * 1024;

    void remember_seen(const json::Digest& identity);
    static void sort_unique(std::vector<json::Digest>& identities);

    std::vector<std::uint64_t> m_words;
    std::vector<json::Digest> m_seen;  // sorted and made unique whenever it fills
    bool m_seen_overflowed = false;
};

}  // namespace conform::protocol
