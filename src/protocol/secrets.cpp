#include "protocol/secrets.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "json/member.hpp"
#include "json/pointer.hpp"
#include "schema/regex.hpp"
#include "schema/uri.hpp"
#include "util/ascii.hpp"
#include "util/error.hpp"

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

// The schema a local `$ref` ("#", "#/definitions/x") names in `root`; null for anything else.
const rapidjson::Value* resolve_ref(const rapidjson::Value& root, const rapidjson::Value& ref) {
    if (!ref.IsString()) {
        return nullptr;
    }
    std::string_view target(ref.GetString(), ref.GetStringLength());
    if (!target.starts_with('#')) {
        return nullptr;
    }
    try {
        // A fragment is a URI: %25 and friends decode to what the pointer names.
        return json::find_value(root, schema::percent_decode(target.substr(1)));
    } catch (const Error&) {
        return nullptr;
    }
}

// Whether `name` matches the patternProperties key `pattern`; a pattern conform cannot run
// counts as matching, so that a secret is masked rather than missed.
bool pattern_matches(std::string_view pattern, std::string_view name) {
    try {
        return schema::Regex(pattern, false).search(name) != schema::MatchResult::no_match;
    } catch (const schema::RegexError&) {
        return true;
    }
}

}  // namespace

std::vector<std::string> config_strings(const rapidjson::Value& config) {
    std::vector<std::string> strings;
    std::vector<const rapidjson::Value*> pending{&config};
    while (!pending.empty()) {
        const auto* value = pending.back();
        pending.pop_back();
        if (value->IsString()) {
            strings.emplace_back(value->GetString(), value->GetStringLength());
        } else if (value->IsObject()) {
            for (const auto& entry : value->GetObject()) {
                pending.push_back(&entry.value);
            }
        } else if (value->IsArray()) {
            for (const auto& item : value->GetArray()) {
                pending.push_back(&item);
            }
        }
    }
    return strings;
}

std::vector<std::string> collect_secrets(const rapidjson::Value& schema,
                                         const rapidjson::Value& config) {
    std::vector<std::string> secrets;
    using Pair = std::pair<const rapidjson::Value*, const rapidjson::Value*>;
    // (schema, config) pairs still to visit; an explicit stack instead of recursion, so that a
    // spec nested a million levels deep cannot exhaust the call stack.
    std::vector<Pair> pending{{&schema, &config}};
    // Pairs reached through a `$ref`: a reference cycle visits each pair once.
    std::set<Pair> referenced;
    auto visit = [&pending](const rapidjson::Value* node, const rapidjson::Value* value) {
        pending.emplace_back(node, value);
    };
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
        if (const auto* ref = json::member(*node, "$ref")) {
            const auto* target = resolve_ref(schema, *ref);
            if (target != nullptr && referenced.emplace(target, value).second) {
                visit(target, value);
            }
        }
        for (const char* combinator : {"oneOf", "anyOf", "allOf"}) {
            const auto* branches = json::member(*node, combinator);
            if (branches != nullptr && branches->IsArray()) {
                for (const auto& branch : branches->GetArray()) {
                    visit(&branch, value);
                }
            }
        }
        // Every branch a value may take: conform masks what any of them marks.
        for (const char* branch : {"if", "then", "else"}) {
            if (const auto* subschema = json::member(*node, branch)) {
                visit(subschema, value);
            }
        }
        if (value->IsObject()) {
            const auto* properties = json::member(*node, "properties");
            const auto* patterns = json::member(*node, "patternProperties");
            const auto* additional = json::member(*node, "additionalProperties");
            const auto* dependencies = json::member(*node, "dependencies");
            for (const auto& entry : value->GetObject()) {
                std::string_view name(entry.name.GetString(), entry.name.GetStringLength());
                bool named = false;
                if (properties != nullptr && properties->IsObject()) {
                    auto property = properties->FindMember(entry.name);
                    if (property != properties->MemberEnd()) {
                        named = true;
                        visit(&property->value, &entry.value);
                    }
                }
                if (patterns != nullptr && patterns->IsObject()) {
                    for (const auto& pattern : patterns->GetObject()) {
                        if (pattern_matches(
                                {pattern.name.GetString(), pattern.name.GetStringLength()}, name)) {
                            named = true;
                            visit(&pattern.value, &entry.value);
                        }
                    }
                }
                if (!named && additional != nullptr) {
                    visit(additional, &entry.value);
                }
                if (dependencies != nullptr && dependencies->IsObject()) {
                    auto dependent = dependencies->FindMember(entry.name);
                    if (dependent != dependencies->MemberEnd()) {
                        visit(&dependent->value, value);
                    }
                }
            }
        }
        const auto* items = json::member(*node, "items");
        if (value->IsArray() && items != nullptr) {
            const auto* additional = json::member(*node, "additionalItems");
            rapidjson::SizeType index = 0;
            for (const auto& item : value->GetArray()) {
                if (!items->IsArray()) {
                    visit(items, &item);
                } else if (index < items->Size()) {
                    visit(&(*items)[index], &item);
                } else if (additional != nullptr) {
                    visit(additional, &item);
                }
                ++index;
            }
        }
    }
    return secrets;
}

namespace {

// One byte of a text after some rounds of JSON unescaping, and the bytes of the original text
// it came from: an escape decodes to bytes that all span the whole escape.
struct Unit {
    char byte = 0;
    std::size_t begin = 0;
    std::size_t end = 0;
};

// Where units come from: the text itself, or a decoder over another source.
class UnitSource {
public:
    virtual ~UnitSource() = default;
    virtual bool next(Unit& unit) = 0;
};

class TextUnits : public UnitSource {
public:
    explicit TextUnits(std::string_view text) : m_text(text) {}
    bool next(Unit& unit) override {
        if (m_at >= m_text.size()) {
            return false;
        }
        unit = {m_text[m_at], m_at, m_at + 1};
        ++m_at;
        return true;
    }

private:
    std::string_view m_text;
    std::size_t m_at = 0;
};

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

// Decodes every JSON escape of its source one unit at a time, with a lookahead of one
// surrogate pair (12 units); anything else, invalid escapes included, passes as it is. Memory
// and time are linear in nothing but the text: no copy of it is made.
class JsonUnescaper : public UnitSource {
public:
    explicit JsonUnescaper(UnitSource& source) : m_source(source) {}

    bool next(Unit& unit) override {
        if (m_out_at < m_out.size()) {
            unit = m_out[m_out_at++];
            m_saw_backslash = m_saw_backslash || unit.byte == '\\';
            return true;
        }
        m_out.clear();
        m_out_at = 0;
        if (!fill(1)) {
            return false;
        }
        decode_one();
        return next(unit);
    }

    // Whether a backslash came out: the text may hold one more level of encoding.
    bool saw_backslash() const { return m_saw_backslash; }

private:
    bool fill(std::size_t count) {
        Unit unit;
        while (m_ahead.size() < count && m_source.next(unit)) {
            m_ahead.push_back(unit);
        }
        return m_ahead.size() >= count;
    }

    void take(std::size_t count) {
        m_ahead.erase(m_ahead.begin(), m_ahead.begin() + static_cast<std::ptrdiff_t>(count));
    }

    // The code unit of `\uXXXX` at `at` in the lookahead, or -1.
    long hex4_at(std::size_t at) {
        if (!fill(at + 6) || m_ahead[at].byte != '\\' || m_ahead[at + 1].byte != 'u') {
            return -1;
        }
        long value = 0;
        for (std::size_t i = at + 2; i < at + 6; ++i) {
            int digit = hex_value(m_ahead[i].byte);
            if (digit < 0) {
                return -1;
            }
            value = value * 16 + digit;
        }
        return value;
    }

    void emit(std::string_view bytes, std::size_t begin, std::size_t end) {
        for (char byte : bytes) {
            m_out.push_back({byte, begin, end});
        }
    }

    void decode_one() {
        Unit first = m_ahead.front();
        if (first.byte != '\\' || !fill(2)) {
            take(1);
            m_out.push_back(first);
            return;
        }
        const char* simple = nullptr;
        switch (m_ahead[1].byte) {
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
        if (simple != nullptr) {
            emit(simple, first.begin, m_ahead[1].end);
            take(2);
            return;
        }
        long unit = hex4_at(0);
        if (unit < 0) {
            take(1);
            m_out.push_back(first);
            return;
        }
        std::size_t used = 6;
        auto code = static_cast<char32_t>(unit);
        if (unit >= 0xD800 && unit <= 0xDBFF) {
            long low = hex4_at(6);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                code = 0x10000 + ((static_cast<char32_t>(unit) - 0xD800) << 10) +
                       (static_cast<char32_t>(low) - 0xDC00);
                used = 12;
            } else {
                code = 0xFFFD;  // a lone surrogate spells no secret
            }
        } else if (unit >= 0xDC00 && unit <= 0xDFFF) {
            code = 0xFFFD;
        }
        std::string bytes;
        append_utf8(bytes, code);
        emit(bytes, first.begin, m_ahead[used - 1].end);
        take(used);
    }

    UnitSource& m_source;
    std::vector<Unit> m_ahead;
    std::vector<Unit> m_out;
    std::size_t m_out_at = 0;
    bool m_saw_backslash = false;
};

// Finds one value in a stream of units (Knuth-Morris-Pratt: linear whatever the text), and
// where in the original text each occurrence was spelled.
class ValueMatcher {
public:
    ValueMatcher(const std::string& value, const std::vector<std::size_t>& failure)
        : m_value(value), m_failure(failure), m_begins(value.size()) {}

    // Feeds one unit; the original span of the occurrence it completes, if it does.
    std::optional<std::pair<std::size_t, std::size_t>> feed(const Unit& unit) {
        while (m_matched > 0 && m_value[m_matched] != unit.byte) {
            m_matched = m_failure[m_matched - 1];
        }
        if (m_value[m_matched] == unit.byte) {
            ++m_matched;
        }
        m_begins[m_fed % m_begins.size()] = unit.begin;
        ++m_fed;
        if (m_matched < m_value.size()) {
            return std::nullopt;
        }
        m_matched = m_failure[m_matched - 1];
        return std::pair{m_begins[m_fed % m_begins.size()], unit.end};
    }

private:
    const std::string& m_value;
    const std::vector<std::size_t>& m_failure;
    std::vector<std::size_t> m_begins;  // original begin of the last value.size() units
    std::size_t m_matched = 0;
    std::size_t m_fed = 0;
};

std::vector<std::size_t> failure_function(std::string_view value) {
    std::vector<std::size_t> failure(value.size(), 0);
    std::size_t matched = 0;
    for (std::size_t i = 1; i < value.size(); ++i) {
        while (matched > 0 && value[i] != value[matched]) {
            matched = failure[matched - 1];
        }
        if (value[i] == value[matched]) {
            ++matched;
        }
        failure[i] = matched;
    }
    return failure;
}

// JSON that holds JSON that holds the secret, and once more: each level is one linear pass.
constexpr int k_decode_levels = 3;

using Span = std::pair<std::size_t, std::size_t>;

// Calls found(span) for every occurrence of `values` in `text` after 1, 2, ... k_decode_levels
// rounds of JSON unescaping, as long as a round still produced a backslash; stops when found
// returns true.
template <typename Found>
void find_decoded(std::string_view text, const std::vector<std::string>& values,
                  const std::vector<std::vector<std::size_t>>& failures, Found found) {
    if (values.empty() || text.find('\\') == std::string_view::npos) {
        return;
    }
    for (int levels = 1; levels <= k_decode_levels; ++levels) {
        TextUnits source(text);
        std::vector<std::unique_ptr<JsonUnescaper>> chain;
        UnitSource* top = &source;
        for (int level = 0; level < levels; ++level) {
            chain.push_back(std::make_unique<JsonUnescaper>(*top));
            top = chain.back().get();
        }
        std::vector<ValueMatcher> matchers;
        matchers.reserve(values.size());
        for (std::size_t i = 0; i < values.size(); ++i) {
            matchers.emplace_back(values[i], failures[i]);
        }
        Unit unit;
        while (top->next(unit)) {
            for (auto& matcher : matchers) {
                if (auto span = matcher.feed(unit); span && found(*span)) {
                    return;
                }
            }
        }
        if (!chain.back()->saw_backslash()) {
            return;
        }
    }
}

std::vector<std::string> spellings(const std::vector<std::string>& values) {
    std::vector<std::string> needles;
    for (const auto& value : values) {
        for (auto style : {EscapeStyle::minimal, EscapeStyle::slash, EscapeStyle::ascii,
                           EscapeStyle::ascii_upper}) {
            needles.push_back(json_escaped(value, style));
        }
        needles.push_back(value);
        // How a secret used as a property name appears in the location of a schema violation.
        needles.push_back(json::escape_pointer_token(value));
    }
    // Longest first, so a secret that contains another is masked whole.
    std::sort(needles.begin(), needles.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
    needles.erase(std::unique(needles.begin(), needles.end()), needles.end());
    return needles;
}

bool contains_any(std::string_view text, const std::vector<std::string>& needles) {
    return std::any_of(needles.begin(), needles.end(), [text](const std::string& needle) {
        return text.find(needle) != std::string_view::npos;
    });
}

}  // namespace

Secrets::Secrets(std::vector<std::string> values) {
    for (auto& value : values) {
        if (value.size() >= k_min_detected_length) {
            m_detect_values.push_back(value);
        }
        if (value.size() >= k_min_masked_length) {
            // Every byte may be spelled as a 6-character \uXXXX escape, its backslash doubled
            // by each further level of encoding.
            m_max_spelling = std::max(m_max_spelling, value.size() * 12);
            m_mask_values.push_back(std::move(value));
        }
    }
    std::sort(m_mask_values.begin(), m_mask_values.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
    m_mask_values.erase(std::unique(m_mask_values.begin(), m_mask_values.end()),
                        m_mask_values.end());
    std::sort(m_detect_values.begin(), m_detect_values.end());
    m_detect_values.erase(std::unique(m_detect_values.begin(), m_detect_values.end()),
                          m_detect_values.end());
    m_detect_needles = spellings(m_detect_values);
    m_mask_needles = spellings(m_mask_values);
    for (const auto& value : m_mask_values) {
        m_mask_failures.push_back(failure_function(value));
    }
}

Secrets Secrets::without_spec(std::vector<std::string> unmarked) {
    Secrets secrets(std::move(unmarked));
    secrets.m_from_spec = false;
    secrets.m_detect_values.clear();
    secrets.m_detect_needles.clear();
    return secrets;
}

// Detection needs no spans: each level is decoded into a plain string and searched as text.
bool Secrets::found_in(std::string_view text) const {
    if (contains_any(text, m_detect_needles)) {
        return true;
    }
    if (m_detect_values.empty() || text.find('\\') == std::string_view::npos) {
        return false;
    }
    std::string decoded(text);
    for (int level = 1; level <= k_decode_levels; ++level) {
        TextUnits source(decoded);
        JsonUnescaper unescaper(source);
        std::string next;
        next.reserve(decoded.size());
        Unit unit;
        while (unescaper.next(unit)) {
            next.push_back(unit.byte);
        }
        if (contains_any(next, m_detect_values)) {
            return true;
        }
        if (!unescaper.saw_backslash()) {
            return false;
        }
        decoded = std::move(next);
    }
    return false;
}

// Every spelling's occurrences are collected as spans of `text` first and masked in one pass at
// the end: the cost is linear in the text for any number of occurrences.
std::string Secrets::redact(std::string_view text) const {
    if (m_mask_values.empty()) {
        return std::string(text);
    }
    std::vector<Span> spans;
    for (const auto& needle : m_mask_needles) {
        for (auto at = text.find(needle); at != std::string_view::npos;
             at = text.find(needle, at + 1)) {
            spans.emplace_back(at, at + needle.size());
        }
    }
    find_decoded(text, m_mask_values, m_mask_failures, [&spans](const Span& span) {
        spans.push_back(span);
        return false;
    });
    if (spans.empty()) {
        return std::string(text);
    }
    std::sort(spans.begin(), spans.end());
    std::string result;
    result.reserve(text.size());
    std::size_t copied = 0;
    for (std::size_t i = 0; i < spans.size();) {
        auto [begin, end] = spans[i];
        // Overlapping spellings become one mask; adjacent ones stay apart.
        for (++i; i < spans.size() && spans[i].first < end; ++i) {
            end = std::max(end, spans[i].second);
        }
        result.append(text.substr(copied, begin - copied));
        result.append(k_mask);
        copied = end;
    }
    result.append(text.substr(copied));
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
