#include "protocol/schemas.hpp"

#include <rapidjson/document.h>

#include <cstdint>
#include <string_view>

#include "resources/resources.hpp"
#include "schema/schema.hpp"

namespace conform::protocol {

namespace {

std::string_view name_of(const rapidjson::Value& member_name) {
    return {member_name.GetString(), member_name.GetStringLength()};
}

bool is_plain_record_body(const rapidjson::Value& record) {
    constexpr unsigned k_stream = 1U;
    constexpr unsigned k_data = 2U;
    constexpr unsigned k_emitted_at = 4U;
    constexpr unsigned k_namespace = 8U;
    unsigned seen = 0;
    for (const auto& member : record.GetObject()) {
        std::string_view name = name_of(member.name);
        const auto& value = member.value;
        unsigned bit = 0;
        bool fits = false;
        if (name == "stream") {
            bit = k_stream;
            fits = value.IsString();
        } else if (name == "data") {
            bit = k_data;
            fits = value.IsObject();
        } else if (name == "emitted_at") {
            // Integers only as the parser stores them: 1.0 and the like go to the schema.
            bit = k_emitted_at;
            fits = value.IsInt64() || value.IsUint64();
        } else if (name == "namespace") {
            bit = k_namespace;
            fits = value.IsString() || value.IsNull();
        }
        if (!fits || (seen & bit) != 0) {
            return false;
        }
        seen |= bit;
    }
    return (seen & (k_stream | k_data | k_emitted_at)) == (k_stream | k_data | k_emitted_at);
}

}  // namespace

const schema::Schema& airbyte_message_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("airbyte_message.schema.json"));
    return k_schema;
}

bool is_plain_valid_record(const rapidjson::Value& message) {
    if (!message.IsObject() || message.MemberCount() != 2) {
        return false;
    }
    const rapidjson::Value* type = nullptr;
    const rapidjson::Value* record = nullptr;
    for (const auto& member : message.GetObject()) {
        std::string_view name = name_of(member.name);
        if (name == "type" && type == nullptr) {
            type = &member.value;
        } else if (name == "record" && record == nullptr) {
            record = &member.value;
        }
    }
    return type != nullptr && record != nullptr && type->IsString() && name_of(*type) == "RECORD" &&
           record->IsObject() && is_plain_record_body(*record);
}

}  // namespace conform::protocol
