#pragma once

// Internal: turns a draft-07 schema document into SchemaData.

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <rapidjson/document.h>

#include "schema/compiled.hpp"
#include "schema/schema.hpp"

namespace conform::schema {

// Compiles `document` and every schema it references; throws conform::Error(input).
SchemaData compile_schema(const rapidjson::Value& document, const DocumentLookup& lookup);

class Compiler {
public:
    Compiler(SchemaData& data, const DocumentLookup& lookup) : m_data(data), m_lookup(lookup) {}

    void compile_root(const rapidjson::Value& document);

private:
    // Where a schema value sits: the base URI for its relative references and its location
    // for error messages.
    struct Context {
        std::string base;
        std::string path;
    };
    struct PendingRef {
        NodeId node;
        std::string uri;
        std::string path;
    };

    // Resources: documents, `$id`s and their base URIs (compiler.cpp).
    const rapidjson::Value& add_document(const rapidjson::Value& source, const std::string& uri);
    void index(const rapidjson::Value& schema, std::string base, const std::string& path);
    void index_subschemas(const rapidjson::Value& schema, const std::string& base,
                          const std::string& path);
    const rapidjson::Value* find_resource(const std::string& uri);
    const rapidjson::Value& resolve_ref(const PendingRef& ref);
    void resolve_pending_refs();
    void reject_in_place_cycles() const;

    // Nodes and keywords (keywords.cpp).
    NodeId compile(const rapidjson::Value& schema);
    NodeId compile_child(const rapidjson::Value& schema, const std::string& path);
    void compile_keyword(std::string_view keyword, const rapidjson::Value& value,
                         const rapidjson::Value& schema, Node& node, const std::string& path);
    void compile_type(const rapidjson::Value& value, Node& node, const std::string& path);
    void compile_number_keyword(std::string_view keyword, const rapidjson::Value& value, Node& node,
                                const std::string& path);
    void compile_string_keyword(std::string_view keyword, const rapidjson::Value& value,
                                const rapidjson::Value& schema, Node& node,
                                const std::string& path);
    void compile_array_keyword(std::string_view keyword, const rapidjson::Value& value, Node& node,
                               const std::string& path);
    void compile_object_keyword(std::string_view keyword, const rapidjson::Value& value, Node& node,
                                const std::string& path);
    void compile_logic_keyword(std::string_view keyword, const rapidjson::Value& value, Node& node,
                               const std::string& path);
    void compile_properties(const rapidjson::Value& value, Node& node, const std::string& path);
    void compile_pattern_properties(const rapidjson::Value& value, Node& node,
                                    const std::string& path);
    void compile_dependencies(const rapidjson::Value& value, Node& node, const std::string& path);
    std::vector<NodeId> compile_schema_array(const rapidjson::Value& value,
                                             const std::string& path);
    std::size_t compile_pattern(const rapidjson::Value& value, const std::string& path);

    SchemaData& m_data;
    const DocumentLookup& m_lookup;
    std::unordered_map<std::string, const rapidjson::Value*> m_resources;
    std::unordered_map<const rapidjson::Value*, Context> m_contexts;
    std::unordered_map<const rapidjson::Value*, NodeId> m_compiled;
    std::vector<std::string> m_node_paths;
    std::vector<PendingRef> m_pending_refs;
    int m_index_depth = 0;
};

}  // namespace conform::schema
