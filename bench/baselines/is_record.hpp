// What the parse floors count: a message whose type is RECORD. Shared by the floors in this
// folder, each compiled on its own (run.sh).
#pragma once

#include <cstring>

#include <rapidjson/document.h>

inline bool is_record(const rapidjson::Document& message) {
    if (!message.IsObject()) {
        return false;
    }
    const auto type = message.FindMember("type");
    return type != message.MemberEnd() && type->value.IsString() &&
           std::strcmp(type->value.GetString(), "RECORD") == 0;
}
