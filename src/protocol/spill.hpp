#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace conform::protocol {

// An append-only file of texts that conform must be able to read back but need not hold in
// memory. It is unlinked as soon as it is created, so nothing is left behind, even after a crash.
class SpillFile {
public:
    explicit SpillFile(const std::filesystem::path& folder);
    ~SpillFile();
    SpillFile(const SpillFile&) = delete;
    SpillFile& operator=(const SpillFile&) = delete;

    // Where the text starts in the file.
    std::uint64_t append(std::string_view text);
    std::string read(std::uint64_t offset, std::size_t size) const;

private:
    int m_fd = -1;
    std::uint64_t m_size = 0;
    std::filesystem::path m_folder;
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
    std::uint64_t m_offset = 0;
    std::size_t m_size = 0;
};

}  // namespace conform::protocol
