#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/fwd.h>

namespace conform::schema {

// One reason an instance failed validation.
struct Violation {
    std::string instance_path;  // JSON pointer into the instance; "" is the root
    std::string keyword_path;   // evaluation path in the schema, e.g. "/properties/a/type"
    std::string message;        // e.g. "expected integer, got string"
};

// Looks up a schema document by absolute URI (without fragment) for a `$ref` that leaves the
// compiled document. Returns nullptr when unknown. Only called during compile; the returned
// value is copied. conform never fetches schemas over the network.
using DocumentLookup = std::function<const rapidjson::Value*(std::string_view uri)>;

// A JSON Schema draft-07 schema compiled for fast repeated validation. Immutable after compile
// and independent of the source document; `validate` may be called from several threads.
class Schema {
public:
    // Compiles a draft-07 schema (object or boolean). `$ref`s to other documents are resolved
    // through `lookup`, except the draft-07 metaschema, which is built in. Throws
    // conform::Error(input) naming the keyword and its schema path when the schema is unusable
    // (wrong keyword value type, invalid regex, unresolvable `$ref`, `$ref` cycle that does
    // not consume the instance, subschemas nested more than 500 levels deep).
    static Schema compile(const rapidjson::Value& document, const DocumentLookup& lookup = {});

    // Parses `json_text` and compiles it; invalid JSON throws conform::Error(input).
    static Schema compile_text(std::string_view json_text, const DocumentLookup& lookup = {});

    // Returns true when `instance` is valid. When `out` is given, appends at most
    // `max_violations` violations to it; messages are only built in that case.
    bool validate(const rapidjson::Value& instance, std::vector<Violation>* out = nullptr,
                  std::size_t max_violations = 8) const;

    Schema(Schema&&) noexcept;
    Schema& operator=(Schema&&) noexcept;
    ~Schema();

private:
    struct Impl;
    explicit Schema(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

// The draft-07 metaschema, compiled on first use (thread-safe).
const Schema& draft7_metaschema();

// The draft-07 metaschema as JSON text, embedded at build time.
std::string_view draft7_metaschema_text();

}  // namespace conform::schema
