#include "report/clauses.hpp"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

namespace conform::report {

extern const std::string_view k_contract_markdown;

namespace {

std::string_view trimmed(std::string_view text) {
    while (!text.empty() && text.front() == ' ') {
        text.remove_prefix(1);
    }
    while (!text.empty() && text.back() == ' ') {
        text.remove_suffix(1);
    }
    return text;
}

using ClauseRows = std::vector<std::pair<std::string, std::string>>;

// Table rows of the form `| ID | LEVEL | text |`, in the contract's order.
ClauseRows parse_clause_rows(std::string_view markdown) {
    ClauseRows clauses;
    while (!markdown.empty()) {
        auto end = markdown.find('\n');
        auto line = markdown.substr(0, end);
        markdown = end == std::string_view::npos ? std::string_view{} : markdown.substr(end + 1);
        if (!line.starts_with("| ")) {
            continue;
        }
        auto id_end = line.find('|', 1);
        auto level_end = id_end == std::string_view::npos ? id_end : line.find('|', id_end + 1);
        auto text_end = line.rfind('|');
        if (level_end == std::string_view::npos || text_end <= level_end) {
            continue;
        }
        auto id = trimmed(line.substr(1, id_end - 1));
        if (id.find('-') == std::string_view::npos || id.find(' ') != std::string_view::npos) {
            continue;
        }
        clauses.emplace_back(
            std::string(id),
            std::string(trimmed(line.substr(level_end + 1, text_end - level_end - 1))));
    }
    return clauses;
}

const ClauseRows& contract_rows() {
    static const auto k_rows = parse_clause_rows(k_contract_markdown);
    return k_rows;
}

}  // namespace

std::string clause_text(std::string_view id) {
    static const std::map<std::string, std::string, std::less<>> k_clauses(contract_rows().begin(),
                                                                           contract_rows().end());
    auto found = k_clauses.find(id);
    return found == k_clauses.end() ? std::string{} : found->second;
}

std::vector<std::string> clause_ids(std::string_view prefix) {
    std::vector<std::string> ids;
    for (const auto& [id, text] : contract_rows()) {
        if (id.starts_with(prefix) && std::find(ids.begin(), ids.end(), id) == ids.end()) {
            ids.push_back(id);
        }
    }
    return ids;
}

}  // namespace conform::report
