#pragma once

#include <rapidjson/document.h>

namespace conform::json {

// The value of member `name` of `object`; null when `object` is not an object or lacks it.
inline const rapidjson::Value* member(const rapidjson::Value& object, const char* name) {
    if (!object.IsObject()) {
        return nullptr;
    }
    auto found = object.FindMember(name);
    return found == object.MemberEnd() ? nullptr : &found->value;
}

}  // namespace conform::json
