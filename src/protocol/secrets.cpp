#include "protocol/secrets.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace conform::protocol {

namespace {

constexpr std::size_t k_min_secret_length = 4;
constexpr std::string_view k_mask = "**********";

enum class EscapeStyle { minimal, slash, ascii, ascii_upper };

void append_unicode_escape(std::string& out, unsigned code_unit, bool upper = false) {
    out += upper ? fmt::format("\\u{:04X}", code_unit) : fmt::format("\\u{:04x}", code_unit);
}

// Decodes one UTF-8 sequence at `at` (advancing it); invalid bytes decode as themselves.
char32_t next_code_point(std::string_view text, std::size_t& at) {
    auto byte = static_cast<unsigned char>(text[at]);
    std::size_t length = byte < 0x80           ? 1
                         : (byte >> 5) == 0x6  ? 2
                         : (byte >> 4) == 0xE  ? 3
                         : (byte >> 3) == 0x1E ? 4
                                               : 1;
    if (at + length > text.size()) {
        length = 1;
    }
    char32_t code = length == 1 ? byte : byte & (0x3F >> (length - 1));
    for (std::size_t i = 1; i < length; ++i) {
        code = (code << 6) | (static_cast<unsigned char>(text[at + i]) & 0x3F);
    }
    at += length;
    return code;
}

// `value` as a JSON string body would spell it under `style`: serializers differ on "/" and on
// non-ASCII characters, and a secret must be found whichever one the connector used.
std::string json_escaped(std::string_view value, EscapeStyle style) {
    std::string escaped;
    for (std::size_t at = 0; at < value.size();) {
        std::size_t start = at;
        char32_t code = next_code_point(value, at);
        switch (code) {
            case U'"':
                escaped += "\\\"";
                continue;
            case U'\\':
                escaped += "\\\\";
                continue;
            case U'\n':
                escaped += "\\n";
                continue;
            case U'\t':
                escaped += "\\t";
                continue;
            case U'\r':
                escaped += "\\r";
                continue;
            case U'\b':
                escaped += "\\b";
                continue;
            case U'\f':
                escaped += "\\f";
                continue;
            case U'/':
                escaped += style == EscapeStyle::minimal ? "/" : "\\/";
                continue;
            default:
                break;
        }
        if (code < 0x20) {
            append_unicode_escape(escaped, code);
        } else if (code >= 0x80 && style >= EscapeStyle::ascii) {
            bool upper = style == EscapeStyle::ascii_upper;
            if (code >= 0x10000) {
                char32_t offset = code - 0x10000;
                append_unicode_escape(escaped, 0xD800 + (offset >> 10), upper);
                append_unicode_escape(escaped, 0xDC00 + (offset & 0x3FF), upper);
            } else {
                append_unicode_escape(escaped, code, upper);
            }
        } else {
            escaped.append(value.substr(start, at - start));
        }
    }
    return escaped;
}

bool marked_secret(const rapidjson::Value& schema) {
    auto marker = schema.FindMember("airbyte_secret");
    return marker != schema.MemberEnd() && marker->value.IsBool() && marker->value.GetBool();
}

}  // namespace

std::vector<std::string> collect_secrets(const rapidjson::Value& schema,
                                         const rapidjson::Value& config) {
    std::vector<std::string> secrets;
    // (schema, config) pairs still to visit; an explicit stack instead of recursion, so that a
    // spec nested a million levels deep cannot exhaust the call stack.
    std::vector<std::pair<const rapidjson::Value*, const rapidjson::Value*>> pending{
        {&schema, &config}};
    while (!pending.empty()) {
        auto [node, value] = pending.back();
        pending.pop_back();
        if (!node->IsObject()) {
            continue;
        }
        if (marked_secret(*node)) {
            if (value->IsString()) {
                secrets.emplace_back(value->GetString(), value->GetStringLength());
            } else if (value->IsNumber()) {
                rapidjson::StringBuffer text;
                rapidjson::Writer<rapidjson::StringBuffer> writer(text);
                value->Accept(writer);
                secrets.emplace_back(text.GetString(), text.GetSize());
            }
        }
        for (const char* combinator : {"oneOf", "anyOf", "allOf"}) {
            auto branches = node->FindMember(combinator);
            if (branches != node->MemberEnd() && branches->value.IsArray()) {
                for (const auto& branch : branches->value.GetArray()) {
                    pending.emplace_back(&branch, value);
                }
            }
        }
        auto properties = node->FindMember("properties");
        if (value->IsObject() && properties != node->MemberEnd() && properties->value.IsObject()) {
            for (const auto& property : properties->value.GetObject()) {
                auto member = value->FindMember(property.name);
                if (member != value->MemberEnd()) {
                    pending.emplace_back(&property.value, &member->value);
                }
            }
        }
        auto items = node->FindMember("items");
        if (value->IsArray() && items != node->MemberEnd()) {
            for (const auto& item : value->GetArray()) {
                pending.emplace_back(&items->value, &item);
            }
        }
    }
    return secrets;
}

Secrets::Secrets(std::vector<std::string> values) {
    for (auto& value : values) {
        if (value.size() < k_min_secret_length) {
            continue;
        }
        for (auto style : {EscapeStyle::minimal, EscapeStyle::slash, EscapeStyle::ascii,
                           EscapeStyle::ascii_upper}) {
            m_needles.push_back(json_escaped(value, style));
        }
        m_needles.push_back(std::move(value));
    }
    // Longest first, so a secret that contains another is masked whole.
    std::sort(m_needles.begin(), m_needles.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
    m_needles.erase(std::unique(m_needles.begin(), m_needles.end()), m_needles.end());
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
