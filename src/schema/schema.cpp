#include "schema/schema.hpp"

#include <fmt/format.h>

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include "schema/compiled.hpp"
#include "schema/compiler.hpp"
#include "schema/evaluator.hpp"
#include "util/error.hpp"

namespace conform::schema {

struct Schema::Impl {
    SchemaData data;
};

Schema::Schema(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
Schema::Schema(Schema&&) noexcept = default;
Schema& Schema::operator=(Schema&&) noexcept = default;
Schema::~Schema() = default;

Schema Schema::compile(const rapidjson::Value& document, const DocumentLookup& lookup) {
    auto impl = std::make_unique<Impl>();
    impl->data = compile_schema(document, lookup);
    return Schema(std::move(impl));
}

Schema Schema::compile_text(std::string_view json_text, const DocumentLookup& lookup) {
    rapidjson::Document document;
    document.Parse<rapidjson::kParseIterativeFlag>(json_text.data(), json_text.size());
    if (document.HasParseError()) {
        throw_input_error(fmt::format("JSON Schema is not valid JSON: {} (at byte {})",
                                      rapidjson::GetParseError_En(document.GetParseError()),
                                      document.GetErrorOffset()));
    }
    return compile(document, lookup);
}

bool Schema::validate(const rapidjson::Value& instance, std::vector<Violation>* out,
                      std::size_t max_violations) const {
    return evaluate(m_impl->data, instance, out, max_violations);
}

const Schema& draft7_metaschema() {
    static const Schema metaschema = Schema::compile_text(draft7_metaschema_text());
    return metaschema;
}

}  // namespace conform::schema
