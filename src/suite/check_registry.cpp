#include "suite/check_registry.hpp"

#include <fmt/format.h>

#include <set>

#include "util/error.hpp"

namespace conform::suite {

namespace {

std::vector<CheckDefinition> build_registry() {
    std::vector<CheckDefinition> all;
    for (auto family : {message_checks, core_checks, extension_checks}) {
        auto checks = family();
        all.insert(all.end(), checks.begin(), checks.end());
    }
    std::set<std::string_view> seen;
    for (const auto& check : all) {
        if (check.code == nullptr) {
            throw_internal_error(
                fmt::format("check '{}' is registered without code", check.info.id));
        }
        if (!seen.insert(check.info.id).second) {
            throw_internal_error(fmt::format("check '{}' is registered twice", check.info.id));
        }
    }
    return all;
}

}  // namespace

const std::vector<CheckDefinition>& airbyte_checks() {
    static const std::vector<CheckDefinition> k_checks = build_registry();
    return k_checks;
}

const CheckDefinition* find_airbyte_check(std::string_view id) {
    for (const auto& check : airbyte_checks()) {
        if (check.info.id == id) {
            return &check;
        }
    }
    return nullptr;
}

}  // namespace conform::suite
