#include "checks/checks.hpp"

#include <fmt/format.h>

#include <initializer_list>
#include <set>

#include "checks/airbyte/airbyte.hpp"
#include "checks/destination/destination.hpp"
#include "checks/meltano/meltano.hpp"
#include "checks/singer/singer.hpp"
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

// One table out of a protocol's families, in the order given.
template <typename Table>
Table joined(std::initializer_list<Table (*)()> families) {
    Table all;
    for (auto family : families) {
        auto checks = family();
        all.insert(all.end(), checks.begin(), checks.end());
    }
    return verified(all);
}

template <typename Table>
void append_infos(std::vector<engine::CheckInfo>& infos, const Table& table) {
    for (const auto& check : table) {
        infos.push_back(check.info);
    }
}

template <typename Table>
std::vector<report::CheckClauses> clauses_of(const Table& table) {
    std::vector<report::CheckClauses> checks;
    for (const auto& check : table) {
        checks.push_back(
            {std::string(check.info.id), {check.info.clauses.begin(), check.info.clauses.end()}});
    }
    return checks;
}

}  // namespace

const suite::Checks& airbyte_checks() {
    static const suite::Checks k_checks =
        joined<suite::Checks>({airbyte::message_checks, airbyte::core_checks,
                               airbyte::estuary_checks, airbyte::probe_checks});
    return k_checks;
}

const meltano::Checks& meltano_checks() {
    static const meltano::Checks k_checks =
        joined<meltano::Checks>({mx::command_checks, mx::output_checks});
    return k_checks;
}

const singer::Checks& singer_checks() {
    static const singer::Checks k_checks =
        joined<singer::Checks>({sg::command_checks, sg::message_checks, sg::sync_checks});
    return k_checks;
}

const destination::Checks& destination_checks() {
    static const destination::Checks k_checks =
        joined<destination::Checks>({dst::command_checks, dst::state_checks, dst::data_checks});
    return k_checks;
}

std::vector<engine::CheckInfo> all_infos() {
    std::vector<engine::CheckInfo> infos;
    append_infos(infos, airbyte_checks());
    append_infos(infos, meltano_checks());
    append_infos(infos, singer_checks());
    append_infos(infos, destination_checks());
    return infos;
}

std::vector<report::CheckClauses> clauses_of_protocol(std::string_view protocol) {
    if (protocol == report::k_meltano_extension) {
        return clauses_of(meltano_checks());
    }
    if (protocol == report::k_singer) {
        return clauses_of(singer_checks());
    }
    if (protocol == report::k_airbyte_destination) {
        return clauses_of(destination_checks());
    }
    return clauses_of(airbyte_checks());
}

std::vector<std::string> all_ids() {
    std::vector<std::string> ids;
    for (const auto& info : all_infos()) {
        ids.emplace_back(info.id);
    }
    return ids;
}

}  // namespace conform::checks
