#include "engine/scenarios.hpp"

#include <rapidjson/document.h>

#include <fstream>
#include <iterator>

namespace conform::engine {

bool declares_protocol(const std::filesystem::path& path, std::string_view protocol) {
    if (path.empty()) {
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return false;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    rapidjson::Document document;
    document.Parse<rapidjson::kParseCommentsFlag | rapidjson::kParseTrailingCommasFlag>(
        text.c_str(), text.size());
    if (document.HasParseError() || !document.IsObject()) {
        return false;
    }
    auto it = document.FindMember("protocol");
    return it != document.MemberEnd() && it->value.IsString() &&
           std::string_view(it->value.GetString()) == protocol;
}

}  // namespace conform::engine
