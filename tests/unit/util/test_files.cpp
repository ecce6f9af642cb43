#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "util/error.hpp"
#include "util/files.hpp"

using conform::read_text_file;
namespace fs = std::filesystem;

namespace {

std::string read_error(const fs::path& path, std::size_t limit = conform::k_max_input_file_bytes) {
    try {
        read_text_file(path, limit);
    } catch (const conform::Error& error) {
        return error.what();
    }
    return "";
}

struct Folder {
    fs::path path = fs::temp_directory_path() / ("conform-files-" + std::to_string(::getpid()));
    Folder() { fs::create_directories(path); }
    ~Folder() {
        std::error_code ignored;
        fs::remove_all(path, ignored);
    }
};

}  // namespace

TEST_CASE("read_text_file reads a regular file whole") {
    Folder folder;
    std::ofstream(folder.path / "a.json") << "{\"a\": 1}\n";
    CHECK(read_text_file(folder.path / "a.json") == "{\"a\": 1}\n");
    std::ofstream(folder.path / "empty.json").close();
    CHECK(read_text_file(folder.path / "empty.json").empty());
}

TEST_CASE("read_text_file refuses what is not a document, saying what it is") {
    Folder folder;
    CHECK(read_error(folder.path / "missing.json") == "cannot read '" +
                                                          (folder.path / "missing.json").string() +
                                                          "': no such file or not readable");
    CHECK(read_error(folder.path) ==
          "cannot read '" + folder.path.string() + "': it is a folder; give a file");
    CHECK(read_error("/dev/zero") ==
          "cannot read '/dev/zero': it is a character device; give a file");
    std::ofstream(folder.path / "big.json") << std::string(2000, 'x');
    CHECK(read_error(folder.path / "big.json", 1024) ==
          "cannot read '" + (folder.path / "big.json").string() +
              "': it is larger than 1024 bytes, more than an input file may hold");
}

TEST_CASE("read_text_file reads a FIFO to its end, and one without a writer as empty") {
    Folder folder;
    auto fifo = folder.path / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(read_text_file(fifo).empty());  // nobody writes: does not wait
    std::thread writer([&] {
        int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for the reader
        std::string text = "{\"from\": \"a pipe\"}";
        CHECK(::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
        ::close(fd);
    });
    std::string text;
    // The writer may open after the reader looked: retry until it came.
    while (text.empty()) {
        text = read_text_file(fifo);
    }
    writer.join();
    CHECK(text == "{\"from\": \"a pipe\"}");
}

TEST_CASE("read_text_file stops a FIFO that never ends at the limit") {
    ::signal(SIGPIPE, SIG_IGN);  // the writer's last write finds no reader
    Folder folder;
    auto fifo = folder.path / "endless";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    std::thread writer([&] {
        int fd = ::open(fifo.c_str(), O_WRONLY);
        std::string chunk(64 * 1024, 'x');
        while (::write(fd, chunk.data(), chunk.size()) > 0) {
        }
        ::close(fd);
    });
    // The writer waits for a reader, so the first open may find none: retry until it fails.
    std::string message;
    while (message.empty()) {
        message = read_error(fifo, 1024 * 1024);
        if (message.empty()) {
            std::this_thread::yield();
        }
    }
    CHECK(message == "cannot read '" + fifo.string() +
                         "': it is larger than 1 MiB, more than an input file may hold");
    writer.join();  // its write fails once the reader is gone
}
