#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace conform::protocol {

// The folder of conform's own files: the system's temporary folder, never a folder a connector
// is given (its scratch folder is writable by it and mounted into its container).
std::filesystem::path private_spill_folder();

// An append-only file of texts that conform must be able to read back but need not hold in
// memory. It never has a name a connector could reach: it is made without one (O_TMPFILE) where
// the file system allows, else created O_EXCL|O_NOFOLLOW and unlinked at once. Nothing is left
// behind, even after a crash, and it is only ever read through the descriptor conform wrote.
class SpillFile {
public:
    explicit SpillFile(const std::filesystem::path& folder = private_spill_folder());
    ~SpillFile();
    SpillFile(const SpillFile&) = delete;
    SpillFile& operator=(const SpillFile&) = delete;

    // Where the text starts in the file.
    std::uint64_t append(std::string_view text);
    std::string read(std::uint64_t offset, std::size_t size) const;
    // Exactly `size` bytes from `offset` into `buffer` (an Error when the file holds fewer).
    void read_into(std::uint64_t offset, char* buffer, std::size_t size) const;
    // Up to `size` bytes from `offset` into `buffer`; fewer only at the end of the file.
    std::size_t read_some(std::uint64_t offset, char* buffer, std::size_t size) const;
    std::uint64_t size() const { return m_size; }

private:
    int m_fd = -1;
    std::uint64_t m_size = 0;
    std::filesystem::path m_folder;
};

// Where a part of a text is in a SpillFile.
struct SpillPiece {
    std::uint64_t offset = 0;
    std::uint64_t size = 0;
};

// A text kept in memory or in a SpillFile (a whole STATE can be megabytes), read when used.
class SpilledText {
public:
    SpilledText() = default;
    SpilledText(std::string text);  // NOLINT: kept in memory, as a plain string would be
    SpilledText(const char* text) : SpilledText(std::string(text)) {}  // NOLINT: as above
    // A text already in `file`, at `offset`.
    static SpilledText in_file(std::shared_ptr<SpillFile> file, std::uint64_t offset,
                               std::size_t size);
    // A text made of pieces of `file`, in order (texts that share most of their bytes share
    // their pieces).
    static SpilledText in_pieces(std::shared_ptr<SpillFile> file, std::vector<SpillPiece> pieces);

    std::string text() const;
    operator std::string() const { return text(); }  // NOLINT: reads like the string it was
    // A view must outlive the call, so a spilled text is read into memory and stays there: use
    // text() where the text is needed once.
    operator std::string_view() const;  // NOLINT: as above
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    friend bool operator==(const SpilledText& left, const SpilledText& right);
    friend bool operator==(const SpilledText& left, std::string_view right);
    friend bool operator==(const SpilledText& left, const std::string& right) {
        return left == std::string_view(right);
    }

private:
    std::string m_text;                                   // when not spilled
    mutable std::shared_ptr<const std::string> m_viewed;  // a spilled text read for a view
    std::shared_ptr<SpillFile> m_file;
    std::vector<SpillPiece> m_pieces;  // when spilled
    std::size_t m_size = 0;
};

// Receives the lines of a transcript in order (1-based); returns false to stop reading.
using LineVisitor = std::function<bool(std::uint64_t number, std::string_view line)>;

// A run's stdout as conform kept it, one line per line, in a SpillFile: a connector can neither
// plant a symlink where it is written nor swap it for another file, a FIFO or /dev/zero before
// it is read back.
class TranscriptFile {
public:
    TranscriptFile() = default;
    void append_line(std::string_view line);
    // Writes what append_line buffered and frees the buffer; the lines are readable only after it.
    void flush();
    // Calls visit for every line until it returns false; a line longer than `max_line` is cut.
    void for_each_line(const LineVisitor& visit, std::size_t max_line) const;

private:
    void write_pending();

    SpillFile m_file;
    std::string m_pending;
};

// The same for a transcript file conform did not write (the file `conform validate` checked).
// Only a regular file is read again: a FIFO, pipe or device (its lines were consumed, or it never
// ends) gives no line. Opening it never blocks.
void for_each_line_of_file(const std::filesystem::path& path, const LineVisitor& visit,
                           std::size_t max_line);

}  // namespace conform::protocol
