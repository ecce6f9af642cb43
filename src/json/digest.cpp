#include "json/digest.hpp"

#include <fmt/format.h>

#include <array>
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
    // Words are buffered and absorbed a block at a time, so that the lanes stay in registers.
    void add_word(std::uint64_t word) {
        m_block[m_in_block++] = word;
        if (m_in_block == k_block_words) {
            absorb_block();
        }
    }

    // Adds `bytes` as little-endian words, the last one zero-padded.
    void add_bytes(std::string_view bytes) {
        std::size_t offset = 0;
        for (; offset + 8 <= bytes.size(); offset += 8) {
            add_word(detail::load_little_endian(bytes.data() + offset, 8));
        }
        if (offset < bytes.size()) {
            add_word(detail::load_little_endian(bytes.data() + offset, bytes.size() - offset));
        }
    }

    Digest finish() {
        if (m_in_block % 2 != 0) {
            m_block[m_in_block++] = 0;
            --m_words;  // the padding word is not counted
        }
        absorb_block();
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
    static constexpr std::size_t k_block_words = 32;  // even: words are absorbed in pairs
    static constexpr std::uint64_t k_mul_1 = 0x9e3779b97f4a7c15ULL;
    static constexpr std::uint64_t k_mul_2 = 0xc2b2ae3d27d4eb4fULL;

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

    void absorb_block() {
        std::uint64_t lane_a = m_lane_a;
        std::uint64_t lane_b = m_lane_b;
        for (std::size_t i = 0; i < m_in_block; i += 2) {
            lane_a ^= scramble(m_block[i], k_mul_1, k_mul_2, 31);
            lane_a = std::rotl(lane_a, 27) + lane_b;
            lane_a = lane_a * 5 + 0x52dce729;
            lane_b ^= scramble(m_block[i + 1], k_mul_2, k_mul_1, 33);
            lane_b = std::rotl(lane_b, 31) + lane_a;
            lane_b = lane_b * 5 + 0x38495ab5;
        }
        m_lane_a = lane_a;
        m_lane_b = lane_b;
        m_words += m_in_block;
        m_in_block = 0;
    }

    std::uint64_t m_lane_a = 0x6a09e667f3bcc908ULL;
    std::uint64_t m_lane_b = 0xbb67ae8584caa73bULL;
    std::uint64_t m_words = 0;
    std::array<std::uint64_t, k_block_words> m_block{};
    std::size_t m_in_block = 0;
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

// The canonical traversal by recursion, which costs less than the walker's explicit stack of
// frames, down to k_recursive_depth levels; a subtree deeper than that is handed to the walker,
// which feeds the visitor the same events.
class RecursiveTraversal {
public:
    RecursiveTraversal(DigestVisitor& visitor, detail::ValueWalker<true>& walker,
                       std::vector<detail::SortedMember>& order)
        : m_visitor(visitor), m_walker(walker), m_order(order) {}

    // What the traversal saw of member names: sorted, a name that appears twice in one object
    // is next to itself. Every object was looked at unless a part was excluded or handed over.
    NameCheck names() && { return std::move(m_names); }

    void value(const rapidjson::Value& value, const detail::PointerTree* excluded, int depth) {
        if (excluded != nullptr && excluded->children.empty()) {
            excluded = nullptr;
        }
        switch (value.GetType()) {
            case rapidjson::kNullType:
                m_visitor.null();
                return;
            case rapidjson::kFalseType:
                m_visitor.boolean(false);
                return;
            case rapidjson::kTrueType:
                m_visitor.boolean(true);
                return;
            case rapidjson::kNumberType:
                detail::visit_canonical_number(value, m_visitor);
                return;
            case rapidjson::kStringType:
                m_visitor.string(detail::text_of(value));
                return;
            case rapidjson::kObjectType:
            case rapidjson::kArrayType:
                if (depth >= k_recursive_depth) {
                    m_names.every_object = false;
                    m_walker.walk(value, m_visitor, excluded);
                } else if (value.IsObject()) {
                    object(value, excluded, depth);
                } else {
                    array(value, excluded, depth);
                }
                return;
        }
    }

private:
    static constexpr int k_recursive_depth = 48;

    void object(const rapidjson::Value& object, const detail::PointerTree* excluded, int depth) {
        m_visitor.begin_object();
        std::size_t begin = m_order.size();
        detail::append_canonical_order(object, m_order);
        std::size_t end = m_order.size();
        std::uint32_t emitted = 0;
        auto members = object.MemberBegin();
        if (!m_names.duplicate) {
            note_duplicate(members, begin, end);
        }
        for (std::size_t i = begin; i < end; ++i) {
            const auto& member = members[m_order[i].index];
            std::string_view name = detail::text_of(member.name);
            const detail::PointerTree* child =
                excluded != nullptr ? excluded->child(name) : nullptr;
            if (child != nullptr && child->selected) {
                skip(member.value);
                continue;
            }
            ++emitted;
            m_visitor.key(name);
            value(member.value, child, depth + 1);
        }
        m_order.resize(begin);
        m_visitor.end_object(emitted);
    }

    void skip(const rapidjson::Value& excluded_value) {
        if (excluded_value.IsObject() || excluded_value.IsArray()) {
            m_names.every_object = false;
        }
    }

    void note_duplicate(rapidjson::Value::ConstMemberIterator members, std::size_t begin,
                        std::size_t end) {
        for (std::size_t i = begin + 1; i < end; ++i) {
            if (m_order[i - 1].prefix != m_order[i].prefix) {
                continue;
            }
            std::string_view name = detail::text_of(members[m_order[i].index].name);
            if (name == detail::text_of(members[m_order[i - 1].index].name)) {
                m_names.duplicate = std::string(name);
                return;
            }
        }
    }

    void array(const rapidjson::Value& array, const detail::PointerTree* excluded, int depth) {
        m_visitor.begin_array();
        std::uint32_t emitted = 0;
        for (rapidjson::SizeType i = 0; i < array.Size(); ++i) {
            const detail::PointerTree* child =
                excluded != nullptr ? excluded->child(std::to_string(i)) : nullptr;
            if (child != nullptr && child->selected) {
                skip(array[i]);
                continue;
            }
            ++emitted;
            value(array[i], child, depth + 1);
        }
        m_visitor.end_array(emitted);
    }

    DigestVisitor& m_visitor;
    detail::ValueWalker<true>& m_walker;
    std::vector<detail::SortedMember>& m_order;
    NameCheck m_names;
};

}  // namespace

std::string Digest::hex() const {
    return fmt::format("{:016x}{:016x}", high, low);
}

struct Digester::State {
    detail::PointerTree excluded;
    bool has_exclusions = false;
    detail::ValueWalker<true> walker;
    std::vector<detail::SortedMember> order;
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
    return digest_checking_names(value).digest;
}

CheckedDigest Digester::digest_checking_names(const rapidjson::Value& value) {
    Hasher128 hasher;
    DigestVisitor visitor(hasher);
    const detail::PointerTree* excluded = m_state->has_exclusions ? &m_state->excluded : nullptr;
    if (excluded != nullptr && excluded->selected) {
        return {hasher.finish(), NameCheck{false, std::nullopt}};
    }
    RecursiveTraversal traversal(visitor, m_state->walker, m_state->order);
    traversal.value(value, excluded, 0);
    return {hasher.finish(), std::move(traversal).names()};
}

Digest digest_of(const rapidjson::Value& value) {
    Digester digester;
    return digester.digest(value);
}

}  // namespace conform::json
