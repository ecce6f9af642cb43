#include "protocol/spill.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <random>

#include <fmt/format.h>

#include "util/error.hpp"

namespace conform::protocol {

namespace {

[[noreturn]] void fail(const std::filesystem::path& folder, std::string_view what) {
    throw Error(ErrorKind::internal, fmt::format("cannot {} conform's spill file in '{}': {}", what,
                                                 folder.string(), std::strerror(errno)));
}

}  // namespace

std::filesystem::path private_spill_folder() {
    std::error_code error;
    auto folder = std::filesystem::temp_directory_path(error);
    return error ? std::filesystem::path("/tmp") : folder;
}

SpillFile::SpillFile(const std::filesystem::path& folder) : m_folder(folder) {
    m_fd = ::open(folder.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (m_fd >= 0) {
        return;
    }
    // A file system without O_TMPFILE: a fresh name, never an existing entry or a symlink.
    static thread_local std::mt19937_64 random{std::random_device{}()};
    for (int attempt = 0; attempt < 100 && m_fd < 0; ++attempt) {
        auto name = (folder / fmt::format("conform-spill-{:016x}", random())).string();
        m_fd = ::open(name.c_str(), O_CREAT | O_EXCL | O_NOFOLLOW | O_RDWR | O_CLOEXEC, 0600);
        if (m_fd >= 0) {
            ::unlink(name.c_str());
        } else if (errno != EEXIST) {
            break;
        }
    }
    if (m_fd < 0) {
        fail(folder, "create");
    }
}

SpillFile::~SpillFile() {
    ::close(m_fd);
}

std::uint64_t SpillFile::append(std::string_view text) {
    auto start = m_size;
    std::size_t done = 0;
    while (done < text.size()) {
        auto written = ::pwrite(m_fd, text.data() + done, text.size() - done,
                                static_cast<off_t>(start + done));
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            fail(m_folder, "write");
        }
        done += static_cast<std::size_t>(written);
    }
    m_size += text.size();
    return start;
}

std::size_t SpillFile::read_some(std::uint64_t offset, char* buffer, std::size_t size) const {
    std::size_t done = 0;
    while (done < size) {
        auto got = ::pread(m_fd, buffer + done, size - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            fail(m_folder, "read");
        }
        if (got == 0) {
            break;
        }
        done += static_cast<std::size_t>(got);
    }
    return done;
}

std::string SpillFile::read(std::uint64_t offset, std::size_t size) const {
    std::string text(size, '\0');
    read_into(offset, text.data(), size);
    return text;
}

void SpillFile::read_into(std::uint64_t offset, char* buffer, std::size_t size) const {
    if (read_some(offset, buffer, size) != size) {
        errno = EIO;
        fail(m_folder, "read");
    }
}

namespace {

constexpr std::size_t k_line_chunk = 64 * 1024;
// Written 1 MiB at a time: in 64 KiB writes a live read of 200k records made ~1,900 pwrite calls.
constexpr std::size_t k_transcript_buffer = 1024 * 1024;

// Splits what `read(offset, buffer, size)` yields into lines for `visit`, cutting long ones.
template <typename Read>
void split_lines(Read read, const LineVisitor& visit, std::size_t max_line) {
    std::array<char, k_line_chunk> chunk{};
    std::string line;
    bool cut = false;
    std::uint64_t number = 0;
    std::uint64_t offset = 0;
    while (true) {
        std::size_t got = read(offset, chunk.data(), chunk.size());
        if (got == 0) {
            break;
        }
        offset += got;
        std::string_view data(chunk.data(), got);
        while (!data.empty()) {
            auto newline = data.find('\n');
            auto piece = data.substr(0, newline);
            if (line.empty() && !cut && newline != std::string_view::npos) {
                data.remove_prefix(newline + 1);
                if (!visit(++number, piece.substr(0, max_line))) {  // whole in the chunk: no copy
                    return;
                }
                continue;
            }
            if (!cut) {
                auto room = max_line - line.size();
                line.append(piece.substr(0, room));
                cut = piece.size() > room;
            }
            if (newline == std::string_view::npos) {
                break;
            }
            data.remove_prefix(newline + 1);
            if (!visit(++number, line)) {
                return;
            }
            line.clear();
            cut = false;
        }
    }
    if (!line.empty() || cut) {
        visit(++number, line);
    }
}

}  // namespace

void TranscriptFile::append_line(std::string_view line) {
    if (line.size() >= k_transcript_buffer) {
        // Written as it is: a copy of a 16 MiB line would cost as much memory again.
        write_pending();
        m_file.append(line);
        m_file.append("\n");
        return;
    }
    m_pending.append(line);
    m_pending.push_back('\n');
    if (m_pending.size() >= k_transcript_buffer) {
        write_pending();
    }
}

void TranscriptFile::write_pending() {
    m_file.append(m_pending);
    m_pending.clear();
}

void TranscriptFile::flush() {
    write_pending();
    // A finished run's transcript stays alive for its report: it keeps no buffer.
    std::string().swap(m_pending);
}

void TranscriptFile::for_each_line(const LineVisitor& visit, std::size_t max_line) const {
    split_lines([this](std::uint64_t offset, char* buffer,
                       std::size_t size) { return m_file.read_some(offset, buffer, size); },
                visit, max_line);
}

void for_each_line_of_file(const std::filesystem::path& path, const LineVisitor& visit,
                           std::size_t max_line) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        return;
    }
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat status {};
    if (::fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
        split_lines(
            [fd](std::uint64_t offset, char* buffer, std::size_t size) -> std::size_t {
                while (true) {
                    auto got = ::pread(fd, buffer, size, static_cast<off_t>(offset));
                    if (got < 0 && errno == EINTR) {
                        continue;
                    }
                    return got < 0 ? 0 : static_cast<std::size_t>(got);
                }
            },
            visit, max_line);
    }
}

SpilledText::SpilledText(std::string text) : m_text(std::move(text)), m_size(m_text.size()) {}

SpilledText SpilledText::in_file(std::shared_ptr<SpillFile> file, std::uint64_t offset,
                                 std::size_t size) {
    SpilledText spilled;
    if (size == 0) {
        return spilled;
    }
    spilled.m_file = std::move(file);
    spilled.m_pieces = {{offset, size}};
    spilled.m_size = size;
    return spilled;
}

SpilledText SpilledText::in_pieces(std::shared_ptr<SpillFile> file,
                                   std::vector<SpillPiece> pieces) {
    SpilledText spilled;
    for (const auto& piece : pieces) {
        spilled.m_size += piece.size;
    }
    if (spilled.m_size == 0) {
        return spilled;
    }
    spilled.m_file = std::move(file);
    spilled.m_pieces = std::move(pieces);
    return spilled;
}

std::string SpilledText::text() const {
    if (!m_file) {
        return m_text;
    }
    std::string text;
    text.reserve(m_size);
    for (const auto& piece : m_pieces) {
        text += m_file->read(piece.offset, piece.size);
    }
    return text;
}

SpilledText::operator std::string_view() const {
    if (!m_file) {
        return m_text;
    }
    if (!m_viewed) {
        m_viewed = std::make_shared<const std::string>(text());
    }
    return *m_viewed;
}

bool operator==(const SpilledText& left, const SpilledText& right) {
    if (left.size() != right.size()) {
        return false;
    }
    std::string read_left = left.m_file ? left.text() : std::string();
    return right == (left.m_file ? std::string_view(read_left) : std::string_view(left.m_text));
}

bool operator==(const SpilledText& left, std::string_view right) {
    if (left.size() != right.size()) {
        return false;
    }
    if (!left.m_file) {
        return std::string_view(left.m_text).compare(right) == 0;
    }
    return std::string_view(left.text()).compare(right) == 0;
}

}  // namespace conform::protocol
