#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "process/output.hpp"

namespace {

using conform::process::detail::LineSplitter;
using conform::process::detail::TailBuffer;

struct Collected {
    std::vector<std::string> lines;
    std::vector<bool> truncated;
};

// Feeds `chunks` one after the other and then ends the stream.
Collected split(std::size_t max_line_bytes, const std::vector<std::string>& chunks) {
    LineSplitter splitter(max_line_bytes);
    Collected collected;
    auto deliver = [&](std::string_view line, bool truncated) {
        collected.lines.emplace_back(line);
        collected.truncated.push_back(truncated);
    };
    for (const std::string& chunk : chunks) {
        splitter.feed(chunk, deliver);
    }
    splitter.finish(deliver);
    return collected;
}

}  // namespace

TEST_CASE("LineSplitter joins lines split across chunks") {
    Collected collected = split(100, {"ab", "c\nd", "e\n\nf", "g\n"});
    CHECK(collected.lines == std::vector<std::string>{"abc", "de", "", "fg"});
    CHECK(collected.truncated == std::vector<bool>{false, false, false, false});
}

TEST_CASE("LineSplitter delivers a last line without newline, and nothing after a final newline") {
    CHECK(split(100, {"a\nb"}).lines == std::vector<std::string>{"a", "b"});
    CHECK(split(100, {"a\n"}).lines == std::vector<std::string>{"a"});
    CHECK(split(100, {}).lines.empty());
}

TEST_CASE("LineSplitter cuts long lines and drops their rest up to the newline") {
    Collected collected = split(4, {"1234", "\n12345", "6789\nab\n", "abcdefgh"});
    CHECK(collected.lines == std::vector<std::string>{"1234", "1234", "ab", "abcd"});
    CHECK(collected.truncated == std::vector<bool>{false, true, false, true});
}

TEST_CASE("LineSplitter with a zero limit flags every non-empty line") {
    Collected collected = split(0, {"a\n\nb\n"});
    CHECK(collected.lines == std::vector<std::string>{"", "", ""});
    CHECK(collected.truncated == std::vector<bool>{true, false, true});
}

TEST_CASE("TailBuffer keeps the last bytes") {
    TailBuffer small(10);
    small.append("hello");
    CHECK(small.text() == "hello");
    CHECK_FALSE(small.truncated());
    small.append("world");
    CHECK(small.text() == "helloworld");
    CHECK_FALSE(small.truncated());
    small.append("!");
    CHECK(small.text() == "elloworld!");
    CHECK(small.truncated());

    TailBuffer many(3);
    for (char c = 'a'; c <= 'z'; ++c) {
        many.append(std::string(1, c));
    }
    CHECK(many.text() == "xyz");
    many.append("0123456789");
    CHECK(many.text() == "789");

    TailBuffer none(0);
    none.append("abc");
    CHECK(none.text().empty());
    CHECK(none.truncated());
}
