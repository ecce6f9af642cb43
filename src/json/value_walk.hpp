#pragma once

// Internal to conform_json: the non-recursive traversal shared by the writers and digests.

#include <rapidjson/document.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace conform::json::detail {

// A set of JSON pointers stored as a tree of reference tokens.
struct PointerTree {
    bool selected = false;
    std::map<std::string, PointerTree, std::less<>> children;

    const PointerTree* child(std::string_view token) const {
        auto found = children.find(token);
        return found == children.end() ? nullptr : &found->second;
    }
};

inline std::string_view text_of(const rapidjson::Value& string_value) {
    return {string_value.GetString(), string_value.GetStringLength()};
}

// Reports a number in its canonical class: integer (int64 or integral double within it),
// unsigned (uint64 above int64, or integral double within it) or real.
template <typename Visitor>
void visit_canonical_number(const rapidjson::Value& number, Visitor& visitor) {
    if (number.IsInt64()) {
        visitor.integer(number.GetInt64());
        return;
    }
    if (number.IsUint64()) {
        visitor.unsigned_integer(number.GetUint64());
        return;
    }
    double real = number.GetDouble();
    constexpr double k_two_to_63 = 9223372036854775808.0;
    constexpr double k_two_to_64 = 18446744073709551616.0;
    bool integral = std::isfinite(real) && std::trunc(real) == real;
    if (integral && real >= -k_two_to_63 && real < k_two_to_63) {
        visitor.integer(static_cast<std::int64_t>(real));
    } else if (integral && real >= k_two_to_63 && real < k_two_to_64) {
        visitor.unsigned_integer(static_cast<std::uint64_t>(real));
    } else {
        visitor.real(real);
    }
}

template <typename Visitor>
void visit_number_as_stored(const rapidjson::Value& number, Visitor& visitor) {
    if (number.IsInt64()) {
        visitor.integer(number.GetInt64());
    } else if (number.IsUint64()) {
        visitor.unsigned_integer(number.GetUint64());
    } else {
        visitor.real(number.GetDouble());
    }
}

// A member in the canonical order: most names differ in their first 8 bytes, so comparing
// those as one big-endian number spares a memcmp per comparison of the sort.
struct SortedMember {
    std::uint64_t prefix;
    std::uint32_t index;
};

template <typename Word>
Word load_word(const char* bytes) {
    Word word = 0;
    std::memcpy(&word, bytes, sizeof word);
    return word;
}

// The first `size` (at most 8) bytes at `bytes` as a little-endian number, the rest zero, read
// without touching a byte past them. Two overlapping loads hold the same bytes where they
// overlap, so or-ing them is exact.
inline std::uint64_t load_little_endian(const char* bytes, std::size_t size) {
    if constexpr (std::endian::native == std::endian::little) {
        if (size >= 8) {
            return load_word<std::uint64_t>(bytes);
        }
        if (size >= 4) {
            return std::uint64_t{load_word<std::uint32_t>(bytes)} |
                   (std::uint64_t{load_word<std::uint32_t>(bytes + size - 4)} << (8 * (size - 4)));
        }
        if (size >= 2) {
            return std::uint64_t{load_word<std::uint16_t>(bytes)} |
                   (std::uint64_t{load_word<std::uint16_t>(bytes + size - 2)} << (8 * (size - 2)));
        }
        return size == 1 ? static_cast<unsigned char>(bytes[0]) : 0;
    } else {
        std::uint64_t word = 0;
        for (std::size_t i = 0; i < std::min<std::size_t>(size, 8); ++i) {
            word |= std::uint64_t{static_cast<unsigned char>(bytes[i])} << (8 * i);
        }
        return word;
    }
}

// The first 8 bytes of `name` as a big-endian number, zero-padded: ordered as the bytes are.
inline std::uint64_t big_endian_prefix(std::string_view name) {
    std::uint64_t prefix = load_little_endian(name.data(), std::min<std::size_t>(name.size(), 8));
    if constexpr (std::endian::native == std::endian::little) {
        return __builtin_bswap64(prefix);
    } else {
        std::uint64_t swapped = 0;
        for (int i = 0; i < 8; ++i) {
            swapped = (swapped << 8) | ((prefix >> (8 * i)) & 0xFF);
        }
        return swapped;
    }
}

// Appends the members of `object` to `order` in the canonical order: by name bytes, ties in
// document order.
inline void append_canonical_order(const rapidjson::Value& object,
                                   std::vector<SortedMember>& order) {
    std::size_t begin = order.size();
    std::uint32_t count = object.MemberCount();
    auto members = object.MemberBegin();
    for (std::uint32_t i = 0; i < count; ++i) {
        order.push_back({big_endian_prefix(text_of(members[i].name)), i});
    }
    // Equal prefixes (shared first bytes, or zero bytes against padding) fall back to the whole
    // names.
    std::sort(order.begin() + static_cast<std::ptrdiff_t>(begin), order.end(),
              [&members](const SortedMember& a, const SortedMember& b) {
                  if (a.prefix != b.prefix) {
                      return a.prefix < b.prefix;
                  }
                  std::string_view name_a = text_of(members[a.index].name);
                  std::string_view name_b = text_of(members[b.index].name);
                  return name_a != name_b ? name_a < name_b : a.index < b.index;
              });
}

// Walks a value without recursion. Canonical walks visit members sorted by name bytes (ties in
// document order) and numbers in canonical class; others keep document order and storage class.
// Values whose pointer is selected in `excluded` are skipped as if absent. Visitor events: null(),
// boolean(b), integer(i), unsigned_integer(u), real(d), string(s), begin_object(), key(s),
// end_object(children), begin_array(), end_array(children), and before_child(first) ahead of
// every member or element. Scratch buffers are reused between walks.
template <bool k_canonical>
class ValueWalker {
public:
    template <typename Visitor>
    void walk(const rapidjson::Value& root, Visitor& visitor, const PointerTree* excluded) {
        m_frames.clear();
        m_order.clear();
        if (excluded != nullptr && excluded->selected) {
            return;
        }
        enter(root, excluded, visitor);
        while (!m_frames.empty()) {
            if (!advance(visitor)) {
                leave(visitor);
            }
        }
    }

private:
    struct Frame {
        const rapidjson::Value* container;
        const PointerTree* excluded;
        std::size_t order_begin;
        std::uint32_t next;
        std::uint32_t emitted;
    };

    template <typename Visitor>
    void enter(const rapidjson::Value& value, const PointerTree* excluded, Visitor& visitor) {
        if (excluded != nullptr && excluded->children.empty()) {
            excluded = nullptr;
        }
        switch (value.GetType()) {
            case rapidjson::kNullType:
                visitor.null();
                return;
            case rapidjson::kFalseType:
                visitor.boolean(false);
                return;
            case rapidjson::kTrueType:
                visitor.boolean(true);
                return;
            case rapidjson::kNumberType:
                if constexpr (k_canonical) {
                    visit_canonical_number(value, visitor);
                } else {
                    visit_number_as_stored(value, visitor);
                }
                return;
            case rapidjson::kStringType:
                visitor.string(text_of(value));
                return;
            case rapidjson::kObjectType:
                visitor.begin_object();
                push_object(value, excluded);
                return;
            case rapidjson::kArrayType:
                visitor.begin_array();
                m_frames.push_back(Frame{&value, excluded, m_order.size(), 0, 0});
                return;
        }
    }

    void push_object(const rapidjson::Value& object, const PointerTree* excluded) {
        std::size_t order_begin = m_order.size();
        if constexpr (k_canonical) {
            append_canonical_order(object, m_order);
        }
        m_frames.push_back(Frame{&object, excluded, order_begin, 0, 0});
    }

    std::uint32_t member_index(const Frame& frame, std::uint32_t position) const {
        if constexpr (k_canonical) {
            return m_order[frame.order_begin + position].index;
        } else {
            return position;
        }
    }

    // Visits the next child of the top frame; false when it has none left.
    template <typename Visitor>
    bool advance(Visitor& visitor) {
        Frame& frame = m_frames.back();
        const rapidjson::Value& container = *frame.container;
        bool is_object = container.IsObject();
        std::uint32_t size = is_object ? container.MemberCount() : container.Size();
        while (frame.next < size) {
            std::uint32_t position = frame.next++;
            const PointerTree* child_excluded = nullptr;
            const rapidjson::Value* child = nullptr;
            std::string_view name;
            if (is_object) {
                const auto& member = container.MemberBegin()[member_index(frame, position)];
                name = text_of(member.name);
                child = &member.value;
                if (frame.excluded != nullptr) {
                    child_excluded = frame.excluded->child(name);
                }
            } else {
                child = &container[position];
                if (frame.excluded != nullptr) {
                    child_excluded = frame.excluded->child(std::to_string(position));
                }
            }
            if (child_excluded != nullptr && child_excluded->selected) {
                continue;
            }
            visitor.before_child(frame.emitted++ == 0);
            if (is_object) {
                visitor.key(name);
            }
            enter(*child, child_excluded, visitor);  // may invalidate `frame`
            return true;
        }
        return false;
    }

    template <typename Visitor>
    void leave(Visitor& visitor) {
        const Frame& frame = m_frames.back();
        if (frame.container->IsObject()) {
            m_order.resize(frame.order_begin);
            visitor.end_object(frame.emitted);
        } else {
            visitor.end_array(frame.emitted);
        }
        m_frames.pop_back();
    }

    std::vector<Frame> m_frames;
    std::vector<SortedMember> m_order;
};

}  // namespace conform::json::detail
