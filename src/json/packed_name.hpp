#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace conform::json {

// A property name as at most two words: for names of up to 16 bytes the words and the length
// determine every byte, so comparing them is comparing the names.
struct PackedName {
    std::uint64_t head = 0;
    std::uint64_t tail = 0;
    std::size_t size = 0;

    static constexpr std::size_t k_exact_size = 16;

    static PackedName of(std::string_view name) {
        PackedName packed;
        packed.size = name.size();
        const char* bytes = name.data();
        if (name.size() >= 8) {
            packed.head = load<std::uint64_t>(bytes);
            packed.tail = load<std::uint64_t>(bytes + name.size() - 8);
        } else if (name.size() >= 4) {
            packed.head = load<std::uint32_t>(bytes) |
                          (std::uint64_t{load<std::uint32_t>(bytes + name.size() - 4)} << 32);
        } else if (!name.empty()) {
            packed.head = byte(bytes[0]) | (byte(bytes[name.size() / 2]) << 8) |
                          (byte(bytes[name.size() - 1]) << 16);
        }
        return packed;
    }

    bool same_words(const PackedName& other) const {
        return head == other.head && tail == other.tail && size == other.size;
    }

    std::uint32_t hash() const {
        std::uint64_t mixed =
            (head ^ (tail * 0x9E3779B97F4A7C15ULL) ^ size) * 0xBF58476D1CE4E5B9ULL;
        return static_cast<std::uint32_t>(mixed >> 32);
    }

private:
    template <typename Word>
    static Word load(const char* bytes) {
        Word value = 0;
        std::memcpy(&value, bytes, sizeof value);
        return value;
    }

    static std::uint64_t byte(char c) { return static_cast<unsigned char>(c); }
};

}  // namespace conform::json
