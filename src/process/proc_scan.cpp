#include "process/proc_scan.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <random>
#include <string>

namespace conform::process::detail {

namespace {

// Reads a whole small /proc file; empty when it cannot be read.
std::string read_proc_file(const std::string& path) {
    std::string text;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return text;
    }
    std::array<char, 4096> buffer{};
    while (true) {
        ssize_t count = ::read(fd, buffer.data(), buffer.size());
        if (count > 0) {
            text.append(buffer.data(), static_cast<std::size_t>(count));
        } else if (count < 0 && errno == EINTR) {
            continue;
        } else {
            break;
        }
    }
    ::close(fd);
    return text;
}

template <typename Visit>
void for_each_pid(Visit&& visit) {
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) {
        return;
    }
    while (dirent* entry = ::readdir(proc)) {
        std::string_view name(entry->d_name);
        pid_t pid = 0;
        auto [end, error] = std::from_chars(name.data(), name.data() + name.size(), pid);
        if (error == std::errc{} && end == name.data() + name.size() && pid > 0) {
            visit(pid);
        }
    }
    ::closedir(proc);
}

}  // namespace

std::string new_run_id() {
    static std::atomic<unsigned long> counter{0};
    static const unsigned long salt = std::random_device{}();
    return std::to_string(::getpid()) + "-" + std::to_string(++counter) + "-" +
           std::to_string(salt);
}

namespace {

bool holds_item(std::string_view items, std::string_view wanted) {
    while (!items.empty()) {
        std::size_t end = items.find('\0');
        if (items.substr(0, end) == wanted) {
            return true;
        }
        if (end == std::string_view::npos) {
            break;
        }
        items.remove_prefix(end + 1);
    }
    return false;
}

// Processes other than conform whose /proc/<pid>/<file> (NUL-separated) holds `wanted`.
std::vector<pid_t> find_processes_whose(const char* file, std::string_view wanted) {
    std::vector<pid_t> found;
    pid_t self = ::getpid();
    for_each_pid([&](pid_t pid) {
        if (pid != self &&
            holds_item(read_proc_file("/proc/" + std::to_string(pid) + "/" + file), wanted)) {
            found.push_back(pid);
        }
    });
    return found;
}

}  // namespace

std::vector<pid_t> find_processes_with_environment(std::string_view entry) {
    return find_processes_whose("environ", entry);
}

std::vector<pid_t> find_processes_with_argument(std::string_view argument) {
    return find_processes_whose("cmdline", argument);
}

bool read_process_info(pid_t pid, ProcessInfo& info) {
    std::string stat = read_proc_file("/proc/" + std::to_string(pid) + "/stat");
    // "pid (comm) S ppid ...": comm may hold spaces and parentheses, so parse after the last ')'.
    std::size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 4 >= stat.size()) {
        return false;
    }
    info.pid = pid;
    info.state = stat[close + 2];
    const char* begin = stat.data() + close + 4;
    const char* end = stat.data() + stat.size();
    info.parent = 0;
    std::from_chars(begin, end, info.parent);
    // Fields 4 (ppid) to 22 (starttime): skip 18 spaces from the parent on.
    const char* field = begin;
    for (int skipped = 0; skipped < 18 && field < end; ++field) {
        skipped += *field == ' ' ? 1 : 0;
    }
    info.start_ticks = 0;
    std::from_chars(field, end, info.start_ticks);
    return true;
}

std::vector<ProcessInfo> children_of_self() {
    std::vector<ProcessInfo> children;
    pid_t self = ::getpid();
    for_each_pid([&](pid_t pid) {
        ProcessInfo info;
        if (read_process_info(pid, info) && info.parent == self) {
            children.push_back(info);
        }
    });
    return children;
}

std::vector<ProcessInfo> all_processes() {
    std::vector<ProcessInfo> processes;
    for_each_pid([&](pid_t pid) {
        ProcessInfo info;
        if (read_process_info(pid, info)) {
            processes.push_back(info);
        }
    });
    return processes;
}

bool descends_from_self(pid_t pid) {
    pid_t self = ::getpid();
    // Bounded: a chain longer than any real process tree ends the walk.
    for (int step = 0; step < 4096 && pid > 1; ++step) {
        ProcessInfo info;
        if (pid == self) {
            return step > 0;
        }
        if (!read_process_info(pid, info)) {
            return false;
        }
        pid = info.parent;
    }
    return false;
}

std::string command_line_of(pid_t pid, std::size_t limit) {
    std::string text = read_proc_file("/proc/" + std::to_string(pid) + "/cmdline");
    while (!text.empty() && text.back() == '\0') {
        text.pop_back();
    }
    for (char& c : text) {
        c = c == '\0' ? ' ' : c;
    }
    return text.size() > limit ? text.substr(0, limit) + "..." : text;
}

}  // namespace conform::process::detail
