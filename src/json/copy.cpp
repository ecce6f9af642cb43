#include "json/copy.hpp"

#include <rapidjson/document.h>

#include <utility>
#include <vector>

namespace conform::json {
namespace {

using Work = std::vector<std::pair<rapidjson::Value*, const rapidjson::Value*>>;

rapidjson::Value copy_string(const rapidjson::Value& source, Allocator& allocator) {
    return rapidjson::Value(source.GetString(), source.GetStringLength(), allocator);
}

// Copies scalars at once; a container is left empty of the right type and queued.
rapidjson::Value shallow_copy(const rapidjson::Value& source, Allocator& allocator) {
    if (source.IsString()) {
        return copy_string(source, allocator);
    }
    if (source.IsObject()) {
        return rapidjson::Value(rapidjson::kObjectType);
    }
    if (source.IsArray()) {
        return rapidjson::Value(rapidjson::kArrayType);
    }
    rapidjson::Value copy;
    copy.CopyFrom(source, allocator);
    return copy;
}

bool is_container(const rapidjson::Value& value) {
    return value.IsObject() || value.IsArray();
}

// Fills one container level; children are queued only after the level is complete because
// adding members or elements may move the storage.
void copy_level(rapidjson::Value& target, const rapidjson::Value& source, Work& work,
                Allocator& allocator) {
    if (source.IsObject()) {
        for (const auto& member : source.GetObject()) {
            target.AddMember(copy_string(member.name, allocator),
                             shallow_copy(member.value, allocator), allocator);
        }
        auto copied = target.MemberBegin();
        for (const auto& member : source.GetObject()) {
            if (is_container(member.value)) {
                work.emplace_back(&copied->value, &member.value);
            }
            ++copied;
        }
        return;
    }
    target.Reserve(source.Size(), allocator);
    for (const auto& element : source.GetArray()) {
        target.PushBack(shallow_copy(element, allocator), allocator);
    }
    for (rapidjson::SizeType i = 0; i < source.Size(); ++i) {
        if (is_container(source[i])) {
            work.emplace_back(&target[i], &source[i]);
        }
    }
}

}  // namespace

rapidjson::Value copy_value(const rapidjson::Value& source, Allocator& allocator) {
    rapidjson::Value root = shallow_copy(source, allocator);
    if (!is_container(source)) {
        return root;
    }
    Work work{{&root, &source}};
    while (!work.empty()) {
        auto [target, level_source] = work.back();
        work.pop_back();
        copy_level(*target, *level_source, work, allocator);
    }
    return root;
}

}  // namespace conform::json
