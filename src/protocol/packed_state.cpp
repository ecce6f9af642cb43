#include "protocol/packed_state.hpp"

#include <rapidjson/document.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "json/bounded_parse.hpp"

namespace conform::protocol {

namespace {

constexpr std::string_view k_format = "base64/gzip";

std::string_view text_of(const rapidjson::Value& value) {
    return {value.GetString(), value.GetStringLength()};
}

int sextet(char c) {
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    if (c == '+') {
        return 62;
    }
    if (c == '/') {
        return 63;
    }
    return -1;
}

// Standard base64 (RFC 4648 section 4), padding optional; nullopt for any other character.
std::optional<std::string> base64_decoded(std::string_view text) {
    while (!text.empty() && text.back() == '=') {
        text.remove_suffix(1);
    }
    std::string bytes;
    bytes.reserve(text.size() / 4 * 3 + 2);
    std::uint32_t bits = 0;
    int count = 0;
    for (char c : text) {
        int value = sextet(c);
        if (value < 0) {
            return std::nullopt;
        }
        bits = (bits << 6) | static_cast<std::uint32_t>(value);
        count += 6;
        if (count >= 8) {
            count -= 8;
            bytes.push_back(static_cast<char>((bits >> count) & 0xFF));
        }
    }
    return bytes;
}

// The gzip member `bytes` inflated, or nullopt when it is not gzip, is cut short, or inflates to
// more than `limit` bytes.
std::optional<std::string> gunzipped(std::string_view bytes, std::size_t limit) {
    z_stream stream{};
    constexpr int k_gzip_only = 16 + MAX_WBITS;
    if (inflateInit2(&stream, k_gzip_only) != Z_OK) {
        return std::nullopt;
    }
    // zlib's interface takes a non-const pointer to input it only reads.
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    stream.avail_in = static_cast<uInt>(bytes.size());
    std::string out;
    std::array<char, 64 * 1024> chunk{};
    int status = Z_OK;
    while (status == Z_OK) {
        stream.next_out = reinterpret_cast<Bytef*>(chunk.data());
        stream.avail_out = static_cast<uInt>(chunk.size());
        status = inflate(&stream, Z_NO_FLUSH);
        auto produced = chunk.size() - stream.avail_out;
        if (out.size() + produced > limit) {
            status = Z_MEM_ERROR;
            break;
        }
        out.append(chunk.data(), produced);
        if (status == Z_BUF_ERROR && stream.avail_in == 0) {
            break;  // the input ended before the gzip member did
        }
    }
    inflateEnd(&stream);
    if (status != Z_STREAM_END) {
        return std::nullopt;
    }
    return out;
}

bool is_packed(const rapidjson::Value& value) {
    if (!value.IsObject() || value.MemberCount() != 2) {
        return false;
    }
    auto format = value.FindMember("format");
    auto data = value.FindMember("data");
    return format != value.MemberEnd() && data != value.MemberEnd() && format->value.IsString() &&
           text_of(format->value) == k_format && data->value.IsString();
}

}  // namespace

std::optional<std::string> unpacked_text(const rapidjson::Value& packed, std::size_t limit) {
    if (!is_packed(packed)) {
        return std::nullopt;
    }
    auto bytes = base64_decoded(text_of(packed["data"]));
    return bytes ? gunzipped(*bytes, limit) : std::nullopt;
}

std::size_t unpack_states(rapidjson::Value& value, json::Allocator& allocator, std::size_t limit) {
    std::size_t replaced = 0;
    std::size_t budget = limit;
    // Iterative: a state is connector output, as deep as it likes.
    std::vector<rapidjson::Value*> pending{&value};
    while (!pending.empty()) {
        auto* current = pending.back();
        pending.pop_back();
        if (auto text = unpacked_text(*current, budget)) {
            budget -= text->size();
            rapidjson::Document unpacked;
            if (!json::parse_bounded(unpacked, *text).failed()) {
                current->CopyFrom(unpacked, allocator);
                ++replaced;
            }
            continue;
        }
        // Children go on the stack last first, so that the limit serves them in document order.
        auto first_child = pending.size();
        if (current->IsObject()) {
            for (auto& member : current->GetObject()) {
                pending.push_back(&member.value);
            }
        } else if (current->IsArray()) {
            for (auto& item : current->GetArray()) {
                pending.push_back(&item);
            }
        }
        std::reverse(pending.begin() + static_cast<std::ptrdiff_t>(first_child), pending.end());
    }
    return replaced;
}

}  // namespace conform::protocol
