#include "util/files.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "util/error.hpp"

namespace conform {

namespace {

class Descriptor {
public:
    explicit Descriptor(int fd) : m_fd(fd) {}
    ~Descriptor() {
        if (m_fd >= 0) {
            ::close(m_fd);
        }
    }
    Descriptor(const Descriptor&) = delete;
    Descriptor& operator=(const Descriptor&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

std::string kind_of(mode_t mode) {
    if (S_ISCHR(mode)) {
        return "a character device";
    }
    if (S_ISBLK(mode)) {
        return "a block device";
    }
    if (S_ISSOCK(mode)) {
        return "a socket";
    }
    return "not a regular file";
}

// Waits until a pipe has data or its writers are gone. A FIFO opened while nobody writes reads
// as ended (read() returns 0), so this never waits for a writer that does not exist.
void wait_readable(int fd) {
    pollfd watched{fd, POLLIN, 0};
    while (::poll(&watched, 1, -1) < 0 && errno == EINTR) {
    }
}

}  // namespace

std::string read_text_file(const std::filesystem::path& path, std::size_t limit) {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    Descriptor file(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
    if (file.get() < 0) {
        throw_input_error(
            fmt::format("cannot read '{}': no such file or not readable", path.string()));
    }
    struct stat status {};
    if (::fstat(file.get(), &status) != 0) {
        throw_input_error(fmt::format("cannot read '{}': {}", path.string(), std::strerror(errno)));
    }
    if (S_ISDIR(status.st_mode)) {
        throw_input_error(
            fmt::format("cannot read '{}': it is a folder; give a file", path.string()));
    }
    bool pipe = S_ISFIFO(status.st_mode);
    if (!S_ISREG(status.st_mode) && !pipe) {
        throw_input_error(fmt::format("cannot read '{}': it is {}; give a file", path.string(),
                                      kind_of(status.st_mode)));
    }
    auto too_large = [&] {
        constexpr std::size_t k_mib = 1024 * 1024;
        throw_input_error(
            fmt::format("cannot read '{}': it is larger than {}, more than an input file may hold",
                        path.string(),
                        limit % k_mib == 0 ? fmt::format("{} MiB", limit / k_mib)
                                           : fmt::format("{} bytes", limit)));
    };
    if (!pipe && static_cast<std::uintmax_t>(status.st_size) > limit) {
        too_large();
    }
    std::string content;
    if (!pipe) {
        content.reserve(static_cast<std::size_t>(status.st_size));
    }
    char buffer[64 * 1024];
    while (true) {
        ssize_t count = ::read(file.get(), buffer, sizeof buffer);
        if (count > 0) {
            if (content.size() + static_cast<std::size_t>(count) > limit) {
                too_large();
            }
            content.append(buffer, static_cast<std::size_t>(count));
        } else if (count == 0) {
            return content;
        } else if (errno == EINTR) {
            continue;
        } else if (errno == EAGAIN && pipe) {
            wait_readable(file.get());
        } else {
            throw_input_error(
                fmt::format("cannot read '{}': {}", path.string(), std::strerror(errno)));
        }
    }
}

std::filesystem::path resolve_under(const std::filesystem::path& base, const std::string& path) {
    std::filesystem::path given(path);
    return given.is_absolute() ? given : (base / given).lexically_normal();
}

}  // namespace conform
