#include "schema/regex.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <locale>

namespace conform::schema {

namespace {

static_assert(sizeof(wchar_t) == 4, "code point matching needs a 32-bit wchar_t");

constexpr char32_t k_replacement_character = 0xFFFD;

// Decodes the UTF-8 sequence at `pos`, advancing it; malformed bytes become U+FFFD.
char32_t decode_code_point(std::string_view text, std::size_t& pos) {
    auto lead = static_cast<unsigned char>(text[pos++]);
    if (lead < 0x80) {
        return lead;
    }
    int continuation = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : -1;
    if (continuation < 0 || lead >= 0xF8 ||
        pos + static_cast<std::size_t>(continuation) > text.size()) {
        return k_replacement_character;
    }
    char32_t code_point = lead & (0x3F >> continuation);
    for (int i = 0; i < continuation; ++i) {
        auto byte = static_cast<unsigned char>(text[pos]);
        if ((byte & 0xC0) != 0x80) {
            return k_replacement_character;
        }
        code_point = (code_point << 6) | (byte & 0x3F);
        ++pos;
    }
    return code_point;
}

void decode_utf8(std::string_view text, std::wstring& out) {
    out.clear();
    for (std::size_t pos = 0; pos < text.size();) {
        out.push_back(static_cast<wchar_t>(decode_code_point(text, pos)));
    }
}

std::regex_constants::syntax_option_type regex_flags() {
#ifdef __GLIBCXX__
    // libstdc++'s default backtracking executor recurses once per input character and
    // overflows the stack on long strings; the polynomial (Thompson) executor does not.
    return std::regex::ECMAScript | std::regex_constants::__polynomial;
#else
    return std::regex::ECMAScript;
#endif
}

// ECMAScript's \s also matches Unicode spaces (U+00A0, U+2028, U+FEFF, ...) that the classic
// locale's ctype does not classify as space; \d and \w stay ASCII-only, as ECMAScript wants.
class EcmaScriptCtype : public std::ctype<wchar_t> {
protected:
    bool do_is(mask m, wchar_t c) const override {
        if ((m & space) != 0 && is_unicode_space(c)) {
            return true;
        }
        return std::ctype<wchar_t>::do_is(m, c);
    }

private:
    static bool is_unicode_space(wchar_t c) {
        constexpr std::array<wchar_t, 9> k_spaces{0x00A0, 0x1680, 0x2028, 0x2029, 0x202F,
                                                  0x205F, 0x3000, 0xFEFF, 0x0085};
        return (c >= 0x2000 && c <= 0x200A) ||
               std::find(k_spaces.begin(), k_spaces.end(), c) != k_spaces.end();
    }
};

// The locale is fixed so that a program-wide std::locale::global() cannot change matching.
const std::locale& regex_locale() {
    static const std::locale locale(std::locale::classic(), new EcmaScriptCtype);
    return locale;
}

std::wregex compile_wide(std::string_view source) {
    std::wstring wide;
    decode_utf8(source, wide);
    std::wregex regex;
    regex.imbue(regex_locale());
    regex.assign(wide, regex_flags());
    return regex;
}

}  // namespace

Regex::Regex(std::string_view source) : m_source(source), m_regex(compile_wide(source)) {}

bool Regex::search(std::string_view text) const {
    // Reused per thread so that matching does not allocate once the buffer has grown.
    thread_local std::wstring wide;
    decode_utf8(text, wide);
    return std::regex_search(wide.data(), wide.data() + wide.size(), m_regex);
}

}  // namespace conform::schema
