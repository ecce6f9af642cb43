#include "json/bounded_parse.hpp"

#include <fmt/format.h>
#include <rapidjson/error/en.h>

namespace conform::json {

std::string reason_of(const BoundedParse& parse) {
    if (parse.too_deep) {
        return fmt::format(
            "nested more than {} levels deep (at byte {}): conform does not parse "
            "JSON nested this deep",
            k_max_nesting, parse.offset);
    }
    return rapidjson::GetParseError_En(parse.code);
}

}  // namespace conform::json
