#include "schema/uri.hpp"
#include "util/ascii.hpp"

#include <cstddef>

namespace conform::schema {

namespace {

void drop_last_segment(std::string& output) {
    std::size_t slash = output.rfind('/');
    output.erase(slash == std::string::npos ? 0 : slash);
}

// RFC 3986 §5.2.4.
std::string remove_dot_segments(std::string_view input) {
    std::string output;
    while (!input.empty()) {
        if (input.starts_with("../")) {
            input.remove_prefix(3);
        } else if (input.starts_with("./") || input.starts_with("/./")) {
            input.remove_prefix(2);
        } else if (input == "/.") {
            input = "/";
        } else if (input.starts_with("/../")) {
            input.remove_prefix(3);
            drop_last_segment(output);
        } else if (input == "/..") {
            input = "/";
            drop_last_segment(output);
        } else if (input == "." || input == "..") {
            input = {};
        } else {
            std::size_t next = input.find('/', input.front() == '/' ? 1 : 0);
            std::size_t length = next == std::string_view::npos ? input.size() : next;
            output.append(input.substr(0, length));
            input.remove_prefix(length);
        }
    }
    return output;
}

std::string merge_paths(const UriComponents& base, std::string_view reference_path) {
    if (base.authority && base.path.empty()) {
        return "/" + std::string(reference_path);
    }
    std::size_t slash = base.path.rfind('/');
    if (slash == std::string_view::npos) {
        return std::string(reference_path);
    }
    return std::string(base.path.substr(0, slash + 1)) + std::string(reference_path);
}

std::string compose(const UriComponents& parts, const std::string& path) {
    std::string uri;
    if (parts.scheme) {
        uri.append(*parts.scheme).push_back(':');
    }
    if (parts.authority) {
        uri.append("//").append(*parts.authority);
    }
    uri.append(path);
    if (parts.query) {
        uri.append("?").append(*parts.query);
    }
    if (parts.fragment) {
        uri.append("#").append(*parts.fragment);
    }
    return uri;
}

}  // namespace

UriComponents split_uri_components(std::string_view uri) {
    UriComponents parts;
    if (std::size_t hash = uri.find('#'); hash != std::string_view::npos) {
        parts.fragment = uri.substr(hash + 1);
        uri = uri.substr(0, hash);
    }
    if (std::size_t question = uri.find('?'); question != std::string_view::npos) {
        parts.query = uri.substr(question + 1);
        uri = uri.substr(0, question);
    }
    std::size_t colon = uri.find(':');
    if (colon != std::string_view::npos && colon > 0 && colon < uri.find('/')) {
        parts.scheme = uri.substr(0, colon);
        uri.remove_prefix(colon + 1);
    }
    if (uri.starts_with("//")) {
        std::size_t slash = uri.find('/', 2);
        std::size_t end = slash == std::string_view::npos ? uri.size() : slash;
        parts.authority = uri.substr(2, end - 2);
        uri.remove_prefix(end);
    }
    parts.path = uri;
    return parts;
}

std::string resolve_uri(std::string_view base, std::string_view reference) {
    UriComponents ref = split_uri_components(reference);
    if (ref.scheme) {
        return compose(ref, remove_dot_segments(ref.path));
    }
    UriComponents base_parts = split_uri_components(base);
    UriComponents target = ref;
    std::string path;
    if (ref.authority) {
        path = remove_dot_segments(ref.path);
    } else {
        if (ref.path.empty()) {
            path = std::string(base_parts.path);
            if (!ref.query) {
                target.query = base_parts.query;
            }
        } else if (ref.path.front() == '/') {
            path = remove_dot_segments(ref.path);
        } else {
            path = remove_dot_segments(merge_paths(base_parts, ref.path));
        }
        target.authority = base_parts.authority;
    }
    target.scheme = base_parts.scheme;
    return compose(target, path);
}

UriFragment split_fragment(std::string_view uri) {
    std::size_t hash = uri.find('#');
    if (hash == std::string_view::npos) {
        return {uri, {}};
    }
    return {uri.substr(0, hash), uri.substr(hash + 1)};
}

std::string percent_decode(std::string_view text) {
    std::string decoded;
    decoded.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
            hex_value(text[i + 2]) >= 0) {
            decoded.push_back(
                static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
            i += 2;
        } else {
            decoded.push_back(text[i]);
        }
    }
    return decoded;
}

std::optional<std::vector<std::string>> parse_json_pointer(std::string_view pointer) {
    std::vector<std::string> tokens;
    if (pointer.empty()) {
        return tokens;
    }
    if (pointer.front() != '/') {
        return std::nullopt;
    }
    std::string token;
    for (std::size_t i = 1; i <= pointer.size(); ++i) {
        if (i == pointer.size() || pointer[i] == '/') {
            tokens.push_back(std::move(token));
            token.clear();
        } else if (pointer[i] == '~') {
            if (i + 1 == pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')) {
                return std::nullopt;
            }
            token.push_back(pointer[++i] == '0' ? '~' : '/');
        } else {
            token.push_back(pointer[i]);
        }
    }
    return tokens;
}

void append_pointer_token(std::string& pointer, std::string_view token) {
    pointer.push_back('/');
    for (char c : token) {
        if (c == '~') {
            pointer.append("~0");
        } else if (c == '/') {
            pointer.append("~1");
        } else {
            pointer.push_back(c);
        }
    }
}

std::string pointer_child(const std::string& pointer, std::string_view token) {
    std::string result = pointer;
    append_pointer_token(result, token);
    return result;
}

}  // namespace conform::schema
