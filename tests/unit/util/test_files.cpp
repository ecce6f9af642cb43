#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
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

// A FIFO opened for writing at once: `holder` (a reader that never reads) lets the open return
// without waiting, and keeps the pipe, and what was written to it, alive. No retry loop: the
// writer is there before conform opens the FIFO.
struct FedFifo {
    int holder = -1;
    int writer = -1;
    explicit FedFifo(const fs::path& path)
        : holder(::open(path.c_str(), O_RDONLY | O_NONBLOCK)),
          writer(::open(path.c_str(), O_WRONLY)) {}
    FedFifo(const FedFifo&) = delete;
    FedFifo& operator=(const FedFifo&) = delete;
    ~FedFifo() {
        close_writer();
        close_holder();
    }
    void close_writer() {
        if (writer >= 0) {
            ::close(writer);
            writer = -1;
        }
    }
    void close_holder() {
        if (holder >= 0) {
            ::close(holder);
            holder = -1;
        }
    }
    void write(std::string_view text) const {
        CHECK(::write(writer, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    }
};

TEST_CASE("read_text_file reads a FIFO to its end, and one without a writer as empty") {
    Folder folder;
    auto fifo = folder.path / "fifo";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    CHECK(read_text_file(fifo).empty());  // nobody writes: does not wait
    FedFifo fed(fifo);
    REQUIRE(fed.holder >= 0);
    REQUIRE(fed.writer >= 0);
    fed.write("{\"from\": ");
    std::string text;
    // The reader waits for the rest while the writer is open, whenever it comes.
    std::thread reader([&] { text = read_text_file(fifo); });
    fed.write("\"a pipe\"}");
    fed.close_writer();
    reader.join();
    CHECK(text == "{\"from\": \"a pipe\"}");
}

TEST_CASE("read_text_file stops a FIFO that never ends at the limit") {
    ::signal(SIGPIPE, SIG_IGN);  // the writer's last write finds no reader
    Folder folder;
    auto fifo = folder.path / "endless";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    FedFifo fed(fifo);
    REQUIRE(fed.writer >= 0);
    std::thread writer([fd = fed.writer] {
        std::string chunk(64 * 1024, 'x');
        while (::write(fd, chunk.data(), chunk.size()) > 0) {
        }
    });
    std::string message = read_error(fifo, 1024 * 1024);
    CHECK(message == "cannot read '" + fifo.string() +
                         "': it is larger than 1 MiB, more than an input file may hold");
    fed.close_holder();  // no reader is left: the blocked write fails
    writer.join();
}
