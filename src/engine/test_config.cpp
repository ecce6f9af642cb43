#include "engine/test_config.hpp"

#include <cstdint>

namespace conform::engine {

std::chrono::milliseconds seconds_or(const rapidjson::Value& object, const char* name,
                                     std::chrono::milliseconds fallback) {
    if (!object.IsObject() || !object.HasMember(name)) {
        return fallback;
    }
    return std::chrono::milliseconds(static_cast<std::int64_t>(object[name].GetDouble() * 1000));
}

std::vector<std::string> strings_of(const rapidjson::Value& object, const char* name) {
    std::vector<std::string> out;
    if (object.HasMember(name)) {
        for (const auto& item : object[name].GetArray()) {
            out.emplace_back(item.GetString());
        }
    }
    return out;
}

}  // namespace conform::engine
