#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "json/fwd.hpp"

namespace conform::json {

// A 128-bit digest of a JSON value's canonical form, used as record identity.
struct Digest {
    std::uint64_t high = 0;
    std::uint64_t low = 0;

    auto operator<=>(const Digest&) const = default;

    // 32 lowercase hex digits, high half first.
    std::string hex() const;
};

// What a digest saw of the member names of the objects in a value.
struct NameCheck {
    bool every_object = true;  // false when excluded or very deep parts were not looked at
    std::optional<std::string> duplicate;  // a name that appears twice in one object
};

struct CheckedDigest {
    Digest digest;
    NameCheck names;
};

// Digests JSON values so that values with equal to_canonical_json() (ignoring the excluded
// pointers) get equal digests: member order and 1 vs 1.0 do not matter. The value is hashed in a
// streaming canonical traversal, without building the canonical text. Not a cryptographic hash.
class Digester {
public:
    // Each excluded pointer (RFC 6901; array elements by index) is left out of every digest as if
    // absent. Throws Error(input) naming the pointer when one is malformed.
    explicit Digester(const std::vector<std::string>& excluded_pointers = {});
    ~Digester();
    Digester(Digester&&) noexcept;
    Digester& operator=(Digester&&) noexcept;

    // Not thread-safe: scratch buffers are reused between calls.
    Digest digest(const rapidjson::Value& value);

    // The same digest, and a duplicate member name found on the way (the canonical order puts
    // equal names next to each other), at no extra walk.
    CheckedDigest digest_checking_names(const rapidjson::Value& value);

private:
    struct State;
    std::unique_ptr<State> m_state;
};

// digest of `value` with nothing excluded; prefer a long-lived Digester in loops.
Digest digest_of(const rapidjson::Value& value);

}  // namespace conform::json

template <>
struct std::hash<conform::json::Digest> {
    std::size_t operator()(const conform::json::Digest& digest) const noexcept {
        return static_cast<std::size_t>(digest.low);
    }
};
