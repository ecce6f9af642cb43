#include "json/merge_patch.hpp"

#include <rapidjson/document.h>

#include <utility>
#include <vector>

#include "json/copy.hpp"

namespace conform::json {
namespace {

using Work = std::vector<std::pair<rapidjson::Value*, const rapidjson::Value*>>;

void erase_members_named(rapidjson::Value& object, const rapidjson::Value& name) {
    for (auto member = object.FindMember(name); member != object.MemberEnd();
         member = object.FindMember(name)) {
        object.EraseMember(member);
    }
}

// Applies one object level of `patch` to `target` and queues the object-valued members for
// merging. All additions and removals at this level happen before any child pointer is taken,
// because they may move the member storage.
void merge_object_level(rapidjson::Value& target, const rapidjson::Value& patch, Work& work,
                        Allocator& allocator) {
    if (!target.IsObject()) {
        target.SetObject();
    }
    bool has_object_members = false;
    for (const auto& member : patch.GetObject()) {
        if (member.value.IsNull()) {
            erase_members_named(target, member.name);
            continue;
        }
        auto existing = target.FindMember(member.name);
        if (member.value.IsObject()) {
            has_object_members = true;
            if (existing == target.MemberEnd()) {
                target.AddMember(copy_value(member.name, allocator),
                                 rapidjson::Value(rapidjson::kObjectType), allocator);
            }
            continue;
        }
        if (existing == target.MemberEnd()) {
            target.AddMember(copy_value(member.name, allocator),
                             copy_value(member.value, allocator), allocator);
        } else {
            existing->value = copy_value(member.value, allocator);
        }
    }
    if (!has_object_members) {
        return;
    }
    for (const auto& member : patch.GetObject()) {
        if (!member.value.IsObject()) {
            continue;
        }
        auto child = target.FindMember(member.name);
        if (child != target.MemberEnd()) {
            work.emplace_back(&child->value, &member.value);
        }
    }
}

}  // namespace

void apply_merge_patch(rapidjson::Value& target, const rapidjson::Value& patch,
                       Allocator& allocator) {
    if (!patch.IsObject()) {
        target = copy_value(patch, allocator);
        return;
    }
    Work work{{&target, &patch}};
    while (!work.empty()) {
        auto [level_target, level_patch] = work.back();
        work.pop_back();
        merge_object_level(*level_target, *level_patch, work, allocator);
    }
}

}  // namespace conform::json
