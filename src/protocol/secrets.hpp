#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace conform::protocol {

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
