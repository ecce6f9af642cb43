#include "schema/regex.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace conform::schema {

struct Regex::Code {
    pcre2_code* code = nullptr;
    Code() = default;
    Code(const Code&) = delete;
    Code& operator=(const Code&) = delete;
    ~Code() { pcre2_code_free(code); }
};

namespace {

// ECMA-262 WhiteSpace and LineTerminator beyond what PCRE2's ASCII \s matches.
constexpr std::string_view k_extra_spaces =
    R"(\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}\x{feff})";
// ECMA-262 "." matches anything but a line terminator.
constexpr std::string_view k_dot = R"([^\n\r\x{2028}\x{2029}])";

bool is_hex(char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

unsigned hex_value(char c) {
    if (c >= '0' && c <= '9') {
        return static_cast<unsigned>(c - '0');
    }
    return static_cast<unsigned>((c | 0x20) - 'a' + 10);
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_ascii_letter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

[[noreturn]] void reject(std::string_view what, std::size_t offset) {
    throw RegexError(fmt::format("{} at offset {}", what, offset));
}

// Reads `\uXXXX` (4 hex digits) at `pos` (which points at the 'u'); returns the value.
bool read_u4(std::string_view source, std::size_t pos, unsigned& value) {
    if (pos + 5 > source.size()) {
        return false;
    }
    value = 0;
    for (std::size_t i = pos + 1; i < pos + 5; ++i) {
        if (!is_hex(source[i])) {
            return false;
        }
        value = value * 16 + hex_value(source[i]);
    }
    return true;
}

// ECMA-262 General_Category names and aliases (Unicode PropertyValueAliases.txt) that PCRE2
// 10.42 knows only by their short names.
std::string_view general_category_short_name(std::string_view name) {
    static constexpr std::array<std::pair<std::string_view, std::string_view>, 42> k_names{{
        {"Letter", "L"},
        {"Cased_Letter", "L&"},
        {"Uppercase_Letter", "Lu"},
        {"Lowercase_Letter", "Ll"},
        {"Titlecase_Letter", "Lt"},
        {"Modifier_Letter", "Lm"},
        {"Other_Letter", "Lo"},
        {"Mark", "M"},
        {"Combining_Mark", "M"},
        {"Nonspacing_Mark", "Mn"},
        {"Spacing_Mark", "Mc"},
        {"Enclosing_Mark", "Me"},
        {"Number", "N"},
        {"Decimal_Number", "Nd"},
        {"digit", "Nd"},
        {"Letter_Number", "Nl"},
        {"Other_Number", "No"},
        {"Punctuation", "P"},
        {"punct", "P"},
        {"Connector_Punctuation", "Pc"},
        {"Dash_Punctuation", "Pd"},
        {"Open_Punctuation", "Ps"},
        {"Close_Punctuation", "Pe"},
        {"Initial_Punctuation", "Pi"},
        {"Final_Punctuation", "Pf"},
        {"Other_Punctuation", "Po"},
        {"Symbol", "S"},
        {"Math_Symbol", "Sm"},
        {"Currency_Symbol", "Sc"},
        {"Modifier_Symbol", "Sk"},
        {"Other_Symbol", "So"},
        {"Separator", "Z"},
        {"Space_Separator", "Zs"},
        {"Line_Separator", "Zl"},
        {"Paragraph_Separator", "Zp"},
        {"Other", "C"},
        {"Control", "Cc"},
        {"cntrl", "Cc"},
        {"Format", "Cf"},
        {"Surrogate", "Cs"},
        {"Private_Use", "Co"},
        {"Unassigned", "Cn"},
    }};
    for (const auto& [long_name, short_name] : k_names) {
        if (long_name == name) {
            return short_name;
        }
    }
    return name;
}

// Translates \p{...} or \P{...} at `pos`; returns the position after it.
std::size_t translate_property(std::string_view source, std::size_t pos, std::string& out) {
    if (pos + 2 >= source.size() || source[pos + 2] != '{') {
        reject("\\p and \\P must be followed by {", pos);
    }
    std::size_t end = source.find('}', pos + 3);
    if (end == std::string_view::npos) {
        reject("missing } after \\p{", pos);
    }
    std::string_view name = source.substr(pos + 3, end - (pos + 3));
    for (std::string_view prefix :
         {"General_Category=", "gc=", "Script=", "sc=", "Script_Extensions=", "scx="}) {
        if (name.starts_with(prefix)) {
            name.remove_prefix(prefix.size());
            break;
        }
    }
    out.append(source.substr(pos, 2)).append("{").append(general_category_short_name(name));
    out.append("}");
    return end + 1;
}

// Translates the escape at source[pos] == '\\'; returns the position after it.
std::size_t translate_escape(std::string_view source, std::size_t pos, bool in_class,
                             std::string& out) {
    if (pos + 1 >= source.size()) {
        reject("\\ at end of pattern", pos);
    }
    char c = source[pos + 1];
    switch (c) {
        case 'd':
        case 'D':
        case 'w':
        case 'W':
        case 'f':
        case 'n':
        case 'r':
        case 't':
        case 'b':  // word boundary outside a class, backspace inside: the same in PCRE2
            out.append(source.substr(pos, 2));
            return pos + 2;
        case 'B':
            if (in_class) {
                reject("\\B in a character class", pos);
            }
            out.append(source.substr(pos, 2));
            return pos + 2;
        case 'v':
            out.append(R"(\x{0b})");
            return pos + 2;
        case 's':
            if (in_class) {
                out.append(R"(\s)").append(k_extra_spaces);
            } else {
                out.append(R"([\s)").append(k_extra_spaces).append("]");
            }
            return pos + 2;
        case 'S':
            if (in_class) {
                // Approximation: inside a class, \S does not exclude the non-ASCII spaces.
                out.append(R"(\S)");
            } else {
                out.append(R"([^\s)").append(k_extra_spaces).append("]");
            }
            return pos + 2;
        case 'c':
            if (pos + 2 >= source.size() || !is_ascii_letter(source[pos + 2])) {
                reject("\\c must be followed by a letter", pos);
            }
            out.append(source.substr(pos, 3));
            return pos + 3;
        case 'x':
            if (pos + 4 > source.size() || !is_hex(source[pos + 2]) || !is_hex(source[pos + 3])) {
                reject("\\x must be followed by two hex digits", pos);
            }
            out.append(R"(\x{)").append(source.substr(pos + 2, 2)).append("}");
            return pos + 4;
        case 'u': {
            std::size_t u = pos + 1;
            if (u + 1 < source.size() && source[u + 1] == '{') {
                std::size_t end = source.find('}', u + 2);
                if (end == std::string_view::npos || end == u + 2 || end - (u + 2) > 6) {
                    reject("\\u{ must be followed by hex digits and }", pos);
                }
                for (std::size_t i = u + 2; i < end; ++i) {
                    if (!is_hex(source[i])) {
                        reject("\\u{ must be followed by hex digits and }", pos);
                    }
                }
                out.append(R"(\x{)").append(source.substr(u + 2, end - (u + 2))).append("}");
                return end + 1;
            }
            unsigned value = 0;
            if (!read_u4(source, u, value)) {
                reject("\\u must be followed by four hex digits", pos);
            }
            std::size_t next = u + 5;
            unsigned low = 0;
            if (value >= 0xD800 && value <= 0xDBFF && next + 1 < source.size() &&
                source[next] == '\\' && source[next + 1] == 'u' && read_u4(source, next + 1, low) &&
                low >= 0xDC00 && low <= 0xDFFF) {
                value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00);
                next += 6;
            }
            out.append(fmt::format(R"(\x{{{:x}}})", value));
            return next;
        }
        case 'p':
        case 'P':
            return translate_property(source, pos, out);
        case 'k':
            out.append(source.substr(pos, 2));
            return pos + 2;
        case '0':
            if (pos + 2 < source.size() && is_digit(source[pos + 2])) {
                reject("\\0 followed by a digit (octal escapes are not ECMA-262)", pos);
            }
            out.append(R"(\x{0})");
            return pos + 2;
        default:
            break;
    }
    if (is_digit(c)) {
        if (in_class) {
            reject("a back reference in a character class", pos);
        }
        std::size_t end = pos + 1;
        while (end < source.size() && is_digit(source[end])) {
            ++end;
        }
        out.append(R"(\g{)").append(source.substr(pos + 1, end - pos - 1)).append("}");
        return end;
    }
    if (is_ascii_letter(c)) {
        reject(fmt::format("\\{} is not an ECMA-262 escape", c), pos);
    }
    // An identity escape of punctuation or of a non-ASCII character: literal in both. The escaped
    // byte is copied here: the caller's loop would translate `.` or `[` as syntax.
    out.push_back('\\');
    out.push_back(c);
    return pos + 2;
}

}  // namespace

std::string translate_ecma_regex(std::string_view source) {
    if (source.size() > RegexLimits::max_pattern_bytes) {
        throw RegexError(fmt::format("pattern of {} bytes is longer than conform's limit of {}",
                                     source.size(), RegexLimits::max_pattern_bytes));
    }
    std::string out;
    out.reserve(source.size() + 16);
    bool in_class = false;
    std::size_t pos = 0;
    while (pos < source.size()) {
        char c = source[pos];
        if (c == '\\') {
            pos = translate_escape(source, pos, in_class, out);
            continue;
        }
        if (in_class) {
            if (c == ']') {
                in_class = false;
                out.push_back(c);
            } else if (c == '[') {
                out.append(R"(\[)");  // ECMA: literal; PCRE2 would read [:alpha:]
            } else {
                out.push_back(c);
            }
            ++pos;
            continue;
        }
        switch (c) {
            case '[':
                in_class = true;
                out.push_back(c);
                ++pos;
                if (pos < source.size() && source[pos] == '^') {
                    out.push_back('^');
                    ++pos;
                }
                continue;
            case '.':
                out.append(k_dot);
                ++pos;
                continue;
            case '(':
                if (pos + 1 < source.size() && source[pos + 1] == '?') {
                    std::string_view rest = source.substr(pos + 2);
                    bool supported =
                        rest.starts_with(":") || rest.starts_with("=") || rest.starts_with("!") ||
                        rest.starts_with("<=") || rest.starts_with("<!") ||
                        (rest.starts_with("<") && rest.size() > 1 &&
                         (is_ascii_letter(rest[1]) || rest[1] == '_' || rest[1] == '$'));
                    if (!supported) {
                        reject("(? group syntax that ECMA-262 does not have", pos);
                    }
                }
                out.push_back(c);
                ++pos;
                continue;
            default:
                out.push_back(c);
                ++pos;
                continue;
        }
    }
    if (in_class) {
        reject("missing terminating ] for character class", source.size());
    }
    return out;
}

namespace {

std::string pcre2_message(int code) {
    std::array<PCRE2_UCHAR, 256> buffer{};
    int length = pcre2_get_error_message(code, buffer.data(), buffer.size());
    if (length < 0) {
        return fmt::format("PCRE2 error {}", code);
    }
    return std::string(reinterpret_cast<const char*>(buffer.data()),
                       static_cast<std::size_t>(length));
}

std::shared_ptr<const Regex::Code> compile_code(std::string_view source) {
    std::string translated = translate_ecma_regex(source);
    struct ContextDeleter {
        void operator()(pcre2_compile_context* context) const {
            pcre2_compile_context_free(context);
        }
    };
    std::unique_ptr<pcre2_compile_context, ContextDeleter> context(
        pcre2_compile_context_create(nullptr));
    if (!context) {
        throw std::bad_alloc();
    }
    pcre2_set_parens_nest_limit(context.get(), RegexLimits::parens_nest_limit);
    pcre2_set_max_pattern_length(context.get(), RegexLimits::max_pattern_bytes * 8);
    constexpr std::uint32_t options = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
                                      PCRE2_ALLOW_EMPTY_CLASS | PCRE2_NEVER_BACKSLASH_C;
    int error = 0;
    PCRE2_SIZE offset = 0;
    auto code = std::make_shared<Regex::Code>();
    code->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                               options, &error, &offset, context.get());
    if (code->code == nullptr) {
        throw RegexError(pcre2_message(error));
    }
    return code;
}

// Equal patterns share their compiled code. Bounded: once full, new patterns are compiled
// without being remembered.
class CodeCache {
public:
    static constexpr std::size_t k_capacity = 4096;

    std::shared_ptr<const Regex::Code> get(std::string_view source) {
        std::string key(source);
        {
            std::lock_guard lock(m_mutex);
            if (auto it = m_codes.find(key); it != m_codes.end()) {
                return it->second;
            }
        }
        auto code = compile_code(source);
        std::lock_guard lock(m_mutex);
        if (m_codes.size() < k_capacity) {
            m_codes.emplace(std::move(key), code);
        }
        return code;
    }

private:
    std::mutex m_mutex;
    std::unordered_map<std::string, std::shared_ptr<const Regex::Code>> m_codes;
};

CodeCache& code_cache() {
    static auto* cache = new CodeCache;  // never destroyed: usable from static destructors
    return *cache;
}

const pcre2_match_context* match_context() {
    static const pcre2_match_context* context = [] {
        pcre2_match_context* created = pcre2_match_context_create(nullptr);
        if (created == nullptr) {
            throw std::bad_alloc();
        }
        pcre2_set_match_limit(created, RegexLimits::match_limit);
        pcre2_set_depth_limit(created, RegexLimits::depth_limit);
        pcre2_set_heap_limit(created, RegexLimits::heap_limit_kib);
        return created;
    }();
    return context;
}

struct MatchDataDeleter {
    void operator()(pcre2_match_data* data) const { pcre2_match_data_free(data); }
};

}  // namespace

Regex::Regex(std::string_view source, bool cache)
    : m_source(source), m_code(cache ? code_cache().get(source) : compile_code(source)) {}

MatchResult Regex::search(std::string_view text) const {
    // One ovector pair is enough to learn whether there is a match; reused per thread.
    thread_local std::unique_ptr<pcre2_match_data, MatchDataDeleter> data(
        pcre2_match_data_create(1, nullptr));
    if (!data) {
        throw std::bad_alloc();
    }
    int rc = pcre2_match(m_code->code, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0,
                         data.get(), const_cast<pcre2_match_context*>(match_context()));
    if (rc >= 0) {
        return MatchResult::match;
    }
    if (rc == PCRE2_ERROR_NOMATCH) {
        return MatchResult::no_match;
    }
    // PCRE2_ERROR_MATCHLIMIT, _DEPTHLIMIT, _HEAPLIMIT, _NOMEMORY: the engine gave up.
    return MatchResult::limit_exceeded;
}

}  // namespace conform::schema
