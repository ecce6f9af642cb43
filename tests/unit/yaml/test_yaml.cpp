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
