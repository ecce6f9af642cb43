#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cstddef>
#include <string>
#include <vector>

#include "json/bounded_parse.hpp"
#include "json/write.hpp"

using namespace conform::json;

namespace {

// A record whose data is `depth - 2` arrays deep: the whole line nests `depth` levels.
std::string line_nested(std::size_t depth) {
    std::size_t arrays = depth - 2;
    return R"({"type":"RECORD","record":{"data":)" + std::string(arrays, '[') +
           std::string(arrays, ']') + "}}";
}

// What an in-place parse of `text` gives: its value as JSON, or its error code and offset.
std::string in_place_outcome(const std::string& text, bool validate_utf8) {
    std::string copy = text;
    rapidjson::Document document;
    BoundedParse parse = validate_utf8
                             ? parse_bounded_in_place<rapidjson::kParseIterativeFlag |
                                                      rapidjson::kParseValidateEncodingFlag>(
                                   document, copy.data(), copy.size())
                             : parse_bounded_in_place(document, copy.data(), copy.size());
    return parse.failed()
               ? "error " + std::to_string(parse.code) + " at " + std::to_string(parse.offset)
               : to_json(document);
}

// The same from RapidJSON's own reader, parsing a copy of `text` (not in place).
std::string copying_outcome(const std::string& text, bool validate_utf8) {
    rapidjson::Document document;
    BoundedParse parse =
        validate_utf8
            ? parse_bounded<rapidjson::kParseIterativeFlag | rapidjson::kParseValidateEncodingFlag>(
                  document, text)
            : parse_bounded(document, text);
    return parse.failed()
               ? "error " + std::to_string(parse.code) + " at " + std::to_string(parse.offset)
               : to_json(document);
}

}  // namespace

TEST_CASE("in-place parse: strings read as RapidJSON reads them, wherever a special byte falls") {
    // Each byte that ends a run of plain bytes (quote, backslash escapes, control characters,
    // the text's end), and UTF-8 above ASCII, at every offset of the eight-byte scan, in keys
    // and values, near the start and the end of the text.
    const std::vector<std::string> specials = {"\\\"", "\\\\", "\\n", "\\u00e9",  "\\ud83d\\ude00",
                                               "\x01", "\x1f", "\t",  "\xc3\xa9", "\xff",
                                               " ",    "\x7f", "\\/", "\"",       ""};
    std::size_t compared = 0;
    for (const std::string& special : specials) {
        for (std::size_t before = 0; before <= 17; ++before) {
            for (std::size_t after : {0, 1, 7, 8, 9, 16}) {
                std::string body = std::string(before, 'a') + special + std::string(after, 'b');
                for (const std::string& text :
                     {"{\"" + body + "\":1}", "[\"" + body + "\"]", "\"" + body + "\"",
                      "{\"k\":\"" + body + "\",\"" + body + "\":\"" + body + "\"}", "\"" + body}) {
                    for (bool validate : {false, true}) {
                        CAPTURE(text);
                        CAPTURE(validate);
                        CHECK(in_place_outcome(text, validate) == copying_outcome(text, validate));
                        ++compared;
                    }
                }
            }
        }
    }
    CHECK(compared == specials.size() * 18 * 6 * 5 * 2);
}

TEST_CASE("in-place parse: a NUL inside the text ends it, as it ends RapidJSON's in-place parse") {
    std::string text = std::string("{\"abcdefghijkl") + '\0' + "mnopqrstuvwxyz\":1}";
    CHECK(in_place_outcome(text, false) == copying_outcome(text, false));
    rapidjson::Document document;
    BoundedParse parse = parse_bounded_in_place(document, text.data(), text.size());
    CHECK(parse.failed());
    CHECK(parse.code == rapidjson::kParseErrorStringMissQuotationMark);
    CHECK(parse.offset == 14);
}

TEST_CASE("bounded parse: a line nested exactly to the limit parses as RapidJSON parses it") {
    std::string text = line_nested(k_max_nesting);
    rapidjson::Document bounded;
    BoundedParse parse = parse_bounded(bounded, text);
    CHECK_FALSE(parse.failed());
    CHECK_FALSE(parse.too_deep);
    rapidjson::Document plain;
    plain.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
    CHECK(to_json(bounded) == to_json(plain));
    std::string in_place = text;
    rapidjson::Document insitu;
    CHECK_FALSE(parse_bounded_in_place(insitu, in_place.data(), in_place.size()).failed());
    CHECK(to_json(insitu) == text);
}

TEST_CASE("bounded parse: one level deeper is refused where it goes too deep, saying the limit") {
    std::string text = line_nested(k_max_nesting + 1);
    rapidjson::Document document;
    BoundedParse parse = parse_bounded(document, text);
    CHECK(parse.failed());
    CHECK(parse.too_deep);
    CHECK(document.IsNull());
    std::size_t arrays = k_max_nesting + 1 - 2;
    CHECK(parse.offset == text.find('[') + arrays - 1);  // the bracket one level too deep
    CHECK(reason_of(parse).find("nested more than 10000 levels deep") != std::string::npos);
    std::string in_place = text;
    rapidjson::Document insitu;
    CHECK(parse_bounded_in_place(insitu, in_place.data(), in_place.size()).too_deep);
    CHECK(insitu.IsNull());
}

TEST_CASE("bounded parse: other errors are RapidJSON's, and a failed parse leaves no old value") {
    rapidjson::Document document;
    CHECK_FALSE(parse_bounded(document, R"({"a":[1,2]})").failed());
    BoundedParse parse = parse_bounded(document, R"({"a":)");
    CHECK(parse.failed());
    CHECK_FALSE(parse.too_deep);
    CHECK(parse.code == rapidjson::kParseErrorValueInvalid);
    CHECK(document.IsNull());
    CHECK(reason_of(parse) == "Invalid value.");
    CHECK(parse_bounded(document, "[[[1]]]", 2).too_deep);
    CHECK_FALSE(parse_bounded(document, "[[1],[2],[[3]]]", 3).failed());
}
