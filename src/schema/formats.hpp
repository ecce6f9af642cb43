#pragma once

#include <string>
#include <string_view>

namespace conform::schema {

// The `format` values conform asserts; other names are annotations only.
enum class Format {
    none,
    date_time,
    date,
    time,
    email,
    hostname,
    ipv4,
    ipv6,
    uri,
    uri_reference,
    json_pointer,
    relative_json_pointer,
    regex,
};

// Airbyte relaxations of the RFC 3339 formats, chosen per schema node from `airbyte_type`.
struct FormatOptions {
    bool offset_optional = false;  // timestamp_without_timezone / time_without_timezone
};

// Returns the checked format named `name`, or Format::none for unknown or unchecked names.
Format format_from_name(std::string_view name);

// Returns the draft-07 name of `format`, e.g. "date-time".
std::string_view format_name(Format format);

// Returns true when `text` is a valid `format` string. Format::none accepts everything.
bool check_format(Format format, std::string_view text, FormatOptions options = {});
// Why `text` failed check_format, for the formats that can say more than "not valid"; empty
// otherwise. Called only for a value that failed.
std::string format_problem(Format format, std::string_view text, FormatOptions options = {});

// RFC 3339 full-date, plus Airbyte's optional " BC" era suffix.
bool is_date(std::string_view text);
// RFC 3339 full-time (partial-time + offset); the offset may be left out when
// `options.offset_optional`. A leap second (:60) must fall on 23:59 UTC.
bool is_time(std::string_view text, FormatOptions options = {});
// RFC 3339 date-time with "T"/"t" separator, plus Airbyte's optional " BC" era suffix.
bool is_date_time(std::string_view text, FormatOptions options = {});
// Why `text` is not a `date-time` (a `time`) in the ways Airbyte connectors most often get wrong:
// no offset, a space for the T, an offset without its colon, a day the calendar lacks. Empty when
// none of these explains it.
std::string date_time_problem(std::string_view text, FormatOptions options);
std::string time_problem(std::string_view text, FormatOptions options);
// RFC 5321 mailbox: dot-atom or quoted local part, and a host name or address literal.
bool is_email(std::string_view text);
// RFC 1123 host name: dot-separated LDH labels of 1..63 bytes, 253 bytes at most.
bool is_hostname(std::string_view text);
// Dotted-quad IPv4 address without leading zeros.
bool is_ipv4(std::string_view text);
// RFC 4291 textual IPv6 address, including "::" compression and a trailing IPv4 part.
bool is_ipv6(std::string_view text);
// RFC 3986 URI (with scheme).
bool is_uri(std::string_view text);
// RFC 3986 URI-reference (a URI or a relative reference).
bool is_uri_reference(std::string_view text);
// RFC 6901 JSON pointer.
bool is_json_pointer(std::string_view text);
// Relative JSON pointer (draft-handrews-relative-json-pointer-01).
bool is_relative_json_pointer(std::string_view text);
// A regular expression that conform's regex engine (ECMA-262 syntax on PCRE2) accepts.
bool is_regex(std::string_view text);

}  // namespace conform::schema
