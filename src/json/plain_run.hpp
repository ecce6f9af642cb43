#pragma once

// Where a JSON string's run of plain bytes ends: the first quote, backslash or control character
// (below 0x20), which RapidJSON's string parser must look at byte by byte. Strings in connector
// output are mostly plain, so the run is found sixteen bytes at a time where SSE2 is (every
// x86-64), eight at a time otherwise, and byte by byte only in a text's last bytes.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace conform::json {

namespace detail {

inline constexpr std::uint64_t k_every_byte = 0x0101010101010101;
inline constexpr std::uint64_t k_high_bits = 0x8080808080808080;

// The high bit of each byte of `word` below `limit` (at most 0x80). A borrow can also mark a
// byte after a marked one, never before it, so the first mark is exact.
constexpr std::uint64_t bytes_below(std::uint64_t word, std::uint8_t limit) {
    return (word - k_every_byte * limit) & ~word & k_high_bits;
}

constexpr std::uint64_t bytes_equal(std::uint64_t word, char c) {
    return bytes_below(word ^ (k_every_byte * static_cast<std::uint8_t>(c)), 1);
}

constexpr bool is_plain(char c) {
    const auto byte = static_cast<unsigned char>(c);
    return byte >= 0x20 && c != '"' && c != '\\';
}

}  // namespace detail

// The first byte at or after `at` that is not plain. `text_end` is the text's end, where a NUL
// (a control character) stops the last, bytewise part of the search; nothing past it is read.
inline const char* end_of_plain_run(const char* at, const char* text_end) {
#if defined(__SSE2__)
    while (text_end - at >= 16) {
        const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
        const __m128i below_space = _mm_cmpeq_epi8(_mm_min_epu8(bytes, _mm_set1_epi8(0x1f)), bytes);
        const __m128i quote = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('"'));
        const __m128i backslash = _mm_cmpeq_epi8(bytes, _mm_set1_epi8('\\'));
        const int marks =
            _mm_movemask_epi8(_mm_or_si128(below_space, _mm_or_si128(quote, backslash)));
        if (marks != 0) {
            return at + std::countr_zero(static_cast<unsigned>(marks));
        }
        at += 16;
    }
#endif
    std::uint64_t word = 0;
    while (text_end - at >= static_cast<std::ptrdiff_t>(sizeof word)) {
        std::memcpy(&word, at, sizeof word);
        const std::uint64_t marks = detail::bytes_below(word, 0x20) |
                                    detail::bytes_equal(word, '"') |
                                    detail::bytes_equal(word, '\\');
        if (marks != 0) {
            return at + std::countr_zero(marks) / 8;
        }
        at += sizeof word;
    }
    while (detail::is_plain(*at)) {
        ++at;
    }
    return at;
}

}  // namespace conform::json
