#pragma once

// Internal: the compiled form of a schema, shared by the compiler and the evaluator.

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/document.h>

#include "json/packed_name.hpp"
#include "schema/formats.hpp"
#include "schema/regex.hpp"

namespace conform::schema {

using json::PackedName;

using NodeId = std::uint32_t;
inline constexpr NodeId k_no_node = std::numeric_limits<NodeId>::max();

// Bits of Node::types; `integer` is checked separately because every integer is a number.
enum TypeBit : std::uint8_t {
    k_type_null = 1 << 0,
    k_type_boolean = 1 << 1,
    k_type_object = 1 << 2,
    k_type_array = 1 << 3,
    k_type_number = 1 << 4,
    k_type_string = 1 << 5,
    k_type_integer = 1 << 6,
    k_any_type = 0x7f,
};

struct PropertyEntry {
    std::string_view name;
    NodeId node = k_no_node;
    PackedName packed;
};

// `properties` as an open-addressing hash table: looking a member up costs one hash of its
// packed name and usually one comparison of two words.
class PropertyTable {
public:
    bool empty() const { return m_entries.empty(); }
    std::size_t size() const { return m_entries.size(); }
    const PropertyEntry& entry(std::size_t index) const { return m_entries[index]; }

    // The property names, in the schema's order: what an unexpected name is compared with.
    std::vector<std::string> names() const {
        std::vector<std::string> names;
        names.reserve(m_entries.size());
        for (const auto& entry : m_entries) {
            names.emplace_back(entry.name);
        }
        return names;
    }

    void add(std::string_view name, NodeId node) {
        m_entries.push_back({name, node, PackedName::of(name)});
        std::size_t capacity = 4;
        while (capacity < m_entries.size() * 2) {
            capacity *= 2;
        }
        m_slots.assign(capacity, 0);
        for (std::uint32_t i = 0; i < m_entries.size(); ++i) {
            std::size_t slot = m_entries[i].packed.hash() & (capacity - 1);
            while (m_slots[slot] != 0) {
                slot = (slot + 1) & (capacity - 1);
            }
            m_slots[slot] = i + 1;
        }
    }

    const PropertyEntry* find(std::string_view name) const {
        if (m_entries.empty()) {
            return nullptr;
        }
        PackedName packed = PackedName::of(name);
        std::size_t mask = m_slots.size() - 1;
        for (std::size_t slot = packed.hash() & mask; m_slots[slot] != 0;
             slot = (slot + 1) & mask) {
            const PropertyEntry& entry = m_entries[m_slots[slot] - 1];
            if (entry.packed.same_words(packed) &&
                (packed.size <= PackedName::k_exact_size || entry.name == name)) {
                return &entry;
            }
        }
        return nullptr;
    }

    // The same, trying the entry at `guess` first: an object's members usually come in the
    // schema's order, so a caller passes the index after the entry it found last.
    const PropertyEntry* find(std::string_view name, std::size_t guess) const {
        if (guess < m_entries.size() && m_entries[guess].name == name) {
            return &m_entries[guess];
        }
        return find(name);
    }
    std::size_t index_of(const PropertyEntry& entry) const {
        return static_cast<std::size_t>(&entry - m_entries.data());
    }

private:
    std::vector<PropertyEntry> m_entries;
    std::vector<std::uint32_t> m_slots;  // entry index + 1; 0 marks an empty slot
};

struct PatternPropertyEntry {
    std::size_t pattern = 0;  // index into SchemaData::patterns
    NodeId node = k_no_node;
};

struct DependencyEntry {
    std::string_view name;
    std::vector<std::string_view> required;  // array form
    NodeId node = k_no_node;                 // schema form
};

struct NumberLimits {
    std::optional<double> minimum;
    std::optional<double> maximum;
    std::optional<double> exclusive_minimum;
    std::optional<double> exclusive_maximum;
    const rapidjson::Value* multiple_of = nullptr;
};

struct StringLimits {
    std::optional<std::size_t> min_length;
    std::optional<std::size_t> max_length;
    std::optional<std::size_t> pattern;  // index into SchemaData::patterns
    Format format = Format::none;
    FormatOptions format_options;
};

struct ArrayLimits {
    std::optional<std::size_t> min_items;
    std::optional<std::size_t> max_items;
    bool unique_items = false;
    NodeId items = k_no_node;         // `items` as one schema for every element
    std::vector<NodeId> tuple_items;  // `items` as an array of schemas
    bool has_tuple_items = false;
    NodeId additional_items = k_no_node;
    NodeId contains = k_no_node;
};

struct ObjectLimits {
    std::optional<std::size_t> min_properties;
    std::optional<std::size_t> max_properties;
    std::vector<std::string_view> required;
    PropertyTable properties;
    std::vector<PatternPropertyEntry> pattern_properties;
    NodeId additional_properties = k_no_node;
    std::vector<DependencyEntry> dependencies;
    NodeId property_names = k_no_node;

    bool visits_members() const {
        return !properties.empty() || !pattern_properties.empty() ||
               additional_properties != k_no_node || property_names != k_no_node;
    }
};

// Bits of Node::checks: which keyword groups a node has, so that a leaf such as
// {"type": "string"} is done after its type check.
enum CheckBit : std::uint8_t {
    k_check_const = 1 << 0,
    k_check_enum = 1 << 1,
    k_check_number = 1 << 2,
    k_check_string = 1 << 3,
    k_check_array = 1 << 4,
    k_check_object = 1 << 5,
    k_check_logic = 1 << 6,
};

// A schema that is exactly {"properties": {name: {"const": value}}}, the `if` of a
// discriminated allOf: it holds unless the instance is an object whose member `name` differs
// from `value`.
struct PropertyConst {
    std::string_view name;
    const rapidjson::Value* value = nullptr;
};

// An allOf whose every branch is {"if": {"properties": {key: {"const": value}}}, "then": ...} with
// one key, as the AirbyteMessage schema has one per message type: only the branches whose value
// the instance's member equals need their `then` (when the instance is an object with that key).
struct DiscriminatedAllOf {
    std::string_view key;
    std::vector<const rapidjson::Value*> values;  // per allOf branch
    std::vector<NodeId> then_nodes;               // per allOf branch; k_no_node for none
};

// One compiled schema object or boolean schema. Children are indexes into SchemaData::nodes.
struct Node {
    bool always_false = false;  // the boolean schema `false`
    NodeId ref = k_no_node;     // `$ref`; in draft-07 it makes every sibling keyword ignored
    std::uint8_t types = k_any_type;
    std::uint8_t checks = 0;  // CheckBit set, filled in when the node is complete

    const rapidjson::Value* const_value = nullptr;
    std::vector<const rapidjson::Value*> enum_values;
    bool has_enum = false;

    std::unique_ptr<NumberLimits> number;  // null when no numeric keyword is present
    std::unique_ptr<StringLimits> string;
    std::unique_ptr<ArrayLimits> array;
    std::unique_ptr<ObjectLimits> object;

    std::vector<NodeId> all_of;
    std::vector<NodeId> any_of;
    std::vector<NodeId> one_of;
    NodeId not_node = k_no_node;
    NodeId if_node = k_no_node;
    NodeId then_node = k_no_node;
    NodeId else_node = k_no_node;

    // Shortcuts when validity is all that counts.
    std::optional<PropertyConst> property_const;
    std::unique_ptr<DiscriminatedAllOf> discriminated_all_of;
};

// Everything a compiled Schema owns: copies of the source documents (enum/const values and
// property names point into them), the nodes and the regexes.
struct SchemaData {
    std::vector<std::unique_ptr<rapidjson::Document>> documents;
    std::vector<Node> nodes;
    std::vector<Regex> patterns;
    NodeId root = k_no_node;
};

}  // namespace conform::schema
