#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace conform::report {

// The text of clause `id` (e.g. "AP-READ-2") as docs/CONTRACT.md words it, without Markdown
// table syntax; empty for an id the contract does not list.
std::string clause_text(std::string_view id);

// The ids of the contract's clauses that start with `prefix` ("AP-", "MX-"), in its order.
std::vector<std::string> clause_ids(std::string_view prefix);

}  // namespace conform::report
