#pragma once

#include <string>
#include <string_view>

namespace conform::report {

// The text of clause `id` (e.g. "AP-READ-2") as docs/CONTRACT.md words it, without Markdown
// table syntax; empty for an id the contract does not list.
std::string clause_text(std::string_view id);

}  // namespace conform::report
