// YAML read as JSON text whose values keep their YAML lines (yaml/yaml.*).
#include <doctest/doctest.h>

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "json/parse.hpp"
#include "json/write.hpp"
#include "util/error.hpp"
#include "yaml/yaml.hpp"

using namespace conform;

namespace {

std::string canonical(const std::string& yaml_text) {
    auto document = json::parse_json_text(yaml::to_json_text(yaml_text, "t.yml"), "t.yml");
    return json::to_canonical_json(document);
}

// The message of the input error converting `yaml_text` throws ("" when it throws none).
std::string input_error_of(const std::string& yaml_text) {
    try {
        yaml::to_json_text(yaml_text, "t.yml");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        return error.what();
    }
    return "";
}

// The 1-based line of the first occurrence of `needle` in `text`.
std::size_t line_of(const std::string& text, const std::string& needle) {
    auto at = text.find(needle);
    REQUIRE(at != std::string::npos);
    return static_cast<std::size_t>(std::count(text.begin(), text.begin() + at, '\n')) + 1;
}

}  // namespace

TEST_CASE("plain scalars become numbers, booleans and null; quoted ones stay strings") {
    CHECK(
        canonical("a: 1\nb: -2.5e3\nc: yes\nd: Off\ne: ~\nf:\ng: '1'\nh: \"true\"\ni: 1.0.0\n") ==
        R"({"a":1,"b":-2500,"c":true,"d":false,"e":null,"f":null,"g":"1","h":"true","i":"1.0.0"})");
    CHECK(canonical("- 007\n- 0x1F\n- text with \"quotes\" and \\ slash\n") ==
          R"(["007","0x1F","text with \"quotes\" and \\ slash"])");
}

TEST_CASE("each value starts on its YAML line") {
    auto text = yaml::to_json_text(
        "# comment\nroot:\n  list:\n    - first: 1\n\n      second: two\n  last: [3, 4]\n",
        "t.yml");
    CHECK(line_of(text, "\"root\"") == 2);
    CHECK(line_of(text, "\"list\"") == 3);
    CHECK(line_of(text, "\"first\"") == 4);
    CHECK(line_of(text, "\"second\"") == 6);
    CHECK(line_of(text, "\"last\"") == 7);
}

TEST_CASE("text that is not YAML names the file, line and column") {
    try {
        yaml::to_json_text("a: [1, 2\nb: 3\n", "bad.yml");
        FAIL("no error");
    } catch (const Error& error) {
        CHECK(error.kind() == ErrorKind::input);
        CHECK(std::string(error.what()).find("bad.yml:") == 0);
        CHECK(std::string(error.what()).find("not YAML") != std::string::npos);
    }
    CHECK_THROWS_AS(yaml::to_json_text("a: 1\n---\nb: 2\n", "two.yml"), Error);
}

TEST_CASE("an empty document is null; .yml and .yaml are YAML paths") {
    CHECK(yaml::to_json_text("", "e.yml") == "null");
    CHECK(yaml::is_yaml_path("a/known.YML"));
    CHECK(yaml::is_yaml_path("known.yaml"));
    CHECK_FALSE(yaml::is_yaml_path("known.json"));
}

TEST_CASE("aliases repeat their anchor's value") {
    CHECK(canonical("base: &base {retries: 3, url: x}\nfirst: *base\nsecond: [*base, 1]\n") ==
          R"({"base":{"retries":3,"url":"x"},"first":{"retries":3,"url":"x"},)"
          R"("second":[{"retries":3,"url":"x"},1]})");
}

TEST_CASE("an alias inside the node its anchor names is refused, not followed forever") {
    auto message = input_error_of("a: &loop [1, *loop]\n");
    CHECK(message.find("t.yml:1:4: values nest deeper than 2000 levels once aliases are "
                       "expanded") == 0);
    CHECK(input_error_of("a: &loop {b: *loop}\n").find("t.yml:1:4: values nest deeper") == 0);
}

TEST_CASE("aliases of lists of aliases stop at 16 MiB plus 8 bytes a byte of the file") {
    // Each level repeats the one before 16 times: 64 KiB of text, 16^4 times over, is 4 GiB.
    std::string text = "l0: &l0 \"" + std::string(std::size_t{64} << 10, 'x') + "\"\n";
    for (int level = 1; level <= 4; ++level) {
        text += fmt::format("l{}: &l{} [", level, level);
        for (int i = 0; i < 16; ++i) {
            text += fmt::format("{}*l{}", i == 0 ? "" : ", ", level - 1);
        }
        text += "]\n";
    }
    auto message = input_error_of(text);
    auto limit_mib = ((std::size_t{16} << 20) + 8 * text.size()) >> 20;
    CHECK(message.find(fmt::format("its aliases expand the file past {} MiB of JSON", limit_mib)) !=
          std::string::npos);
    CHECK(message.find("t.yml:1:") == 0);
}

TEST_CASE("YAML nested deeper than the reader goes names the place") {
    auto message = input_error_of("a: " + std::string(5000, '[') + "\n");
    CHECK(message.find("t.yml:") == 0);
    CHECK(message.find("nested too deeply: the YAML reader stops at") != std::string::npos);
}

TEST_CASE("a ',' where a value should start is refused where it is, not read forever") {
    // yaml-cpp 0.7 starts document after document at such a token without consuming it.
    CHECK(input_error_of(",").find("t.yml:1:1: not YAML: a character out of place") == 0);
    CHECK(input_error_of("{a: 1},\n").find("t.yml:1:7: not YAML: a character out of place") == 0);
    CHECK(input_error_of("- x\n,\n").find("t.yml:2:1: not YAML") == 0);
}

TEST_CASE("a second document is refused where it starts") {
    CHECK(input_error_of("a: 1\n---\nb: 2\n").find("t.yml:2:1: a second YAML document") == 0);
    CHECK(canonical("a: 1\n...\n") == R"({"a":1})");
    CHECK(yaml::to_json_text("# a comment only\n", "t.yml") == "null");
}

TEST_CASE("mappings read as PyYAML reads them: merge keys honoured, a repeated key's last value") {
    CHECK(canonical("base: &base {retries: 3, url: x}\n"
                    "job:\n  <<: *base\n  url: y\n") ==
          R"({"base":{"retries":3,"url":"x"},"job":{"retries":3,"url":"y"}})");
    // Of a list of mappings the first wins; the mapping's own keys win over all.
    CHECK(canonical("a: &a {k: a, only_a: 1}\nb: &b {k: b, only_b: 2}\n"
                    "c: {<<: [*a, *b], own: 3}\nd: {<<: [*b, *a], k: d}\n") ==
          R"({"a":{"k":"a","only_a":1},"b":{"k":"b","only_b":2},)"
          R"("c":{"k":"a","only_a":1,"only_b":2,"own":3},"d":{"k":"d","only_a":1,"only_b":2}})");
    // Merges of merges, and a quoted "<<" is an ordinary key.
    CHECK(canonical("a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b, '<<': text}\n") ==
          R"({"a":{"x":1},"b":{"x":1,"y":2},"c":{"<<":"text","x":1,"y":2}})");
    // A mapping's own value does not change the anchor's (yaml-cpp's Node assignment would).
    CHECK(canonical("a: &a {k: 1}\nb: {<<: *a, k: 2}\nc: {<<: *a}\nd: *a\n") ==
          R"({"a":{"k":1},"b":{"k":2},"c":{"k":1},"d":{"k":1}})");
    auto text = yaml::to_json_text("first: 1\nsecond: 2\nfirst: 3\n", "t.yml");
    auto document = json::parse_json_text(text, "t.yml");
    CHECK(document.MemberCount() == 2);
    CHECK(document["first"].GetInt() == 3);
    CHECK(document.MemberBegin()->name.GetString() == std::string("first"));
}

TEST_CASE("a merge key of anything but mappings, or merges that multiply, are refused") {
    CHECK(input_error_of("a: {<<: 1}\n") ==
          "t.yml:1:9: a merge key (<<) takes a mapping or a list of mappings");
    CHECK(input_error_of("a: &a {x: 1}\nb: {<<: [*a, 2]}\n") ==
          "t.yml:2:14: a merge key (<<) takes a mapping or a list of mappings");
    CHECK(input_error_of("a: &a {<<: *a}\n") ==
          "t.yml:1:4: merge keys (<<) nest deeper than 64 levels: is a mapping merged into "
          "itself?");
    CHECK(input_error_of("a: &a {b: {<<: *a}}\n").find("values nest deeper than 2000") !=
          std::string::npos);
    // Ten mappings, each merging the one before ten times: 10^9 entries to read.
    std::string bomb = "m0: &m0 {k: 1}\n";
    for (int i = 1; i < 10; ++i) {
        bomb += fmt::format("m{}: &m{} {{<<: [", i, i);
        for (int j = 0; j < 10; ++j) {
            bomb += fmt::format("{}*m{}", j == 0 ? "" : ", ", i - 1);
        }
        bomb += "]}\n";
    }
    CHECK(input_error_of(bomb).find("t.yml:7:10: its merge keys (<<) make conform read more "
                                    "than") == 0);
}
