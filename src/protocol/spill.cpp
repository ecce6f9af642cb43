#include "protocol/spill.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "util/error.hpp"

namespace conform::protocol {

namespace {

[[noreturn]] void fail(const std::filesystem::path& folder, std::string_view what) {
    throw Error(ErrorKind::internal, fmt::format("cannot {} conform's spill file in '{}': {}", what,
                                                 folder.string(), std::strerror(errno)));
}

}  // namespace

SpillFile::SpillFile(const std::filesystem::path& folder) : m_folder(folder) {
    std::string name = (folder / "conform-spill-XXXXXX").string();
    m_fd = ::mkstemp(name.data());
    if (m_fd < 0) {
        fail(folder, "create");
    }
    ::unlink(name.c_str());
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

std::string SpillFile::read(std::uint64_t offset, std::size_t size) const {
    std::string text(size, '\0');
    std::size_t done = 0;
    while (done < size) {
        auto got =
            ::pread(m_fd, text.data() + done, size - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            fail(m_folder, "read");
        }
        done += static_cast<std::size_t>(got);
    }
    return text;
}

SpilledText::SpilledText(std::string text) : m_text(std::move(text)), m_size(m_text.size()) {}

SpilledText SpilledText::in_file(std::shared_ptr<SpillFile> file, std::uint64_t offset,
                                 std::size_t size) {
    SpilledText spilled;
    if (size == 0) {
        return spilled;
    }
    spilled.m_file = std::move(file);
    spilled.m_offset = offset;
    spilled.m_size = size;
    return spilled;
}

std::string SpilledText::text() const {
    return m_file ? m_file->read(m_offset, m_size) : m_text;
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
