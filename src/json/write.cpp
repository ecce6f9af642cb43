#include "json/write.hpp"

#include <rapidjson/document.h>

#include <array>
#include <charconv>

#include "json/value_walk.hpp"

namespace conform::json {
namespace {

void append_json_string(std::string& out, std::string_view text) {
    constexpr std::string_view k_hex = "0123456789abcdef";
    out += '"';
    for (char c : text) {
        auto byte = static_cast<unsigned char>(c);
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (byte < 0x20) {
                    out += "\\u00";
                    out += k_hex[byte >> 4];
                    out += k_hex[byte & 0xF];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

template <typename Number>
std::string_view format_number(std::array<char, 32>& buffer, Number number) {
    auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), number);
    return {buffer.data(), static_cast<std::size_t>(result.ptr - buffer.data())};
}

// Writes walker events as JSON text. Doubles are written in shortest round-trip form; outside
// canonical output an integral-looking double keeps a ".0" so that it reads back as a double.
class TextWriter {
public:
    TextWriter(std::string& out, bool mark_doubles) : m_out(out), m_mark_doubles(mark_doubles) {}

    void null() { m_out += "null"; }
    void boolean(bool value) { m_out += value ? "true" : "false"; }
    void integer(std::int64_t value) { m_out += format_number(m_buffer, value); }
    void unsigned_integer(std::uint64_t value) { m_out += format_number(m_buffer, value); }
    void real(double value) {
        if (!std::isfinite(value)) {
            null();
            return;
        }
        std::string_view text = format_number(m_buffer, value);
        m_out += text;
        if (m_mark_doubles && text.find_first_of(".e") == std::string_view::npos) {
            m_out += ".0";
        }
    }
    void string(std::string_view value) { append_json_string(m_out, value); }
    void begin_object() { m_out += '{'; }
    void key(std::string_view name) {
        append_json_string(m_out, name);
        m_out += ':';
    }
    void end_object(std::uint32_t /*children*/) { m_out += '}'; }
    void begin_array() { m_out += '['; }
    void end_array(std::uint32_t /*children*/) { m_out += ']'; }
    void before_child(bool first) {
        if (!first) {
            m_out += ',';
        }
    }

private:
    std::string& m_out;
    bool m_mark_doubles;
    std::array<char, 32> m_buffer{};
};

template <bool k_canonical>
std::string write_text(const rapidjson::Value& value) {
    std::string out;
    TextWriter writer(out, !k_canonical);
    detail::ValueWalker<k_canonical> walker;
    walker.walk(value, writer, nullptr);
    return out;
}

}  // namespace

std::string to_json(const rapidjson::Value& value) {
    return write_text<false>(value);
}

std::string to_canonical_json(const rapidjson::Value& value) {
    return write_text<true>(value);
}

}  // namespace conform::json
