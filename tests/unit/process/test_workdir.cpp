#include <doctest/doctest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "process/workdir.hpp"
#include "util/error.hpp"

namespace {

using conform::process::PrivateDir;

unsigned permissions_of(const std::filesystem::path& path) {
    struct stat info {};
    REQUIRE(::stat(path.c_str(), &info) == 0);
    return info.st_mode & 07777;
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Sets TMPDIR for the scope of one test and restores it afterwards.
class TmpdirOverride {
public:
    explicit TmpdirOverride(const std::string& value) {
        if (const char* old = std::getenv("TMPDIR")) {
            m_old = old;
        }
        ::setenv("TMPDIR", value.c_str(), 1);
    }
    ~TmpdirOverride() {
        if (m_old) {
            ::setenv("TMPDIR", m_old->c_str(), 1);
        } else {
            ::unsetenv("TMPDIR");
        }
    }
    TmpdirOverride(const TmpdirOverride&) = delete;
    TmpdirOverride& operator=(const TmpdirOverride&) = delete;

private:
    std::optional<std::string> m_old;
};

}  // namespace

TEST_CASE("PrivateDir is a fresh folder with mode 0700, removed with its content") {
    std::filesystem::path path;
    {
        PrivateDir dir;
        path = dir.path();
        CHECK(std::filesystem::is_directory(path));
        CHECK(permissions_of(path) == 0700);
        CHECK(path.filename().string().starts_with("conform-"));
        dir.write_file("config.json", "{}");
        std::filesystem::create_directory(path / "nested");
        std::ofstream(path / "nested" / "file") << "x";

        PrivateDir other;
        CHECK(other.path() != path);
    }
    CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("PrivateDir is created under TMPDIR") {
    PrivateDir parent;
    TmpdirOverride tmpdir(parent.path().string());
    PrivateDir dir;
    CHECK(dir.path().parent_path() == parent.path());
}

TEST_CASE("PrivateDir reports a TMPDIR it cannot use") {
    TmpdirOverride tmpdir("/nonexistent/conform-tmp");
    CHECK_THROWS_AS(PrivateDir(), conform::Error);
}

TEST_CASE("write_file writes with mode 0600 and replaces an existing file") {
    PrivateDir dir;
    std::filesystem::path path = dir.write_file("secret.json", "{\"password\":\"x\"}");
    CHECK(path == dir.path() / "secret.json");
    CHECK(read_text(path) == "{\"password\":\"x\"}");
    CHECK(permissions_of(path) == 0600);

    std::filesystem::permissions(path, std::filesystem::perms::all);
    dir.write_file("secret.json", "short");
    CHECK(read_text(path) == "short");
    CHECK(permissions_of(path) == 0600);

    CHECK(read_text(dir.write_file("empty", "")).empty());
}

TEST_CASE("write_file accepts only plain file names") {
    PrivateDir dir;
    CHECK_THROWS_AS(dir.write_file("", "x"), conform::Error);
    CHECK_THROWS_AS(dir.write_file("..", "x"), conform::Error);
    CHECK_THROWS_AS(dir.write_file("a/b", "x"), conform::Error);
    CHECK_THROWS_WITH(
        dir.write_file("../escape", "x"),
        ("cannot write '../escape' in '" + dir.path().string() + "': not a plain file name")
            .c_str());
}
