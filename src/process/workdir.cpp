#include "process/workdir.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>

#include "process/spawn.hpp"
#include "util/error.hpp"

namespace conform::process {

namespace {

std::filesystem::path temp_root() {
    const char* tmpdir = std::getenv("TMPDIR");
    return tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
}

bool is_plain_file_name(std::string_view name) {
    return !name.empty() && name != "." && name != ".." &&
           name.find('/') == std::string_view::npos && name.find('\0') == std::string_view::npos;
}

[[noreturn]] void throw_write_failure(const std::filesystem::path& path) {
    throw_internal_error("cannot write '" + path.string() + "': " + std::strerror(errno));
}

// Opens `path` for writing with mode 0600, truncating an existing file; never follows a symlink.
detail::UniqueFd open_private_file(const std::filesystem::path& path) {
    constexpr int k_flags = O_WRONLY | O_CLOEXEC | O_NOFOLLOW;
    detail::UniqueFd fd(::open(path.c_str(), k_flags | O_CREAT | O_EXCL, 0600));
    if (!fd && errno == EEXIST) {
        fd = detail::UniqueFd(::open(path.c_str(), k_flags | O_TRUNC));
    }
    // The umask may have removed bits at creation, and an existing file may have had others.
    if (!fd || ::fchmod(fd.get(), 0600) != 0) {
        throw_write_failure(path);
    }
    return fd;
}

void write_all(const detail::UniqueFd& fd, std::string_view content,
               const std::filesystem::path& path) {
    while (!content.empty()) {
        ssize_t written = ::write(fd.get(), content.data(), content.size());
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written <= 0) {
            throw_write_failure(path);
        }
        content.remove_prefix(static_cast<std::size_t>(written));
    }
}

}  // namespace

PrivateDir::PrivateDir() {
    std::string pattern = (temp_root() / "conform-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) {
        throw_internal_error("cannot create a temporary folder from '" + pattern +
                             "': " + std::strerror(errno));
    }
    m_path = pattern;
    // mkdtemp's mode is subject to the umask; the folder must be usable by us and nobody else.
    if (::chmod(m_path.c_str(), 0700) != 0) {
        int error = errno;
        std::error_code ignored;
        std::filesystem::remove(m_path, ignored);
        throw_internal_error("cannot protect temporary folder '" + m_path.string() +
                             "': " + std::strerror(error));
    }
}

PrivateDir::~PrivateDir() {
    try {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    } catch (...) {
        // A destructor must not throw; a leftover folder is the lesser harm.
    }
}

std::filesystem::path PrivateDir::write_file(std::string_view name,
                                             std::string_view content) const {
    if (!is_plain_file_name(name)) {
        throw_internal_error("cannot write '" + std::string(name) + "' in '" + m_path.string() +
                             "': not a plain file name");
    }
    std::filesystem::path path = m_path / name;
    detail::UniqueFd fd = open_private_file(path);
    write_all(fd, content, path);
    if (::close(fd.release()) != 0) {
        throw_write_failure(path);
    }
    return path;
}

}  // namespace conform::process
