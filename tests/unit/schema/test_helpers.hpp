#pragma once

// Small helpers shared by the schema unit tests.

#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "schema/schema.hpp"

namespace conform::schema::testing {

inline rapidjson::Document parse_json(std::string_view text) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseIterativeFlag>(text.data(), text.size());
    REQUIRE_MESSAGE(!document.HasParseError(), "test JSON does not parse: " << text);
    return document;
}

inline bool is_valid(const Schema& schema, std::string_view instance) {
    return schema.validate(parse_json(instance));
}

inline std::vector<Violation> violations_of(const Schema& schema, std::string_view instance,
                                            std::size_t max_violations = 8) {
    std::vector<Violation> violations;
    schema.validate(parse_json(instance), &violations, max_violations);
    return violations;
}

}  // namespace conform::schema::testing
