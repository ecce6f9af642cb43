// The JSON Schema Test Suite (draft-07) against conform::schema.
#include <doctest/doctest.h>

#include <iostream>

#include "suite_runner.hpp"

using namespace conform::schema::testing;

namespace {

// Keep in sync with docs/json-schema.md, "Known failures".
const std::vector<KnownFailure> k_known_required_failures = {};

constexpr std::string_view k_idna =
    "IDNA2008 rules (RFC 5891/5892) for xn-- A-labels are not checked; an A-label is validated as "
    "a plain letter-digit-hyphen label";
constexpr std::string_view k_lookbehind =
    "PCRE2 10.42 (Debian 12) supports only fixed-width lookbehind; variable width came in 10.43";

const std::vector<KnownFailure> k_known_format_failures = {
    {"hostname.json",
     "validation of A-label (punycode) host names",
     {"invalid Punycode",
      "contains illegal char U+302E Hangul single dot tone mark",
      "Begins with a Spacing Combining Mark",
      "Begins with a Nonspacing Mark",
      "Begins with an Enclosing Mark",
      "Exceptions that are DISALLOWED, right-to-left chars",
      "Exceptions that are DISALLOWED, left-to-right chars",
      "MIDDLE DOT with no preceding 'l'",
      "MIDDLE DOT with nothing preceding",
      "MIDDLE DOT with no following 'l'",
      "MIDDLE DOT with nothing following",
      "Greek KERAIA not followed by Greek",
      "Greek KERAIA not followed by anything",
      "Hebrew GERESH not preceded by Hebrew",
      "Hebrew GERESH not preceded by anything",
      "Hebrew GERSHAYIM not preceded by Hebrew",
      "Hebrew GERSHAYIM not preceded by anything",
      "KATAKANA MIDDLE DOT with no Hiragana, Katakana, or Han",
      "KATAKANA MIDDLE DOT with no other characters",
      "Arabic-Indic digits mixed with Extended Arabic-Indic digits",
      "ZERO WIDTH JOINER not preceded by Virama",
      "ZERO WIDTH JOINER not preceded by anything",
      "contains \"--\" in the 3rd and 4th position"},
     k_idna},
    {"ecmascript-regex.json",
     "ECMA 262 lookbehind is valid, including variable width",
     {"a variable-width lookbehind (ES2018)"},
     k_lookbehind},
};

constexpr std::string_view k_content =
    "contentEncoding and contentMediaType are annotations in draft-07; conform does not assert "
    "them";
const std::vector<KnownFailure> k_known_other_failures = {
    {"content.json",
     "validation of string-encoded content based on media type",
     {"an invalid JSON document"},
     k_content},
    {"content.json",
     "validation of binary string-encoding",
     {"an invalid base64 string (% is not a valid character)"},
     k_content},
    {"content.json",
     "validation of binary-encoded media type documents",
     {"a validly-encoded invalid JSON document", "an invalid base64 string that is valid JSON"},
     k_content},
    {"cross-draft.json",
     "refs to future drafts are processed as future drafts",
     {"missing bar is invalid"},
     "a $ref into a draft 2019-09 document is evaluated with draft-07 keywords, so its "
     "dependentRequired is ignored"},
};

// The optional files other than formats, for regressions; not required by the brief.
const std::vector<std::string_view> k_other_optional_files = {
    "bignum.json",         "content.json", "cross-draft.json",   "ecmascript-regex.json",
    "float-overflow.json", "id.json",      "non-bmp-regex.json", "unknownKeyword.json"};

// The optional/format files for the formats conform checks.
const std::vector<std::string_view> k_checked_format_files = {"date-time.json",
                                                              "date.json",
                                                              "time.json",
                                                              "email.json",
                                                              "hostname.json",
                                                              "ipv4.json",
                                                              "ipv6.json",
                                                              "uri.json",
                                                              "uri-reference.json",
                                                              "json-pointer.json",
                                                              "relative-json-pointer.json",
                                                              "regex.json",
                                                              "ecmascript-regex.json",
                                                              "unknown.json"};

void report(std::string_view name, const SuiteTally& tally) {
    for (const std::string& failure : tally.failures) {
        std::cout << "FAILED " << failure << "\n";
    }
    for (const std::string& pass : tally.unexpected_passes) {
        std::cout << "PASSED but listed as a known failure: " << pass << "\n";
    }
    std::cout << name << ": " << tally.passed << " passed, " << tally.failures.size() << " failed, "
              << tally.known << " known\n";
    CHECK(tally.failures.empty());
    CHECK(tally.unexpected_passes.empty());
}

}  // namespace

TEST_CASE("schema::draft7 required cases") {
    std::filesystem::path root = suite_root();
    Remotes remotes(root / "remotes");
    SuiteTally tally;
    for (const auto& path : json_files(root / "tests" / "draft7")) {
        run_suite_file(path, k_known_required_failures, remotes, tally);
    }
    CHECK(tally.passed > 0);
    report("draft7 required", tally);
}

TEST_CASE("schema::draft7 optional format cases") {
    std::filesystem::path root = suite_root();
    Remotes remotes(root / "remotes");
    SuiteTally tally;
    for (std::string_view file : k_checked_format_files) {
        run_suite_file(root / "tests" / "draft7" / "optional" / "format" / file,
                       k_known_format_failures, remotes, tally);
    }
    CHECK(tally.passed > 0);
    report("draft7 optional formats", tally);
}

TEST_CASE("schema::draft7 other optional cases") {
    std::filesystem::path root = suite_root();
    Remotes remotes(root / "remotes");
    SuiteTally tally;
    for (std::string_view file : k_other_optional_files) {
        run_suite_file(root / "tests" / "draft7" / "optional" / file, k_known_other_failures,
                       remotes, tally);
    }
    report("draft7 optional other", tally);
}
