#pragma once

// Parsing JSON a connector wrote with a nesting limit (docs/hostile-input.md, "Deep documents").
// The limit is enforced while parsing, by a SAX handler in front of the Document's own, so a line
// nested deeper costs at most what the limit allows, not a DOM and parse stack of its full depth.

#include <rapidjson/document.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "json/plain_run.hpp"

namespace conform::json {

// A NUL-terminated text parsed in place that knows where it ends, so a string's plain bytes can
// be scanned many at a time without reading past the text.
class InPlaceText : public rapidjson::InsituStringStream {
public:
    // `text[length]` is the terminating NUL.
    InPlaceText(char* text, std::size_t length)
        : rapidjson::InsituStringStream(text), m_end(text + length) {}

    const char* end() const { return m_end; }

private:
    const char* m_end;
};

// UTF-8 as RapidJSON reads it, but in an in-place parse a string's run of plain bytes (no quote,
// backslash or control character) moves in one step (json/plain_run.hpp): RapidJSON's
// own loop takes and puts each byte through its escape checks, the largest share of parsing a
// record (issue 24's profile). Bytes are validated only when the parse asks for it
// (kParseValidateEncodingFlag), as with RapidJSON's UTF8.
struct RunCopyingUtf8 : rapidjson::UTF8<char> {};

}  // namespace conform::json

namespace rapidjson {

template <>
struct StreamTraits<conform::json::InPlaceText> {
    enum { copyOptimization = 1 };  // as for the InsituStringStream it extends
};

// RapidJSON's generic SkipWhitespace, which the compiler stops inlining for a stream other than
// its own; connector output is mostly compact, so the call would cost more than the skipping.
template <>
// NOLINTNEXTLINE(readability-identifier-naming): RapidJSON's name
inline RAPIDJSON_FORCEINLINE void SkipWhitespace(conform::json::InPlaceText& is) {
    char* at = is.src_;
    while (*at == ' ' || *at == '\n' || *at == '\r' || *at == '\t') {
        ++at;
    }
    is.src_ = at;
}

template <>
struct Transcoder<conform::json::RunCopyingUtf8, conform::json::RunCopyingUtf8> {
    // RapidJSON's transcoder concept names these methods.
    // NOLINTBEGIN(readability-identifier-naming)

    // RapidJSON calls this on a plain byte and loops back for the byte that ends the run.
    RAPIDJSON_FORCEINLINE static bool Transcode(conform::json::InPlaceText& is,
                                                conform::json::InPlaceText& os) {
        char* const from = is.src_;
        const auto length =
            static_cast<std::size_t>(conform::json::end_of_plain_run(from + 1, is.end()) - from);
        if (os.dst_ != from) {  // an escape earlier in the string shortened it
            std::memmove(os.dst_, from, length);
        }
        os.dst_ += length;
        is.src_ += length;
        return true;
    }

    template <typename InputStream, typename OutputStream>
    RAPIDJSON_FORCEINLINE static bool Validate(InputStream& is, OutputStream& os) {
        return UTF8<char>::Validate(is, os);
    }
    // NOLINTEND(readability-identifier-naming)
};

}  // namespace rapidjson

namespace conform::json {

// The deepest nesting of objects and arrays conform parses in connector output, the outermost
// value counting as level 1. No record deeper than this could be validated in full anyway (the
// validator stops at 10,000 nested schema evaluations, and schemas nest at most 500 levels), and
// common JSON readers refuse far less: Jackson (the Airbyte platform) at 1,000, Go at 10,000.
inline constexpr std::size_t k_max_nesting = 10'000;

// How a bounded parse ended. `too_deep` is set when the input nests deeper than the limit: the
// parse stopped at `offset` and the document is null.
struct BoundedParse {
    rapidjson::ParseErrorCode code = rapidjson::kParseErrorNone;
    std::size_t offset = 0;
    bool too_deep = false;

    bool failed() const { return code != rapidjson::kParseErrorNone; }
};

// The reason a failed parse gives: RapidJSON's own words, or the nesting limit with its value.
std::string reason_of(const BoundedParse& parse);

namespace detail {

// Forwards every SAX event to `inner` and stops the parse past `max_depth` open containers.
template <typename Handler>
class NestingBoundedHandler {
public:
    using Ch = typename Handler::Ch;

    NestingBoundedHandler(Handler& inner, std::size_t max_depth)
        : m_inner(inner), m_max_depth(max_depth) {}

    // RapidJSON's SAX handler concept names these methods.
    // NOLINTBEGIN(readability-identifier-naming)
    bool Null() { return m_inner.Null(); }
    bool Bool(bool value) { return m_inner.Bool(value); }
    bool Int(int value) { return m_inner.Int(value); }
    bool Uint(unsigned value) { return m_inner.Uint(value); }
    bool Int64(std::int64_t value) { return m_inner.Int64(value); }
    bool Uint64(std::uint64_t value) { return m_inner.Uint64(value); }
    bool Double(double value) { return m_inner.Double(value); }
    bool RawNumber(const Ch* text, rapidjson::SizeType length, bool copy) {
        return m_inner.RawNumber(text, length, copy);
    }
    bool String(const Ch* text, rapidjson::SizeType length, bool copy) {
        return m_inner.String(text, length, copy);
    }
    bool Key(const Ch* text, rapidjson::SizeType length, bool copy) {
        return m_inner.Key(text, length, copy);
    }
    bool StartObject() { return enter() && m_inner.StartObject(); }
    bool EndObject(rapidjson::SizeType members) {
        --m_depth;
        return m_inner.EndObject(members);
    }
    bool StartArray() { return enter() && m_inner.StartArray(); }
    bool EndArray(rapidjson::SizeType elements) {
        --m_depth;
        return m_inner.EndArray(elements);
    }
    // NOLINTEND(readability-identifier-naming)

    bool too_deep() const { return m_too_deep; }

private:
    bool enter() {
        if (++m_depth > m_max_depth) {
            m_too_deep = true;
            return false;
        }
        return true;
    }

    Handler& m_inner;
    std::size_t m_max_depth;
    std::size_t m_depth = 0;
    bool m_too_deep = false;
};

// Parses `stream` into `document` (its allocator, its value on success) through the bounded
// handler; RapidJSON's GenericDocument::Populate runs the handler and moves the root into place.
template <unsigned Flags, typename Stream>
BoundedParse parse_bounded_stream(rapidjson::Document& document, Stream& stream,
                                  std::size_t max_depth) {
    BoundedParse outcome;
    auto generate = [&](rapidjson::Document& handler) {
        NestingBoundedHandler<rapidjson::Document> bounded(handler, max_depth);
        using Reader =
            std::conditional_t<(Flags & rapidjson::kParseInsituFlag) != 0,
                               rapidjson::GenericReader<RunCopyingUtf8, rapidjson::UTF8<>>,
                               rapidjson::Reader>;
        Reader reader;
        rapidjson::ParseResult result = reader.template Parse<Flags>(stream, bounded);
        outcome.code = result.Code();
        outcome.offset = result.Offset();
        outcome.too_deep = bounded.too_deep();
        return !result.IsError();
    };
    document.Populate(generate);
    if (outcome.failed()) {
        document.SetNull();
    }
    return outcome;
}

}  // namespace detail

// Parses `text` with RapidJSON flags `Flags` (kParseIterativeFlag at least, so depth never
// reaches the call stack) and at most `max_depth` levels of nesting.
template <unsigned Flags = rapidjson::kParseIterativeFlag>
BoundedParse parse_bounded(rapidjson::Document& document, std::string_view text,
                           std::size_t max_depth = k_max_nesting) {
    static_assert((Flags & rapidjson::kParseIterativeFlag) != 0, "untrusted input is deep");
    rapidjson::MemoryStream memory(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(memory);
    return detail::parse_bounded_stream<Flags>(document, stream, max_depth);
}

// The same, in place: `text` holds `length` bytes and a NUL after them, and is overwritten
// (RapidJSON's ParseInsitu).
template <unsigned Flags = rapidjson::kParseIterativeFlag>
BoundedParse parse_bounded_in_place(rapidjson::Document& document, char* text, std::size_t length,
                                    std::size_t max_depth = k_max_nesting) {
    static_assert((Flags & rapidjson::kParseIterativeFlag) != 0, "untrusted input is deep");
    InPlaceText stream(text, length);
    return detail::parse_bounded_stream<Flags | rapidjson::kParseInsituFlag>(document, stream,
                                                                             max_depth);
}

// How deep parse_shallow_in_place goes: records rarely nest past a handful of levels, and this
// many recursive parser frames fit in any thread's stack, sanitizers included.
inline constexpr std::size_t k_shallow_nesting = 64;

// Parses `text` in place with RapidJSON's recursive parser, faster than the iterative one, at
// most k_shallow_nesting levels deep: a failure (deeper input included) is for the caller to
// parse again with parse_bounded_in_place, whose verdict and offsets are the ones to report.
template <unsigned Flags>
BoundedParse parse_shallow_in_place(rapidjson::Document& document, char* text, std::size_t length) {
    static_assert((Flags & rapidjson::kParseIterativeFlag) == 0, "the point is recursion");
    InPlaceText stream(text, length);
    return detail::parse_bounded_stream<Flags | rapidjson::kParseInsituFlag>(document, stream,
                                                                             k_shallow_nesting);
}

}  // namespace conform::json
