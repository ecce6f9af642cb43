#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/fwd.h>

namespace conform::protocol {

// The values of `config` at properties the spec's `schema` (its connectionSpecification) marks
// `airbyte_secret`, following nested objects, arrays and oneOf/anyOf/allOf branches. Strings are
// taken as they are, numbers as their JSON text. Iterative: any nesting depth is fine.
std::vector<std::string> collect_secrets(const rapidjson::Value& schema,
                                         const rapidjson::Value& config);

// The secret values of a connector config (properties marked `airbyte_secret`), found in output
// and masked in every report.
class Secrets {
public:
    Secrets() = default;
    // Values shorter than 4 bytes are ignored: they would match everywhere and mean nothing.
    explicit Secrets(std::vector<std::string> values);

    bool empty() const { return m_needles.empty(); }
    // True when `text` contains a secret, raw or JSON-escaped.
    bool found_in(std::string_view text) const;
    // `text` with every secret replaced by "**********".
    std::string redact(std::string_view text) const;

private:
    std::vector<std::string> m_needles;
};

}  // namespace conform::protocol
