#include "protocol/spec_lint.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <utility>

#include "json/member.hpp"
#include "json/pointer.hpp"

namespace conform::protocol {

namespace {

constexpr std::array<std::string_view, 17> k_secret_names = {"client_token",
                                                             "access_token",
                                                             "api_token",
                                                             "token",
                                                             "secret",
                                                             "client_secret",
                                                             "password",
                                                             "key",
                                                             "service_account_info",
                                                             "service_account",
                                                             "tenant_id",
                                                             "certificate",
                                                             "jwt",
                                                             "credentials",
                                                             "app_id",
                                                             "appid",
                                                             "refresh_token"};

bool secret_name(std::string name) {
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return std::find(k_secret_names.begin(), k_secret_names.end(), name) != k_secret_names.end();
}

// The types `schema` allows, as its "type" says (one name or a list).
std::vector<std::string_view> types_of(const rapidjson::Value& schema) {
    std::vector<std::string_view> types;
    const auto* type = json::member(schema, "type");
    if (type != nullptr && type->IsString()) {
        types.emplace_back(type->GetString(), type->GetStringLength());
    } else if (type != nullptr && type->IsArray()) {
        for (const auto& one : type->GetArray()) {
            if (one.IsString()) {
                types.emplace_back(one.GetString(), one.GetStringLength());
            }
        }
    }
    return types;
}

bool holds_value(const std::vector<std::string_view>& types) {
    return std::any_of(types.begin(), types.end(), [](std::string_view type) {
        return type == "string" || type == "integer" || type == "number";
    });
}

struct Visit {
    const rapidjson::Value* schema;
    std::string pointer;
    std::string name;  // the nearest property name; empty at the root
};

void judge(const Visit& visit, std::vector<SecretMarkProblem>& problems) {
    const auto& schema = *visit.schema;
    auto types = types_of(schema);
    bool is_const = json::member(schema, "const") != nullptr;
    const auto* mark = json::member(schema, "airbyte_secret");
    bool marked = mark != nullptr && mark->IsBool() && mark->GetBool();
    if (visit.name.empty() || !secret_name(visit.name) || types.empty()) {
        return;
    }
    bool can_hold = holds_value(types) && !is_const;
    if (can_hold && !marked) {
        problems.push_back(
            {visit.pointer, fmt::format("property '{}' is named as a secret but not marked "
                                        "airbyte_secret: the platform shows and logs its value",
                                        visit.name)});
    } else if (!can_hold && marked) {
        problems.push_back(
            {visit.pointer,
             fmt::format("property '{}' is marked airbyte_secret but holds no secret value ({})",
                         visit.name,
                         is_const ? "a const" : fmt::format("type {}", fmt::join(types, ", ")))});
    }
}

}  // namespace

std::vector<SecretMarkProblem> secret_mark_problems(const rapidjson::Value& specification) {
    std::vector<SecretMarkProblem> problems;
    std::vector<Visit> pending{{&specification, "", ""}};
    while (!pending.empty()) {
        auto visit = std::move(pending.back());
        pending.pop_back();
        const auto& schema = *visit.schema;
        if (!schema.IsObject()) {
            continue;
        }
        judge(visit, problems);
        if (const auto* properties = json::member(schema, "properties");
            properties != nullptr && properties->IsObject()) {
            for (const auto& property : properties->GetObject()) {
                std::string name(property.name.GetString(), property.name.GetStringLength());
                pending.push_back(
                    {&property.value,
                     visit.pointer + "/properties/" + json::escape_pointer_token(name), name});
            }
        }
        for (const char* keyword : {"oneOf", "anyOf", "allOf"}) {
            const auto* branches = json::member(schema, keyword);
            if (branches == nullptr || !branches->IsArray()) {
                continue;
            }
            for (rapidjson::SizeType i = 0; i < branches->Size(); ++i) {
                pending.push_back({&(*branches)[i],
                                   fmt::format("{}/{}/{}", visit.pointer, keyword, i), visit.name});
            }
        }
        if (const auto* items = json::member(schema, "items"); items != nullptr) {
            pending.push_back({items, visit.pointer + "/items", visit.name});
        }
    }
    std::sort(problems.begin(), problems.end(),
              [](const auto& a, const auto& b) { return a.pointer < b.pointer; });
    return problems;
}

}  // namespace conform::protocol
