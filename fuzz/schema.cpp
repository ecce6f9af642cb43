// Fuzz target: a JSON Schema (first line) compiled, and an instance (the rest) validated.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fuzz_input.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto [schema_text, instance_text] =
        conform::fuzz::split_first_line(conform::fuzz::as_text(data, size));
    try {
        auto schema = conform::schema::Schema::compile_text(schema_text);
        rapidjson::Document instance;
        instance.Parse<rapidjson::kParseIterativeFlag>(instance_text.data(), instance_text.size());
        if (instance.HasParseError()) {
            return 0;
        }
        std::vector<conform::schema::Violation> violations;
        bool valid = schema.validate(instance);
        bool collected = schema.validate(instance, &violations);
        if (valid != collected || (!valid && violations.empty())) {
            __builtin_trap();  // the two passes must agree, and invalid means a violation
        }
    } catch (const conform::Error&) {
        // A schema conform refuses: the documented outcome.
    }
    return 0;
}
