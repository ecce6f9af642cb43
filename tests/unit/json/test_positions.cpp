#include <doctest/doctest.h>

#include <string>

#include "json/positions.hpp"

using namespace conform::json;

TEST_CASE("pointer_lines: members and elements map to their lines") {
    auto lines = pointer_lines(R"({
  "a": 1,
  "b": {
    "c": [
      10,
      {"d": true}
    ]
  },
  "e/f": {"g~h": null}
})");
    CHECK(lines.at("") == 1);
    CHECK(lines.at("/a") == 2);
    CHECK(lines.at("/b") == 3);
    CHECK(lines.at("/b/c") == 4);
    CHECK(lines.at("/b/c/0") == 5);
    CHECK(lines.at("/b/c/1") == 6);
    CHECK(lines.at("/b/c/1/d") == 6);
    CHECK(lines.at("/e~1f") == 9);
    CHECK(lines.at("/e~1f/g~0h") == 9);
    CHECK(lines.count("/b/c/2") == 0);
}

TEST_CASE("pointer_lines: comments are allowed and counted as lines") {
    auto lines = pointer_lines("// header\n{\n  /* a\n     b */\n  \"x\": 1 // trailing\n}\n");
    CHECK(lines.at("/x") == 5);
}

TEST_CASE("pointer_lines: elements after nested containers keep their indexes") {
    auto lines = pointer_lines("[\n[1,\n2],\n{\"k\":\n[]},\n\"s\"\n]");
    CHECK(lines.at("/0") == 2);
    CHECK(lines.at("/0/1") == 3);
    CHECK(lines.at("/1") == 4);
    CHECK(lines.at("/1/k") == 4);
    CHECK(lines.at("/2") == 6);
}

TEST_CASE("pointer_lines: an unparsable text does not throw") {
    auto lines = pointer_lines("{\"a\": 1,\n \"b\": ");
    CHECK(line_of(lines, "/zzz") == 1);
    CHECK(line_of(pointer_lines("not json"), "/a") == 1);
}

TEST_CASE("line_of: falls back to the nearest ancestor, then to line 1") {
    auto lines = pointer_lines("{\n  \"a\": {\n    \"b\": 1\n  }\n}");
    CHECK(line_of(lines, "/a/b") == 3);
    CHECK(line_of(lines, "/a/missing") == 2);
    CHECK(line_of(lines, "/a/missing/deeper/0") == 2);
    CHECK(line_of(lines, "/nothing") == 1);
    CHECK(line_of(lines, "") == 1);
    CHECK(line_of({}, "/a") == 1);
}

TEST_CASE("positions::deep nesting stays cheap and falls back to an ancestor") {
    std::string text(20000, '[');
    text += std::string(20000, ']');
    auto lines = conform::json::pointer_lines("{\n\"a\":\n" + text + "}");
    CHECK(lines.size() < 100);
    CHECK(conform::json::line_of(
              lines,
              "/a/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/"
              "0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0") == 3);
}
