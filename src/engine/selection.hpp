#pragma once

#include <fnmatch.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

// What --only, --skip and --shard select, for every protocol's scenarios alike.
namespace conform::engine {

// Names in --only/--skip are globs (fnmatch).
inline bool glob_matches(const std::string& pattern, std::string_view name) {
    return fnmatch(pattern.c_str(), std::string(name).c_str(), 0) == 0;
}

// A pattern with a '.' names checks: check ids have one, scenario ids and suite names never do.
inline bool names_checks(const std::string& pattern) {
    return pattern.find('.') != std::string::npos;
}

// True when `check` is judged: no check pattern of `skip` matches it, and when `only` has check
// patterns, one of them does.
inline bool check_selected(const std::vector<std::string>& only,
                           const std::vector<std::string>& skip, std::string_view check) {
    auto matches = [&check](const std::string& pattern) {
        return names_checks(pattern) && glob_matches(pattern, check);
    };
    if (std::any_of(skip.begin(), skip.end(), matches)) {
        return false;
    }
    bool only_names_checks = std::any_of(only.begin(), only.end(), names_checks);
    return !only_names_checks || std::any_of(only.begin(), only.end(), matches);
}

// True when the scenario `id` of `suite`, listing `checks`, runs: `only` is empty or names it,
// its suite or one of its checks, and no scenario pattern of `skip` names it or its suite.
template <typename CheckIds>
bool scenario_selected(const std::vector<std::string>& only, const std::vector<std::string>& skip,
                       std::string_view id, std::string_view suite, const CheckIds& checks) {
    auto names_scenario = [&](const std::string& pattern) {
        return !names_checks(pattern) &&
               (glob_matches(pattern, id) || glob_matches(pattern, suite));
    };
    auto matches = [&](const std::string& pattern) {
        return names_scenario(pattern) ||
               (names_checks(pattern) &&
                std::any_of(std::begin(checks), std::end(checks), [&pattern](const auto& check) {
                    return glob_matches(pattern, check);
                }));
    };
    if (!only.empty() && std::none_of(only.begin(), only.end(), matches)) {
        return false;
    }
    return std::none_of(skip.begin(), skip.end(), names_scenario);
}

// --shard K/N (`shard_index` K-1, `shard_count` N): the selected scenario at `position` (its index
// among the selected ones, in suite order) runs in shard K when position % N == K-1.
inline bool in_shard(std::size_t position, std::size_t shard_index, std::size_t shard_count) {
    return shard_count <= 1 || position % shard_count == shard_index;
}

}  // namespace conform::engine
