#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <cstddef>
#include <string>

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

}  // namespace

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
    CHECK_FALSE(parse_bounded_in_place(insitu, in_place.data()).failed());
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
    CHECK(parse_bounded_in_place(insitu, in_place.data()).too_deep);
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
