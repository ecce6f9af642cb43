#include "checks/checks.hpp"

#include <fmt/format.h>

#include <set>

#include "checks/airbyte/airbyte.hpp"
#include "checks/destination/destination.hpp"
#include "checks/meltano/meltano.hpp"
#include "util/error.hpp"

namespace conform::checks {

namespace {

// Fails (internal error) on a check without code or an id defined twice.
template <typename Table>
const Table& verified(const Table& table) {
    std::set<std::string_view> seen;
    for (const auto& check : table) {
        if (check.code == nullptr) {
            throw_internal_error(fmt::format("check '{}' is defined without code", check.info.id));
        }
        if (!seen.insert(check.info.id).second) {
            throw_internal_error(fmt::format("check '{}' is defined twice", check.info.id));
        }
    }
    return table;
}

suite::Checks build_airbyte() {
    suite::Checks all;
    for (auto family : {airbyte::message_checks, airbyte::core_checks, airbyte::estuary_checks}) {
        auto checks = family();
        all.insert(all.end(), checks.begin(), checks.end());
    }
    return verified(all);
}

meltano::Checks build_meltano() {
    auto all = mx::command_checks();
    auto output = mx::output_checks();
    all.insert(all.end(), output.begin(), output.end());
    return verified(all);
}

destination::Checks build_destination() {
    destination::Checks all;
    for (auto family : {dst::command_checks, dst::state_checks, dst::data_checks}) {
        auto checks = family();
        all.insert(all.end(), checks.begin(), checks.end());
    }
    return verified(all);
}

}  // namespace

const suite::Checks& airbyte_checks() {
    static const suite::Checks k_checks = build_airbyte();
    return k_checks;
}

const meltano::Checks& meltano_checks() {
    static const meltano::Checks k_checks = build_meltano();
    return k_checks;
}

const destination::Checks& destination_checks() {
    static const destination::Checks k_checks = build_destination();
    return k_checks;
}

std::vector<engine::CheckInfo> all_infos() {
    std::vector<engine::CheckInfo> infos;
    for (const auto& check : airbyte_checks()) {
        infos.push_back(check.info);
    }
    for (const auto& check : meltano_checks()) {
        infos.push_back(check.info);
    }
    for (const auto& check : destination_checks()) {
        infos.push_back(check.info);
    }
    return infos;
}

std::vector<std::string> all_ids() {
    std::vector<std::string> ids;
    for (const auto& info : all_infos()) {
        ids.emplace_back(info.id);
    }
    return ids;
}

}  // namespace conform::checks
