#include "protocol/secrets.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace conform::protocol {

namespace {

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

namespace {

// A JSON string body (or any text) with its escapes decoded, and for every decoded byte the
// offset of the source text it came from (plus one entry for the end).
struct Decoded {
    std::string text;
    std::vector<std::size_t> origin;
};

bool read_hex4(std::string_view text, std::size_t at, unsigned& value) {
    if (at + 4 > text.size()) {
        return false;
    }
    value = 0;
    for (std::size_t i = at; i < at + 4; ++i) {
        char c = text[i];
        unsigned digit = 0;
        if (c >= '0' && c <= '9') {
            digit = static_cast<unsigned>(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            digit = static_cast<unsigned>(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            digit = static_cast<unsigned>(c - 'A' + 10);
        } else {
            return false;
        }
        value = value * 16 + digit;
    }
    return true;
}

void append_utf8(std::string& out, char32_t code) {
    if (code < 0x80) {
        out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (code >> 6)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (code >> 12)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (code >> 18)));
        out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
}

// Decodes every JSON escape in `text`; anything else (including invalid escapes) is kept as is.
Decoded decode_json_escapes(std::string_view text) {
    Decoded decoded;
    decoded.text.reserve(text.size());
    decoded.origin.reserve(text.size() + 1);
    auto emit = [&](std::string_view bytes, std::size_t source) {
        decoded.text.append(bytes);
        decoded.origin.insert(decoded.origin.end(), bytes.size(), source);
    };
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t start = at;
        if (text[at] != '\\' || at + 1 >= text.size()) {
            emit(text.substr(at, 1), start);
            ++at;
            continue;
        }
        char kind = text[at + 1];
        std::string_view simple;
        switch (kind) {
            case '"':
                simple = "\"";
                break;
            case '\\':
                simple = "\\";
                break;
            case '/':
                simple = "/";
                break;
            case 'b':
                simple = "\b";
                break;
            case 'f':
                simple = "\f";
                break;
            case 'n':
                simple = "\n";
                break;
            case 'r':
                simple = "\r";
                break;
            case 't':
                simple = "\t";
                break;
            default:
                break;
        }
        if (!simple.empty()) {
            emit(simple, start);
            at += 2;
            continue;
        }
        unsigned unit = 0;
        if (kind != 'u' || !read_hex4(text, at + 2, unit)) {
            emit(text.substr(at, 1), start);
            ++at;
            continue;
        }
        at += 6;
        char32_t code = unit;
        unsigned low = 0;
        if (unit >= 0xD800 && unit <= 0xDBFF && at + 1 < text.size() && text[at] == '\\' &&
            text[at + 1] == 'u' && read_hex4(text, at + 2, low) && low >= 0xDC00 && low <= 0xDFFF) {
            code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
            at += 6;
        } else if (unit >= 0xD800 && unit <= 0xDFFF) {
            code = 0xFFFD;  // a lone surrogate spells no secret
        }
        std::string bytes;
        append_utf8(bytes, code);
        emit(bytes, start);
    }
    decoded.origin.push_back(text.size());
    return decoded;
}

bool contains_any(std::string_view text, const std::vector<std::string>& needles) {
    return std::any_of(needles.begin(), needles.end(), [text](const std::string& needle) {
        return text.find(needle) != std::string_view::npos;
    });
}

std::vector<std::string> spellings(const std::vector<std::string>& values) {
    std::vector<std::string> needles;
    for (const auto& value : values) {
        for (auto style : {EscapeStyle::minimal, EscapeStyle::slash, EscapeStyle::ascii,
                           EscapeStyle::ascii_upper}) {
            needles.push_back(json_escaped(value, style));
        }
        needles.push_back(value);
    }
    // Longest first, so a secret that contains another is masked whole.
    std::sort(needles.begin(), needles.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
    needles.erase(std::unique(needles.begin(), needles.end()), needles.end());
    return needles;
}

}  // namespace

Secrets::Secrets(std::vector<std::string> values) {
    for (auto& value : values) {
        if (value.size() >= k_min_detected_length) {
            m_detect_values.push_back(value);
        }
        if (value.size() >= k_min_masked_length) {
            // Every byte may be spelled as a 6-character \uXXXX escape.
            m_max_spelling = std::max(m_max_spelling, value.size() * 6);
            m_mask_values.push_back(std::move(value));
        }
    }
    std::sort(m_mask_values.begin(), m_mask_values.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
    m_detect_needles = spellings(m_detect_values);
    m_mask_needles = spellings(m_mask_values);
}

bool Secrets::found_in(std::string_view text) const {
    if (contains_any(text, m_detect_needles)) {
        return true;
    }
    if (m_detect_values.empty() || text.find('\\') == std::string_view::npos) {
        return false;
    }
    return contains_any(decode_json_escapes(text).text, m_detect_values);
}

std::string Secrets::redact(std::string_view text) const {
    std::string result(text);
    for (const auto& needle : m_mask_needles) {
        for (auto at = result.find(needle); at != std::string::npos;
             at = result.find(needle, at + k_mask.size())) {
            result.replace(at, needle.size(), k_mask);
        }
    }
    // Spellings that mix escapes and raw characters: find the secret in the decoded text and
    // mask the source span it came from.
    // Each round masks one escaped spelling, which removes at least one backslash.
    while (!m_mask_values.empty() && result.find('\\') != std::string::npos) {
        Decoded decoded = decode_json_escapes(result);
        bool masked = false;
        for (const auto& value : m_mask_values) {
            for (auto at = decoded.text.find(value); at != std::string::npos && !masked;
                 at = decoded.text.find(value, at + 1)) {
                std::size_t begin = decoded.origin[at];
                std::size_t end = decoded.origin[at + value.size()];
                if (std::string_view(result).substr(begin, end - begin).find('\\') ==
                    std::string_view::npos) {
                    continue;  // a raw spelling: already masked, or made of mask characters
                }
                result.replace(begin, end - begin, k_mask);
                masked = true;
            }
            if (masked) {
                break;
            }
        }
        if (!masked) {
            break;
        }
    }
    return result;
}

void SecretStreamScanner::feed(std::string_view chunk) {
    if (m_found || m_secrets == nullptr || m_secrets->max_spelling_length() == 0) {
        return;
    }
    m_window.append(chunk);
    if (m_secrets->found_in(m_window)) {
        m_found = true;
        m_window.clear();
        return;
    }
    // Keep what could be the start of a secret that the next chunk completes.
    std::size_t keep = m_secrets->max_spelling_length();
    if (m_window.size() > keep) {
        m_window.erase(0, m_window.size() - keep);
    }
}

}  // namespace conform::protocol
