#include "json/digest.hpp"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "json/pointer.hpp"
#include "json/value_walk.hpp"

namespace conform::json {
namespace {

// A streaming 128-bit hash over 64-bit words, absorbed in pairs by two lanes that feed each
// other every block (so the state is a genuine 128 bits, unlike two independent 64-bit hashes),
// then a multiply-xorshift finalizer so that every input bit reaches every output bit. Callers
// must make the word stream unambiguous (lengths before variable-size data).
class Hasher128 {
public:
    void add_word(std::uint64_t word) {
        ++m_words;
        if (!m_has_pending) {
            m_pending = word;
            m_has_pending = true;
            return;
        }
        absorb(m_pending, word);
        m_has_pending = false;
    }

    // Adds `bytes` as little-endian words, the last one zero-padded.
    void add_bytes(std::string_view bytes) {
        std::size_t offset = 0;
        for (; offset + 8 <= bytes.size(); offset += 8) {
            add_word(load_little_endian(bytes.data() + offset, 8));
        }
        if (offset < bytes.size()) {
            add_word(load_little_endian(bytes.data() + offset, bytes.size() - offset));
        }
    }

    Digest finish() {
        if (m_has_pending) {
            absorb(m_pending, 0);
        }
        m_lane_a ^= m_words;
        m_lane_b ^= std::rotl(m_words, 32);
        m_lane_a += m_lane_b;
        m_lane_b += m_lane_a;
        m_lane_a = avalanche(m_lane_a);
        m_lane_b = avalanche(m_lane_b);
        m_lane_a += m_lane_b;
        m_lane_b += m_lane_a;
        return Digest{m_lane_a, m_lane_b};
    }

private:
    static constexpr std::uint64_t k_mul_1 = 0x9e3779b97f4a7c15ULL;
    static constexpr std::uint64_t k_mul_2 = 0xc2b2ae3d27d4eb4fULL;

    static std::uint64_t load_little_endian(const char* bytes, std::size_t size) {
        std::uint64_t word = 0;
        if constexpr (std::endian::native == std::endian::little) {
            std::memcpy(&word, bytes, size);
        } else {
            for (std::size_t i = 0; i < size; ++i) {
                word |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
            }
        }
        return word;
    }

    static std::uint64_t scramble(std::uint64_t word, std::uint64_t mul_in, std::uint64_t mul_out,
                                  int rotation) {
        return std::rotl(word * mul_in, rotation) * mul_out;
    }

    static std::uint64_t avalanche(std::uint64_t x) {
        x ^= x >> 33;
        x *= 0xff51afd7ed558ccdULL;
        x ^= x >> 33;
        x *= 0xc4ceb9fe1a85ec53ULL;
        x ^= x >> 33;
        return x;
    }

    void absorb(std::uint64_t first, std::uint64_t second) {
        m_lane_a ^= scramble(first, k_mul_1, k_mul_2, 31);
        m_lane_a = std::rotl(m_lane_a, 27) + m_lane_b;
        m_lane_a = m_lane_a * 5 + 0x52dce729;
        m_lane_b ^= scramble(second, k_mul_2, k_mul_1, 33);
        m_lane_b = std::rotl(m_lane_b, 31) + m_lane_a;
        m_lane_b = m_lane_b * 5 + 0x38495ab5;
    }

    std::uint64_t m_lane_a = 0x6a09e667f3bcc908ULL;
    std::uint64_t m_lane_b = 0xbb67ae8584caa73bULL;
    std::uint64_t m_words = 0;
    std::uint64_t m_pending = 0;
    bool m_has_pending = false;
};

// Feeds the canonical traversal to the hasher as an unambiguous stream of tagged words.
class DigestVisitor {
public:
    explicit DigestVisitor(Hasher128& hasher) : m_hasher(hasher) {}

    void null() { m_hasher.add_word('n'); }
    void boolean(bool value) { m_hasher.add_word(value ? 't' : 'f'); }
    void integer(std::int64_t value) { tagged_word('i', static_cast<std::uint64_t>(value)); }
    void unsigned_integer(std::uint64_t value) { tagged_word('u', value); }
    void real(double value) {
        if (std::isfinite(value)) {
            tagged_word('d', std::bit_cast<std::uint64_t>(value));
        } else {
            null();
        }
    }
    void string(std::string_view value) { tagged_text('s', value); }
    void begin_object() { m_hasher.add_word('{'); }
    void key(std::string_view name) { tagged_text('k', name); }
    void end_object(std::uint32_t /*children*/) { m_hasher.add_word('}'); }
    void begin_array() { m_hasher.add_word('['); }
    void end_array(std::uint32_t /*children*/) { m_hasher.add_word(']'); }
    void before_child(bool /*first*/) {}

private:
    void tagged_word(std::uint64_t tag, std::uint64_t word) {
        m_hasher.add_word(tag);
        m_hasher.add_word(word);
    }

    // The tag and the length share one word; rapidjson lengths fit in 32 bits.
    void tagged_text(std::uint64_t tag, std::string_view text) {
        m_hasher.add_word(tag | (static_cast<std::uint64_t>(text.size()) << 8));
        m_hasher.add_bytes(text);
    }

    Hasher128& m_hasher;
};

}  // namespace

std::string Digest::hex() const {
    return fmt::format("{:016x}{:016x}", high, low);
}

struct Digester::State {
    detail::PointerTree excluded;
    bool has_exclusions = false;
    detail::ValueWalker<true> walker;
};

Digester::Digester(const std::vector<std::string>& excluded_pointers)
    : m_state(std::make_unique<State>()) {
    for (const std::string& pointer : excluded_pointers) {
        detail::PointerTree* node = &m_state->excluded;
        for (std::string& token : pointer_tokens(pointer)) {
            node = &node->children[std::move(token)];
        }
        node->selected = true;
        m_state->has_exclusions = true;
    }
}

Digester::~Digester() = default;
Digester::Digester(Digester&&) noexcept = default;
Digester& Digester::operator=(Digester&&) noexcept = default;

Digest Digester::digest(const rapidjson::Value& value) {
    Hasher128 hasher;
    DigestVisitor visitor(hasher);
    m_state->walker.walk(value, visitor, m_state->has_exclusions ? &m_state->excluded : nullptr);
    return hasher.finish();
}

Digest digest_of(const rapidjson::Value& value) {
    Digester digester;
    return digester.digest(value);
}

}  // namespace conform::json
