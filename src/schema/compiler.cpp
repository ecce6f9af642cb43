#include "schema/compiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "json/copy.hpp"
#include "schema/uri.hpp"
#include "schema/values.hpp"
#include "util/error.hpp"

namespace conform::schema {

namespace {

constexpr std::string_view k_metaschema_uri = "http://json-schema.org/draft-07/schema";
// Deeper schemas are refused: compiling them recursively could exhaust the stack.
constexpr int k_max_schema_depth = 500;

// Keywords whose value is one schema, an array of schemas, or an object of schemas.
constexpr std::array<std::string_view, 9> k_single_schema_keywords{"additionalItems",
                                                                   "additionalProperties",
                                                                   "contains",
                                                                   "propertyNames",
                                                                   "not",
                                                                   "if",
                                                                   "then",
                                                                   "else",
                                                                   "items"};
constexpr std::array<std::string_view, 4> k_schema_array_keywords{"items", "allOf", "anyOf",
                                                                  "oneOf"};
constexpr std::array<std::string_view, 4> k_schema_map_keywords{"properties", "patternProperties",
                                                                "definitions", "dependencies"};

bool is_schema(const rapidjson::Value& value) {
    return value.IsObject() || value.IsBool();
}

const rapidjson::Value* follow_pointer(const rapidjson::Value& root,
                                       const std::vector<std::string>& tokens) {
    const rapidjson::Value* current = &root;
    for (const std::string& token : tokens) {
        if (current->IsObject()) {
            auto member = current->FindMember(rapidjson::StringRef(token.data(), token.size()));
            if (member == current->MemberEnd()) {
                return nullptr;
            }
            current = &member->value;
        } else if (current->IsArray()) {
            std::size_t index = 0;
            auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), index);
            if (error != std::errc() || end != token.data() + token.size() ||
                index >= current->Size()) {
                return nullptr;
            }
            current = &(*current)[static_cast<rapidjson::SizeType>(index)];
        } else {
            return nullptr;
        }
    }
    return current;
}

// Calls visit(subschema, its path) for each value `schema` holds under a subschema keyword.
template <typename Visit>
void for_each_subschema(const rapidjson::Value& schema, const std::string& path, Visit&& visit) {
    for (std::string_view keyword : k_single_schema_keywords) {
        auto member = schema.FindMember(rapidjson::StringRef(keyword.data(), keyword.size()));
        if (member != schema.MemberEnd()) {
            visit(member->value, pointer_child(path, keyword));
        }
    }
    for (std::string_view keyword : k_schema_array_keywords) {
        auto member = schema.FindMember(rapidjson::StringRef(keyword.data(), keyword.size()));
        if (member != schema.MemberEnd() && member->value.IsArray()) {
            std::string array_path = pointer_child(path, keyword);
            for (rapidjson::SizeType i = 0; i < member->value.Size(); ++i) {
                visit(member->value[i], pointer_child(array_path, std::to_string(i)));
            }
        }
    }
    for (std::string_view keyword : k_schema_map_keywords) {
        auto member = schema.FindMember(rapidjson::StringRef(keyword.data(), keyword.size()));
        if (member != schema.MemberEnd() && member->value.IsObject()) {
            std::string map_path = pointer_child(path, keyword);
            for (const auto& entry : member->value.GetObject()) {
                visit(entry.value, pointer_child(map_path, view_of(entry.name)));
            }
        }
    }
}

[[noreturn]] void throw_too_deep(const std::string& path) {
    throw_input_error(fmt::format("JSON Schema at \"{}\" nests subschemas more than {} levels deep",
                                  path, k_max_schema_depth));
}

// The first name that `object` holds twice, if any.
std::optional<std::string_view> repeated_name(const rapidjson::Value& object) {
    std::vector<std::string_view> names;
    names.reserve(object.MemberCount());
    for (const auto& member : object.GetObject()) {
        names.push_back(view_of(member.name));
    }
    std::sort(names.begin(), names.end());
    auto repeated = std::adjacent_find(names.begin(), names.end());
    return repeated == names.end() ? std::nullopt : std::optional(*repeated);
}

void reject_repeated_name(const rapidjson::Value& object, const std::string& path) {
    if (auto name = repeated_name(object)) {
        throw_input_error(
            fmt::format("JSON Schema at \"{}\" has the member \"{}\" twice: readers "
                        "disagree on which one counts, so its meaning is unclear",
                        path, *name));
    }
}

// Refuses, before the schema is copied, what the compiler cannot read:
// - nesting deeper than the compiler goes: the copy costs hundreds of bytes per level (RapidJSON
//   reserves 16 members per object), a million levels a GB;
// - a schema, or a map of subschemas ("properties", ...), that repeats a name: the compiler
//   would see one of the two values and the reader of the schema may mean the other.
void reject_unreadable(const rapidjson::Value& schema, const std::string& path, int depth) {
    if (!schema.IsObject()) {
        return;
    }
    if (depth >= k_max_schema_depth) {
        throw_too_deep(path);
    }
    reject_repeated_name(schema, path);
    for (std::string_view keyword : k_schema_map_keywords) {
        auto member = schema.FindMember(rapidjson::StringRef(keyword.data(), keyword.size()));
        if (member != schema.MemberEnd() && member->value.IsObject()) {
            reject_repeated_name(member->value, pointer_child(path, keyword));
        }
    }
    for_each_subschema(schema, path,
                       [depth](const rapidjson::Value& child, const std::string& child_path) {
                           reject_unreadable(child, child_path, depth + 1);
                       });
}

// Adds the edges along which evaluation stays on the same instance.
void add_in_place_edges(const Node& node, std::vector<NodeId>& edges) {
    edges.clear();
    for (NodeId id : {node.ref, node.not_node, node.if_node, node.then_node, node.else_node}) {
        if (id != k_no_node) {
            edges.push_back(id);
        }
    }
    for (const auto* list : {&node.all_of, &node.any_of, &node.one_of}) {
        edges.insert(edges.end(), list->begin(), list->end());
    }
    if (node.object) {
        for (const DependencyEntry& dependency : node.object->dependencies) {
            if (dependency.node != k_no_node) {
                edges.push_back(dependency.node);
            }
        }
    }
}

}  // namespace

SchemaData compile_schema(const rapidjson::Value& document, const DocumentLookup& lookup) {
    SchemaData data;
    Compiler compiler(data, lookup);
    compiler.compile_root(document);
    return data;
}

void Compiler::compile_root(const rapidjson::Value& document) {
    const rapidjson::Value& root = add_document(document, "");
    m_data.root = compile_child(root, "#");
    resolve_pending_refs();
    reject_in_place_cycles();
}

const rapidjson::Value& Compiler::add_document(const rapidjson::Value& source,
                                               const std::string& uri) {
    reject_unreadable(source, uri + "#", 0);
    auto& document = m_data.documents.emplace_back(std::make_unique<rapidjson::Document>());
    // Not CopyFrom: it recurses once per nesting level, and a hostile spec can nest a million.
    static_cast<rapidjson::Value&>(*document) = json::copy_value(source, document->GetAllocator());
    m_resources.emplace(uri, document.get());
    index(*document, uri, uri + "#");
    return *document;
}

// Records the base URI and location of `schema` and its subschemas, and registers their `$id`s.
void Compiler::index(const rapidjson::Value& schema, std::string base, const std::string& path) {
    if (!is_schema(schema) || m_contexts.contains(&schema)) {
        return;
    }
    if (schema.IsObject()) {
        auto id = schema.FindMember("$id");
        // In draft-07 a `$ref` makes its siblings, `$id` included, be ignored.
        if (id != schema.MemberEnd() && id->value.IsString() && !schema.HasMember("$ref")) {
            std::string resolved = resolve_uri(base, view_of(id->value));
            auto [document, fragment] = split_fragment(resolved);
            base = std::string(document);
            m_resources.emplace(fragment.empty() ? base : resolved, &schema);
        }
    }
    m_contexts.emplace(&schema, Context{base, path});
    if (!schema.IsObject()) {
        return;
    }
    if (m_index_depth >= k_max_schema_depth) {
        throw_too_deep(path);
    }
    ++m_index_depth;
    index_subschemas(schema, base, path);
    --m_index_depth;
}

void Compiler::index_subschemas(const rapidjson::Value& schema, const std::string& base,
                                const std::string& path) {
    for_each_subschema(schema, path,
                       [this, &base](const rapidjson::Value& child, const std::string& child_path) {
                           index(child, base, child_path);
                       });
}

const rapidjson::Value* Compiler::find_resource(const std::string& uri) {
    if (auto found = m_resources.find(uri); found != m_resources.end()) {
        return found->second;
    }
    if (uri == k_metaschema_uri) {
        rapidjson::Document metaschema;
        std::string_view text = draft7_metaschema_text();
        metaschema.Parse(text.data(), text.size());
        return &add_document(metaschema, uri);
    }
    if (m_lookup) {
        if (const rapidjson::Value* remote = m_lookup(uri)) {
            return &add_document(*remote, uri);
        }
    }
    return nullptr;
}

const rapidjson::Value& Compiler::resolve_ref(const PendingRef& ref) {
    auto [document_uri, fragment] = split_fragment(ref.uri);
    std::string document(document_uri);
    const rapidjson::Value* resource = find_resource(document);
    const rapidjson::Value* target = nullptr;
    if (resource && (fragment.empty() || fragment.front() == '/')) {
        auto tokens = parse_json_pointer(percent_decode(fragment));
        target = tokens ? follow_pointer(*resource, *tokens) : nullptr;
        if (target && !m_contexts.contains(target)) {
            const Context& owner = m_contexts.at(resource);
            index(*target, owner.base, owner.path + std::string(fragment));
        }
    } else if (resource) {
        auto anchor = m_resources.find(ref.uri);
        target = anchor == m_resources.end() ? nullptr : anchor->second;
    }
    if (!target) {
        throw_input_error(
            fmt::format("JSON Schema keyword \"$ref\" at \"{}\" names \"{}\", which "
                        "cannot be resolved",
                        ref.path, ref.uri));
    }
    if (!is_schema(*target)) {
        throw_input_error(
            fmt::format("JSON Schema keyword \"$ref\" at \"{}\" names \"{}\", which is no "
                        "schema: a schema is an object or a boolean",
                        ref.path, ref.uri));
    }
    return *target;
}

void Compiler::resolve_pending_refs() {
    while (!m_pending_refs.empty()) {
        PendingRef ref = std::move(m_pending_refs.back());
        m_pending_refs.pop_back();
        NodeId target = compile(resolve_ref(ref));
        m_data.nodes[ref.node].ref = target;
    }
}

// A cycle of `$ref`/`allOf`/`not`/... that never descends into the instance would recurse
// forever at validation time, so it is refused here.
void Compiler::reject_in_place_cycles() const {
    enum class Mark : std::uint8_t { unvisited, active, done };
    std::vector<Mark> marks(m_data.nodes.size(), Mark::unvisited);
    struct Frame {
        NodeId node;
        std::vector<NodeId> edges;
        std::size_t next = 0;
    };
    for (NodeId start = 0; start < m_data.nodes.size(); ++start) {
        if (marks[start] != Mark::unvisited) {
            continue;
        }
        std::vector<Frame> stack;
        stack.push_back({start, {}});
        add_in_place_edges(m_data.nodes[start], stack.back().edges);
        marks[start] = Mark::active;
        while (!stack.empty()) {
            Frame& frame = stack.back();
            if (frame.next == frame.edges.size()) {
                marks[frame.node] = Mark::done;
                stack.pop_back();
                continue;
            }
            NodeId child = frame.edges[frame.next++];
            if (marks[child] == Mark::active) {
                throw_input_error(fmt::format(
                    "JSON Schema at \"{}\" refers to itself (through \"{}\") without descending "
                    "into the instance, so validation would never end",
                    m_node_paths[child], m_node_paths[frame.node]));
            }
            if (marks[child] == Mark::unvisited) {
                marks[child] = Mark::active;
                stack.push_back({child, {}});
                add_in_place_edges(m_data.nodes[child], stack.back().edges);
            }
        }
    }
}

}  // namespace conform::schema
