#include <doctest/doctest.h>

#include <string>

#include "protocol/secrets.hpp"

using conform::protocol::Secrets;

TEST_CASE("secrets: every occurrence is found and masked") {
    Secrets secrets({"s3cr3t-token"});
    CHECK(!secrets.empty());
    CHECK(secrets.found_in("Authorization: s3cr3t-token"));
    CHECK(!secrets.found_in("Authorization: s3cr3t-toke"));
    CHECK(secrets.redact("a s3cr3t-token b s3cr3t-tokens3cr3t-token") ==
          "a ********** b ********************");
    CHECK(secrets.redact("nothing here") == "nothing here");
}

TEST_CASE("secrets: the JSON-escaped form of a secret is found and masked") {
    Secrets secrets({"pa\"ss\\wo\nrd"});
    std::string json_line = R"({"message":"pw=pa\"ss\\wo\nrd"})";
    CHECK(secrets.found_in(json_line));
    CHECK(secrets.redact(json_line) == R"({"message":"pw=**********"})");
    CHECK(secrets.found_in("raw pa\"ss\\wo\nrd"));
    CHECK(secrets.redact("raw pa\"ss\\wo\nrd") == "raw **********");
}

TEST_CASE("secrets: values shorter than four bytes are ignored") {
    Secrets secrets({"", "abc", "xy"});
    CHECK(secrets.empty());
    CHECK(!secrets.found_in("abc xy"));
    CHECK(secrets.redact("abc xy") == "abc xy");
    Secrets four({"abcd"});
    CHECK(!four.empty());
    CHECK(four.redact("abcd") == "**********");
    CHECK(Secrets().empty());
    CHECK(!Secrets().found_in("anything"));
}

TEST_CASE("secrets: a secret containing another is masked whole") {
    Secrets secrets({"pass", "password123"});
    CHECK(secrets.redact("x password123 y pass z") == "x ********** y ********** z");
}

TEST_CASE("secrets: a secret made of mask characters does not loop") {
    Secrets secrets({"****"});
    CHECK(secrets.redact("a****b") == "a**********b");
}

TEST_CASE("secrets::found in every JSON spelling") {
    conform::protocol::Secrets secrets({"p\xC3\xA4ss/w\"rd\r"});
    CHECK(secrets.found_in("p\xC3\xA4ss/w\\\"rd\\r"));
    CHECK(secrets.found_in("p\xC3\xA4ss\\/w\\\"rd\\r"));
    CHECK(secrets.found_in("p\\u00e4ss\\/w\\\"rd\\r"));
    CHECK(secrets.found_in("p\\u00E4ss\\/w\\\"rd\\r"));
    CHECK_FALSE(secrets.found_in("p\\u00e4ss/w\\\"rd"));
    conform::protocol::Secrets emoji({"key-\xF0\x9F\x94\x91"});
    CHECK(emoji.found_in("key-\\ud83d\\udd11"));
}
