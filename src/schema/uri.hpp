#pragma once

// Internal: URI and JSON pointer helpers for `$id` / `$ref` resolution.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace conform::schema {

// The five components of RFC 3986 Appendix B; an absent component is nullopt. A scheme is
// whatever precedes the first ':' before any '/'; callers that validate check its syntax.
struct UriComponents {
    std::optional<std::string_view> scheme;
    std::optional<std::string_view> authority;
    std::string_view path;
    std::optional<std::string_view> query;
    std::optional<std::string_view> fragment;
};
UriComponents split_uri_components(std::string_view uri);

// Resolves `reference` against `base` as RFC 3986 §5.2 describes. An empty `base` (a document
// without `$id`) leaves relative references relative.
std::string resolve_uri(std::string_view base, std::string_view reference);

// "a#b" → document "a", fragment "b"; the fragment is empty when `uri` has none.
struct UriFragment {
    std::string_view document;
    std::string_view fragment;
};
UriFragment split_fragment(std::string_view uri);

// Decodes %XX escapes; a malformed escape is kept as it is.
std::string percent_decode(std::string_view text);

// Splits an RFC 6901 JSON pointer into unescaped tokens; nullopt when `pointer` is malformed.
std::optional<std::vector<std::string>> parse_json_pointer(std::string_view pointer);

// Returns `pointer` extended by `token` (escaped).
std::string pointer_child(const std::string& pointer, std::string_view token);

// Appends "/" and `token` escaped as a JSON pointer token (~0, ~1) to `pointer`.
void append_pointer_token(std::string& pointer, std::string_view token);

}  // namespace conform::schema
