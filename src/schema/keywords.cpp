// Compiles the keywords of one schema object into a Node.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "schema/compiler.hpp"
#include "schema/uri.hpp"
#include "schema/values.hpp"
#include "util/error.hpp"

namespace conform::schema {

namespace {

constexpr std::array<std::pair<std::string_view, std::uint8_t>, 7> k_type_names{{
    {"null", k_type_null},
    {"boolean", k_type_boolean},
    {"object", k_type_object},
    {"array", k_type_array},
    {"number", k_type_number},
    {"string", k_type_string},
    {"integer", k_type_integer},
}};

constexpr std::array<std::string_view, 5> k_number_keywords{"multipleOf", "maximum", "minimum",
                                                            "exclusiveMaximum", "exclusiveMinimum"};
constexpr std::array<std::string_view, 4> k_string_keywords{"maxLength", "minLength", "pattern",
                                                            "format"};
constexpr std::array<std::string_view, 6> k_array_keywords{
    "items", "additionalItems", "maxItems", "minItems", "uniqueItems", "contains"};
constexpr std::array<std::string_view, 8> k_object_keywords{
    "maxProperties",     "minProperties",        "required",     "properties",
    "patternProperties", "additionalProperties", "dependencies", "propertyNames"};
constexpr std::array<std::string_view, 7> k_logic_keywords{"allOf", "anyOf", "oneOf", "not",
                                                           "if",    "then",  "else"};

template <std::size_t N>
bool is_one_of(std::string_view keyword, const std::array<std::string_view, N>& keywords) {
    return std::find(keywords.begin(), keywords.end(), keyword) != keywords.end();
}

[[noreturn]] void keyword_error(const std::string& path, std::string_view keyword,
                                std::string_view problem) {
    throw_input_error(fmt::format("JSON Schema keyword \"{}\" at \"{}\" {}", keyword,
                                  pointer_child(path, keyword), problem));
}

std::size_t non_negative_integer(const rapidjson::Value& value, const std::string& path,
                                 std::string_view keyword) {
    if (value.IsUint64()) {
        return static_cast<std::size_t>(value.GetUint64());
    }
    constexpr double k_largest_count = 1e18;
    if (value.IsDouble() && value.GetDouble() >= 0 && value.GetDouble() < k_largest_count &&
        std::floor(value.GetDouble()) == value.GetDouble()) {
        return static_cast<std::size_t>(value.GetDouble());
    }
    keyword_error(path, keyword, "must be a non-negative integer");
}

double number(const rapidjson::Value& value, const std::string& path, std::string_view keyword) {
    if (!value.IsNumber()) {
        keyword_error(path, keyword, "must be a number");
    }
    return value.GetDouble();
}

std::uint8_t type_bit(const rapidjson::Value& name, const std::string& path) {
    if (name.IsString()) {
        for (const auto& [type_name, bit] : k_type_names) {
            if (type_name == view_of(name)) {
                return bit;
            }
        }
    }
    keyword_error(path, "type",
                  "must be one of null, boolean, object, array, number, string, integer, or an "
                  "array of them");
}

FormatOptions airbyte_format_options(Format format, const rapidjson::Value& schema) {
    auto airbyte_type = schema.FindMember("airbyte_type");
    if (airbyte_type == schema.MemberEnd() || !airbyte_type->value.IsString()) {
        return {};
    }
    std::string_view type = view_of(airbyte_type->value);
    return {.offset_optional =
                (format == Format::date_time && type == "timestamp_without_timezone") ||
                (format == Format::time && type == "time_without_timezone")};
}

std::uint8_t summarize_checks(const Node& node) {
    std::uint8_t checks = 0;
    auto mark = [&](bool present, CheckBit bit) {
        if (present) {
            checks |= bit;
        }
    };
    mark(node.const_value != nullptr, k_check_const);
    mark(node.has_enum, k_check_enum);
    mark(node.number != nullptr, k_check_number);
    mark(node.string != nullptr, k_check_string);
    mark(node.array != nullptr, k_check_array);
    mark(node.object != nullptr, k_check_object);
    mark(!node.all_of.empty() || !node.any_of.empty() || !node.one_of.empty() ||
             node.not_node != k_no_node || node.if_node != k_no_node,
         k_check_logic);
    return checks;
}

// A schema object without `type` or `$ref`: what it checks is in Node::checks alone.
bool untyped_keywords_only(const Node& node) {
    return !node.always_false && node.ref == k_no_node && node.types == k_any_type;
}

// The node's PropertyConst, when its only keyword is `properties` with one property whose only
// keyword is `const`.
std::optional<PropertyConst> property_const_of(const Node& node, const std::vector<Node>& nodes) {
    if (!untyped_keywords_only(node) || node.checks != k_check_object) {
        return std::nullopt;
    }
    const ObjectLimits& limits = *node.object;
    if (limits.min_properties || limits.max_properties || !limits.required.empty() ||
        !limits.pattern_properties.empty() || limits.additional_properties != k_no_node ||
        !limits.dependencies.empty() || limits.property_names != k_no_node ||
        limits.properties.size() != 1) {
        return std::nullopt;
    }
    const PropertyEntry& property = limits.properties.entry(0);
    const Node& child = nodes[property.node];
    if (!untyped_keywords_only(child) || child.checks != k_check_const) {
        return std::nullopt;
    }
    return PropertyConst{property.name, child.const_value};
}

// A branch {"if": <PropertyConst>, "then": ...} and nothing else: its PropertyConst.
const PropertyConst* conditional_branch_test(const Node& branch, const std::vector<Node>& nodes) {
    if (!untyped_keywords_only(branch) || branch.checks != k_check_logic ||
        !branch.all_of.empty() || !branch.any_of.empty() || !branch.one_of.empty() ||
        branch.not_node != k_no_node || branch.else_node != k_no_node ||
        branch.if_node == k_no_node) {
        return nullptr;
    }
    const auto& test = nodes[branch.if_node].property_const;
    return test ? &*test : nullptr;
}

std::unique_ptr<DiscriminatedAllOf> discriminated_all_of(const Node& node,
                                                         const std::vector<Node>& nodes) {
    if (node.all_of.size() < 2) {
        return nullptr;
    }
    auto discriminated = std::make_unique<DiscriminatedAllOf>();
    for (NodeId id : node.all_of) {
        const PropertyConst* test = conditional_branch_test(nodes[id], nodes);
        if (test == nullptr ||
            (!discriminated->values.empty() && test->name != discriminated->key)) {
            return nullptr;
        }
        discriminated->key = test->name;
        discriminated->values.push_back(test->value);
        discriminated->then_nodes.push_back(nodes[id].then_node);
    }
    return discriminated;
}

}  // namespace

NodeId Compiler::compile_child(const rapidjson::Value& schema, const std::string& path) {
    if (!schema.IsObject() && !schema.IsBool()) {
        throw_input_error(
            fmt::format("JSON Schema at \"{}\" must be an object or a boolean", path));
    }
    return compile(schema);
}

NodeId Compiler::compile(const rapidjson::Value& schema) {
    if (auto found = m_compiled.find(&schema); found != m_compiled.end()) {
        return found->second;
    }
    const Context& context = m_contexts.at(&schema);
    auto id = static_cast<NodeId>(m_data.nodes.size());
    m_data.nodes.emplace_back();
    m_node_paths.push_back(context.path);
    m_compiled.emplace(&schema, id);
    if (schema.IsBool()) {
        m_data.nodes[id].always_false = !schema.GetBool();
        return id;
    }
    if (auto ref = schema.FindMember("$ref"); ref != schema.MemberEnd()) {
        if (!ref->value.IsString()) {
            keyword_error(context.path, "$ref", "must be a string");
        }
        m_pending_refs.push_back({id, resolve_uri(context.base, view_of(ref->value)),
                                  pointer_child(context.path, "$ref")});
        return id;
    }
    // Children are appended to m_data.nodes while this node is built, so build it aside.
    Node node;
    for (const auto& member : schema.GetObject()) {
        compile_keyword(view_of(member.name), member.value, schema, node, context.path);
    }
    node.checks = summarize_checks(node);
    node.property_const = property_const_of(node, m_data.nodes);
    node.discriminated_all_of = discriminated_all_of(node, m_data.nodes);
    m_data.nodes[id] = std::move(node);
    return id;
}

void Compiler::compile_keyword(std::string_view keyword, const rapidjson::Value& value,
                               const rapidjson::Value& schema, Node& node,
                               const std::string& path) {
    if (keyword == "type") {
        compile_type(value, node, path);
    } else if (keyword == "enum") {
        if (!value.IsArray()) {
            keyword_error(path, keyword, "must be an array");
        }
        node.has_enum = true;
        for (const auto& element : value.GetArray()) {
            node.enum_values.push_back(&element);
        }
    } else if (keyword == "const") {
        node.const_value = &value;
    } else if (is_one_of(keyword, k_number_keywords)) {
        compile_number_keyword(keyword, value, node, path);
    } else if (is_one_of(keyword, k_string_keywords)) {
        compile_string_keyword(keyword, value, schema, node, path);
    } else if (is_one_of(keyword, k_array_keywords)) {
        compile_array_keyword(keyword, value, node, path);
    } else if (is_one_of(keyword, k_object_keywords)) {
        compile_object_keyword(keyword, value, node, path);
    } else if (is_one_of(keyword, k_logic_keywords)) {
        compile_logic_keyword(keyword, value, node, path);
    } else if (keyword == "definitions") {
        if (!value.IsObject()) {
            keyword_error(path, keyword, "must be an object");
        }
        // Compiled although only `$ref`s use them, so that a broken definition is reported.
        std::string definitions_path = pointer_child(path, keyword);
        for (const auto& entry : value.GetObject()) {
            compile_child(entry.value, pointer_child(definitions_path, view_of(entry.name)));
        }
    } else if (keyword == "$id" && !value.IsString()) {
        keyword_error(path, keyword, "must be a string");
    }
}

void Compiler::compile_type(const rapidjson::Value& value, Node& node, const std::string& path) {
    if (value.IsArray()) {
        node.types = 0;
        for (const auto& name : value.GetArray()) {
            node.types |= type_bit(name, path);
        }
    } else {
        node.types = type_bit(value, path);
    }
}

void Compiler::compile_number_keyword(std::string_view keyword, const rapidjson::Value& value,
                                      Node& node, const std::string& path) {
    if (!node.number) {
        node.number = std::make_unique<NumberLimits>();
    }
    NumberLimits& limits = *node.number;
    double limit = number(value, path, keyword);
    if (keyword == "multipleOf") {
        if (limit <= 0) {
            keyword_error(path, keyword, "must be greater than 0");
        }
        limits.multiple_of = &value;
    } else if (keyword == "maximum") {
        limits.maximum = limit;
    } else if (keyword == "minimum") {
        limits.minimum = limit;
    } else if (keyword == "exclusiveMaximum") {
        limits.exclusive_maximum = limit;
    } else {
        limits.exclusive_minimum = limit;
    }
}

void Compiler::compile_string_keyword(std::string_view keyword, const rapidjson::Value& value,
                                      const rapidjson::Value& schema, Node& node,
                                      const std::string& path) {
    if (!node.string) {
        node.string = std::make_unique<StringLimits>();
    }
    StringLimits& limits = *node.string;
    if (keyword == "maxLength") {
        limits.max_length = non_negative_integer(value, path, keyword);
    } else if (keyword == "minLength") {
        limits.min_length = non_negative_integer(value, path, keyword);
    } else if (keyword == "pattern") {
        limits.pattern = compile_pattern(value, pointer_child(path, keyword));
    } else {
        if (!value.IsString()) {
            keyword_error(path, keyword, "must be a string");
        }
        limits.format = format_from_name(view_of(value));
        limits.format_options = airbyte_format_options(limits.format, schema);
    }
}

void Compiler::compile_array_keyword(std::string_view keyword, const rapidjson::Value& value,
                                     Node& node, const std::string& path) {
    if (!node.array) {
        node.array = std::make_unique<ArrayLimits>();
    }
    ArrayLimits& limits = *node.array;
    std::string keyword_path = pointer_child(path, keyword);
    if (keyword == "items") {
        if (value.IsArray()) {
            limits.has_tuple_items = true;
            for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
                limits.tuple_items.push_back(
                    compile_child(value[i], pointer_child(keyword_path, std::to_string(i))));
            }
        } else {
            limits.items = compile_child(value, keyword_path);
        }
    } else if (keyword == "additionalItems") {
        limits.additional_items = compile_child(value, keyword_path);
    } else if (keyword == "maxItems") {
        limits.max_items = non_negative_integer(value, path, keyword);
    } else if (keyword == "minItems") {
        limits.min_items = non_negative_integer(value, path, keyword);
    } else if (keyword == "uniqueItems") {
        if (!value.IsBool()) {
            keyword_error(path, keyword, "must be a boolean");
        }
        limits.unique_items = value.GetBool();
    } else {
        limits.contains = compile_child(value, keyword_path);
    }
}

void Compiler::compile_object_keyword(std::string_view keyword, const rapidjson::Value& value,
                                      Node& node, const std::string& path) {
    if (!node.object) {
        node.object = std::make_unique<ObjectLimits>();
    }
    ObjectLimits& limits = *node.object;
    if (keyword == "maxProperties") {
        limits.max_properties = non_negative_integer(value, path, keyword);
    } else if (keyword == "minProperties") {
        limits.min_properties = non_negative_integer(value, path, keyword);
    } else if (keyword == "required") {
        if (!value.IsArray() || !std::all_of(value.Begin(), value.End(),
                                             [](const auto& name) { return name.IsString(); })) {
            keyword_error(path, keyword, "must be an array of strings");
        }
        for (const auto& name : value.GetArray()) {
            limits.required.push_back(view_of(name));
        }
    } else if (keyword == "properties") {
        compile_properties(value, node, path);
    } else if (keyword == "patternProperties") {
        compile_pattern_properties(value, node, path);
    } else if (keyword == "additionalProperties") {
        limits.additional_properties = compile_child(value, pointer_child(path, keyword));
    } else if (keyword == "dependencies") {
        compile_dependencies(value, node, path);
    } else {
        limits.property_names = compile_child(value, pointer_child(path, keyword));
    }
}

void Compiler::compile_properties(const rapidjson::Value& value, Node& node,
                                  const std::string& path) {
    if (!value.IsObject()) {
        keyword_error(path, "properties", "must be an object");
    }
    std::string keyword_path = pointer_child(path, "properties");
    for (const auto& entry : value.GetObject()) {
        NodeId child = compile_child(entry.value, pointer_child(keyword_path, view_of(entry.name)));
        node.object->properties.add(view_of(entry.name), child);
    }
}

void Compiler::compile_pattern_properties(const rapidjson::Value& value, Node& node,
                                          const std::string& path) {
    if (!value.IsObject()) {
        keyword_error(path, "patternProperties", "must be an object");
    }
    std::string keyword_path = pointer_child(path, "patternProperties");
    for (const auto& entry : value.GetObject()) {
        std::string entry_path = pointer_child(keyword_path, view_of(entry.name));
        std::size_t pattern = compile_pattern(entry.name, entry_path);
        node.object->pattern_properties.push_back(
            {pattern, compile_child(entry.value, entry_path)});
    }
}

void Compiler::compile_dependencies(const rapidjson::Value& value, Node& node,
                                    const std::string& path) {
    if (!value.IsObject()) {
        keyword_error(path, "dependencies", "must be an object");
    }
    std::string keyword_path = pointer_child(path, "dependencies");
    for (const auto& entry : value.GetObject()) {
        DependencyEntry dependency{view_of(entry.name), {}, k_no_node};
        std::string entry_path = pointer_child(keyword_path, view_of(entry.name));
        if (entry.value.IsArray()) {
            for (const auto& name : entry.value.GetArray()) {
                if (!name.IsString()) {
                    throw_input_error(
                        fmt::format("JSON Schema at \"{}\" must be a schema or an array of strings",
                                    entry_path));
                }
                dependency.required.push_back(view_of(name));
            }
        } else {
            dependency.node = compile_child(entry.value, entry_path);
        }
        node.object->dependencies.push_back(std::move(dependency));
    }
}

void Compiler::compile_logic_keyword(std::string_view keyword, const rapidjson::Value& value,
                                     Node& node, const std::string& path) {
    std::string keyword_path = pointer_child(path, keyword);
    if (keyword == "allOf") {
        node.all_of = compile_schema_array(value, keyword_path);
    } else if (keyword == "anyOf") {
        node.any_of = compile_schema_array(value, keyword_path);
    } else if (keyword == "oneOf") {
        node.one_of = compile_schema_array(value, keyword_path);
    } else if (keyword == "not") {
        node.not_node = compile_child(value, keyword_path);
    } else if (keyword == "if") {
        node.if_node = compile_child(value, keyword_path);
    } else if (keyword == "then") {
        node.then_node = compile_child(value, keyword_path);
    } else {
        node.else_node = compile_child(value, keyword_path);
    }
}

std::vector<NodeId> Compiler::compile_schema_array(const rapidjson::Value& value,
                                                   const std::string& path) {
    if (!value.IsArray() || value.Empty()) {
        throw_input_error(fmt::format(
            "JSON Schema keyword at \"{}\" must be a non-empty array of schemas", path));
    }
    std::vector<NodeId> nodes;
    for (rapidjson::SizeType i = 0; i < value.Size(); ++i) {
        nodes.push_back(compile_child(value[i], pointer_child(path, std::to_string(i))));
    }
    return nodes;
}

std::size_t Compiler::compile_pattern(const rapidjson::Value& value, const std::string& path) {
    if (!value.IsString()) {
        throw_input_error(fmt::format("JSON Schema pattern at \"{}\" must be a string", path));
    }
    std::string source(view_of(value));
    try {
        m_data.patterns.emplace_back(source);
    } catch (const RegexError& error) {
        throw_input_error(fmt::format(
            "JSON Schema pattern \"{}\" at \"{}\" is not a regular expression conform supports "
            "(ECMA-262 syntax, run by PCRE2): {}",
            source, path, error.what()));
    }
    return m_data.patterns.size() - 1;
}

}  // namespace conform::schema
