#include "schema/formats.hpp"
#include "util/ascii.hpp"

#include <cstddef>

namespace conform::schema {

namespace {

constexpr std::size_t k_max_hostname = 253;
constexpr std::size_t k_max_label = 63;
constexpr std::size_t k_max_local_part = 64;
constexpr std::string_view k_email_atext_symbols = "!#$%&'*+-/=?^_`{|}~";
constexpr std::string_view k_ipv6_literal_prefix = "IPv6:";

bool is_hostname_label(std::string_view label) {
    if (label.empty() || label.size() > k_max_label || label.front() == '-' ||
        label.back() == '-') {
        return false;
    }
    for (char c : label) {
        if (!is_ascii_alpha(c) && !is_ascii_digit(c) && c != '-') {
            return false;
        }
    }
    return true;
}

bool is_ipv4_octet(std::string_view octet) {
    if (octet.empty() || octet.size() > 3 || (octet.size() > 1 && octet.front() == '0')) {
        return false;
    }
    int value = 0;
    for (char c : octet) {
        if (!is_ascii_digit(c)) {
            return false;
        }
        value = value * 10 + (c - '0');
    }
    return value <= 255;
}

bool is_email_atext(char c) {
    return is_ascii_alpha(c) || is_ascii_digit(c) ||
           k_email_atext_symbols.find(c) != std::string_view::npos;
}

bool is_dot_atom(std::string_view text) {
    if (text.empty() || text.front() == '.' || text.back() == '.') {
        return false;
    }
    char previous = '\0';
    for (char c : text) {
        if (c == '.' ? previous == '.' : !is_email_atext(c)) {
            return false;
        }
        previous = c;
    }
    return true;
}

bool is_printable_ascii(char c) {
    return c >= 32 && c <= 126;
}

bool is_quoted_string(std::string_view text) {
    if (text.size() < 2 || text.front() != '"' || text.back() != '"') {
        return false;
    }
    std::string_view content = text.substr(1, text.size() - 2);
    for (std::size_t i = 0; i < content.size(); ++i) {
        char c = content[i];
        if (c == '\\') {
            if (++i == content.size() || !is_printable_ascii(content[i])) {
                return false;
            }
        } else if (c == '"' || !is_printable_ascii(c)) {
            return false;
        }
    }
    return true;
}

bool is_email_domain(std::string_view domain) {
    if (domain.size() >= 2 && domain.front() == '[' && domain.back() == ']') {
        std::string_view literal = domain.substr(1, domain.size() - 2);
        if (literal.starts_with(k_ipv6_literal_prefix)) {
            return is_ipv6(literal.substr(k_ipv6_literal_prefix.size()));
        }
        return is_ipv4(literal);
    }
    return is_hostname(domain);
}

}  // namespace

bool is_hostname(std::string_view text) {
    if (text.empty() || text.size() > k_max_hostname) {
        return false;
    }
    std::size_t start = 0;
    while (true) {
        std::size_t dot = text.find('.', start);
        if (!is_hostname_label(text.substr(start, dot - start))) {
            return false;
        }
        if (dot == std::string_view::npos) {
            return true;
        }
        start = dot + 1;
    }
}

bool is_ipv4(std::string_view text) {
    std::size_t start = 0;
    for (int octet = 0; octet < 4; ++octet) {
        std::size_t dot = octet < 3 ? text.find('.', start) : text.size();
        if (dot == std::string_view::npos || !is_ipv4_octet(text.substr(start, dot - start))) {
            return false;
        }
        start = dot + 1;
    }
    return true;
}

bool is_ipv6(std::string_view text) {
    int groups = 0;
    bool compressed = false;
    std::size_t pos = 0;
    if (text.starts_with("::")) {
        compressed = true;
        pos = 2;
    }
    while (pos < text.size()) {
        std::size_t end = pos;
        while (end < text.size() && is_hex_digit(text[end])) {
            ++end;
        }
        if (end < text.size() && text[end] == '.') {
            // A trailing dotted-quad stands for the last two groups.
            if (!is_ipv4(text.substr(pos))) {
                return false;
            }
            groups += 2;
            break;
        }
        if (end == pos || end - pos > 4) {
            return false;
        }
        ++groups;
        pos = end;
        if (pos == text.size()) {
            break;
        }
        if (text[pos] != ':' || ++pos == text.size()) {
            return false;
        }
        if (text[pos] == ':') {
            if (compressed) {
                return false;
            }
            compressed = true;
            ++pos;
        }
    }
    return compressed ? groups <= 7 : groups == 8;
}

bool is_email(std::string_view text) {
    std::size_t at = text.rfind('@');
    if (at == std::string_view::npos) {
        return false;
    }
    std::string_view local = text.substr(0, at);
    std::string_view domain = text.substr(at + 1);
    if (local.empty() || local.size() > k_max_local_part) {
        return false;
    }
    return (is_dot_atom(local) || is_quoted_string(local)) && is_email_domain(domain);
}

}  // namespace conform::schema
