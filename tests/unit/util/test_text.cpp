#include <doctest/doctest.h>

#include "util/text.hpp"

using namespace conform;

TEST_CASE("text::nearest_name") {
    std::vector<std::string> names{"read", "spec", "discover"};
    CHECK(nearest_name("reed", names) == "read");
    CHECK(nearest_name("dicsover", names) == "discover");
    CHECK(nearest_name("completely-else", names).empty());
}

TEST_CASE("text::did_you_mean") {
    CHECK(did_you_mean("--stirct", {"--strict", "--shard"}) == " (did you mean '--strict'?)");
    CHECK(did_you_mean("zzzzzz", {"run", "list"}).empty());
    CHECK(did_you_mean("c", {"a", "b"}).empty());
}

TEST_CASE("text::excerpt") {
    CHECK(excerpt("short", 10) == "short");
    CHECK(excerpt("abcdefghij", 4) == "abcd…");
    SUBCASE("does not split a UTF-8 sequence") {
        CHECK(excerpt("aé", 2) == "a…");
    }
}

TEST_CASE("text::position_of") {
    auto position = position_of("ab\ncd\nef", 4);
    CHECK(position.line == 2);
    CHECK(position.column == 2);
}

TEST_CASE("text::valid_utf8") {
    CHECK(valid_utf8("plain") == "plain");
    CHECK(valid_utf8("caf\xC3\xA9") == "caf\xC3\xA9");
    SUBCASE("invalid bytes become U+FFFD") {
        CHECK(valid_utf8("a\xFF"
                         "b") ==
              "a\xEF\xBF\xBD"
              "b");
        CHECK(valid_utf8("\xC3") == "\xEF\xBF\xBD");
        CHECK(valid_utf8("\xC0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD");
    }
    CHECK(excerpt("\xFFxyz", 10) == "\xEF\xBF\xBDxyz");
}

TEST_CASE("shell_quote: safe words stay, others are single-quoted so a shell reads them back") {
    CHECK(conform::shell_quote("--only") == "--only");
    CHECK(conform::shell_quote("/tmp/a_b.json") == "/tmp/a_b.json");
    CHECK(conform::shell_quote("") == "''");
    CHECK(conform::shell_quote("two words") == "'two words'");
    CHECK(conform::shell_quote("it's") == "'it'\\''s'");
    CHECK(conform::shell_quote("$HOME") == "'$HOME'");
}

TEST_CASE("text::markup_escaped: safe inside HTML and XML elements and quoted attributes") {
    CHECK(conform::markup_escaped("a<b>&\"c\"'d'") == "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
    CHECK(conform::markup_escaped("tab\tline\nret\r") == "tab\tline\nret\r");
    CHECK(conform::markup_escaped("bell\x07 esc\x1b") == "bell? esc?");
    CHECK(conform::markup_escaped("bad \xff byte") == "bad \xef\xbf\xbd byte");
}
