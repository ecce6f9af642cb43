#include "protocol/checkpoint_store.hpp"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace conform::protocol {

namespace {

// One checkpoint in the file; its texts and stream list are in the text file. A text of one
// piece is at its offset; a text of several pieces has its list of pieces there instead.
struct FixedCheckpoint {
    std::uint64_t line;
    std::uint64_t records_before;
    std::uint64_t state_file_offset;
    std::uint64_t state_file_size;
    std::uint64_t materialized_offset;
    std::uint64_t materialized_size;
    std::uint64_t streams_offset;  // a single stream (a STREAM state) is kept here instead
    std::uint32_t stream_count;
    std::uint8_t all_streams;
    std::uint8_t state_file_pieces;
    std::uint8_t materialized_pieces;
    std::uint8_t unused;
};
static_assert(sizeof(FixedCheckpoint) == 64);

// A text that shares less with the one before is written whole; so is one that would take more
// pieces (each costs a read when the text is used).
constexpr std::size_t k_min_shared_bytes = 4096;
constexpr std::size_t k_max_pieces = 16;

// The last text of one kind (state file, materialized state) and the pieces that spell it.
struct LastText {
    std::string text;
    std::vector<SpillPiece> pieces;
};

// The pieces that spell bytes [from, to) of a text spelled by `pieces`.
void append_slice(const std::vector<SpillPiece>& pieces, std::uint64_t from, std::uint64_t to,
                  std::vector<SpillPiece>& out) {
    std::uint64_t at = 0;
    for (const auto& piece : pieces) {
        std::uint64_t begin = std::max(from, at);
        std::uint64_t end = std::min(to, at + piece.size);
        if (begin < end) {
            out.push_back({piece.offset + (begin - at), end - begin});
        }
        at += piece.size;
    }
}

constexpr std::size_t k_compare_block = 4096;

// How many bytes `a` and `b` share from their start, at most `limit`: whole blocks by memcmp.
std::size_t common_prefix(const char* a, const char* b, std::size_t limit) {
    std::size_t at = 0;
    while (at + k_compare_block <= limit && std::memcmp(a + at, b + at, k_compare_block) == 0) {
        at += k_compare_block;
    }
    while (at < limit && a[at] == b[at]) {
        ++at;
    }
    return at;
}

// How many bytes the texts ending at `a_end` and `b_end` share before their ends, at most
// `limit`.
std::size_t common_suffix(const char* a_end, const char* b_end, std::size_t limit) {
    std::size_t at = 0;
    while (at + k_compare_block <= limit &&
           std::memcmp(a_end - at - k_compare_block, b_end - at - k_compare_block,
                       k_compare_block) == 0) {
        at += k_compare_block;
    }
    while (at < limit && a_end[-1 - static_cast<std::ptrdiff_t>(at)] ==
                             b_end[-1 - static_cast<std::ptrdiff_t>(at)]) {
        ++at;
    }
    return at;
}

// Adjacent pieces that are adjacent in the file, too, become one.
std::vector<SpillPiece> joined(const std::vector<SpillPiece>& pieces) {
    std::vector<SpillPiece> out;
    for (const auto& piece : pieces) {
        if (!out.empty() && out.back().offset + out.back().size == piece.offset) {
            out.back().size += piece.size;
        } else if (piece.size > 0) {
            out.push_back(piece);
        }
    }
    return out;
}

}  // namespace

struct CheckpointStore::Shared {
    std::mutex mutex;
    SpilledArray<FixedCheckpoint> entries;
    std::shared_ptr<SpillFile> texts;
    LastText last_state_file;
    LastText last_materialized;

    std::uint64_t append_text(std::string_view text) {
        if (!texts) {
            texts = std::make_shared<SpillFile>(entries.folder());
        }
        return texts->append(text);
    }

    // Writes `text` as what changed against the same kind of text of the checkpoint before: a
    // connector that sends one large STATE and then many small ones for another stream writes
    // the large part once, not once per STATE. Returns its pieces.
    std::vector<SpillPiece> store_text(std::string text, LastText& last) {
        std::size_t common = std::min(text.size(), last.text.size());
        std::size_t prefix = common_prefix(text.data(), last.text.data(), common);
        std::size_t suffix = common_suffix(text.data() + text.size(),
                                           last.text.data() + last.text.size(), common - prefix);
        std::vector<SpillPiece> pieces;
        if (prefix + suffix >= k_min_shared_bytes) {
            append_slice(last.pieces, 0, prefix, pieces);
            std::string_view middle(text.data() + prefix, text.size() - prefix - suffix);
            if (!middle.empty()) {
                pieces.push_back({append_text(middle), middle.size()});
            }
            append_slice(last.pieces, last.text.size() - suffix, last.text.size(), pieces);
            pieces = joined(pieces);
        }
        if (prefix + suffix < k_min_shared_bytes || pieces.size() > k_max_pieces) {
            pieces.clear();
            if (!text.empty()) {
                pieces.push_back({append_text(text), text.size()});
            }
        }
        last = {std::move(text), pieces};
        return pieces;
    }

    // The offset, size and piece count FixedCheckpoint keeps for a text of `pieces`.
    std::tuple<std::uint64_t, std::uint64_t, std::uint8_t> place_of(
        const std::vector<SpillPiece>& pieces) {
        std::uint64_t size = 0;
        for (const auto& piece : pieces) {
            size += piece.size;
        }
        if (pieces.size() <= 1) {
            return {pieces.empty() ? 0 : pieces.front().offset, size,
                    static_cast<std::uint8_t>(pieces.size())};
        }
        auto offset = append_text(
            {reinterpret_cast<const char*>(pieces.data()), pieces.size() * sizeof(SpillPiece)});
        return {offset, size, static_cast<std::uint8_t>(pieces.size())};
    }

    SpilledText text_at(std::uint64_t offset, std::uint64_t size, std::uint8_t count) const {
        if (count <= 1) {
            return SpilledText::in_file(texts, offset, size);
        }
        auto bytes = texts->read(offset, count * sizeof(SpillPiece));
        std::vector<SpillPiece> pieces(count);
        std::memcpy(pieces.data(), bytes.data(), bytes.size());
        return SpilledText::in_pieces(texts, std::move(pieces));
    }

    void add(const Checkpoint& checkpoint) {
        FixedCheckpoint fixed{};
        fixed.line = checkpoint.line;
        fixed.records_before = checkpoint.records_before;
        std::tie(fixed.state_file_offset, fixed.state_file_size, fixed.state_file_pieces) =
            place_of(store_text(checkpoint.state_file.text(), last_state_file));
        std::tie(fixed.materialized_offset, fixed.materialized_size, fixed.materialized_pieces) =
            place_of(store_text(checkpoint.materialized.text(), last_materialized));
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
            text_at(fixed.state_file_offset, fixed.state_file_size, fixed.state_file_pieces);
        checkpoint.materialized =
            text_at(fixed.materialized_offset, fixed.materialized_size, fixed.materialized_pieces);
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
