#include "protocol/secrets.hpp"

#include <algorithm>

namespace conform::protocol {

namespace {

constexpr std::size_t k_min_secret_length = 4;
constexpr std::string_view k_mask = "**********";

std::string json_escaped(std::string_view value) {
    std::string escaped;
    for (char c : value) {
        switch (c) {
            case '"':
                escaped += "\\\"";
                break;
            case '\\':
                escaped += "\\\\";
                break;
            case '\n':
                escaped += "\\n";
                break;
            case '\t':
                escaped += "\\t";
                break;
            case '/':
                escaped += c;
                break;
            default:
                escaped += c;
        }
    }
    return escaped;
}

}  // namespace

Secrets::Secrets(std::vector<std::string> values) {
    for (auto& value : values) {
        if (value.size() < k_min_secret_length) {
            continue;
        }
        std::string escaped = json_escaped(value);
        if (escaped != value) {
            m_needles.push_back(std::move(escaped));
        }
        m_needles.push_back(std::move(value));
    }
    // Longest first, so a secret that contains another is masked whole.
    std::sort(m_needles.begin(), m_needles.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
}

bool Secrets::found_in(std::string_view text) const {
    return std::any_of(m_needles.begin(), m_needles.end(), [text](const std::string& needle) {
        return text.find(needle) != std::string_view::npos;
    });
}

std::string Secrets::redact(std::string_view text) const {
    std::string result(text);
    for (const auto& needle : m_needles) {
        for (auto at = result.find(needle); at != std::string::npos;
             at = result.find(needle, at + k_mask.size())) {
            result.replace(at, needle.size(), k_mask);
        }
    }
    return result;
}

}  // namespace conform::protocol
