#include "json/pointer.hpp"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <charconv>
#include <optional>

#include "util/error.hpp"

namespace conform::json {
namespace {

// The canonical decimal index `token` names, if any ("0", "17"; not "01", "-1", "+1").
std::optional<rapidjson::SizeType> array_index(std::string_view token) {
    if (token.empty() || (token.size() > 1 && token[0] == '0')) {
        return std::nullopt;
    }
    rapidjson::SizeType index = 0;
    auto [end, error] = std::from_chars(token.data(), token.data() + token.size(), index);
    if (error != std::errc{} || end != token.data() + token.size()) {
        return std::nullopt;
    }
    return index;
}

rapidjson::Value::MemberIterator find_member(rapidjson::Value& object, std::string_view name) {
    return object.FindMember(rapidjson::Value(rapidjson::StringRef(name.data(), name.size())));
}

// The child of `parent` named by `token`, or nullptr when absent or `parent` is a scalar.
rapidjson::Value* find_child(rapidjson::Value& parent, std::string_view token) {
    if (parent.IsObject()) {
        auto member = find_member(parent, token);
        return member == parent.MemberEnd() ? nullptr : &member->value;
    }
    if (parent.IsArray()) {
        auto index = array_index(token);
        return index && *index < parent.Size() ? &parent[*index] : nullptr;
    }
    return nullptr;
}

rapidjson::Value make_string(std::string_view text, Allocator& allocator) {
    return rapidjson::Value(text.data(), static_cast<rapidjson::SizeType>(text.size()), allocator);
}

// Builds {t1: {t2: ... value}} for tokens[from, end) and leaves it in `value`.
void wrap_in_objects(const std::vector<std::string>& tokens, std::size_t from,
                     rapidjson::Value& value, Allocator& allocator) {
    for (std::size_t i = tokens.size(); i > from; --i) {
        rapidjson::Value wrapper(rapidjson::kObjectType);
        wrapper.AddMember(make_string(tokens[i - 1], allocator), value, allocator);
        value = wrapper;
    }
}

}  // namespace

std::string pointer_syntax_error(std::string_view pointer) {
    if (pointer.empty()) {
        return {};
    }
    if (pointer.front() != '/') {
        return "a non-empty pointer must start with \"/\"";
    }
    for (std::size_t i = 0; i < pointer.size(); ++i) {
        if (pointer[i] != '~') {
            continue;
        }
        if (i + 1 == pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')) {
            return fmt::format(
                "\"~\" at offset {} must be followed by 0 or 1 (\"~0\" is \"~\", "
                "\"~1\" is \"/\")",
                i);
        }
    }
    return {};
}

void validate_pointer(std::string_view pointer) {
    std::string problem = pointer_syntax_error(pointer);
    if (!problem.empty()) {
        throw_input_error(fmt::format("invalid JSON pointer \"{}\": {}", pointer, problem));
    }
}

std::vector<std::string> pointer_tokens(std::string_view pointer) {
    validate_pointer(pointer);
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < pointer.size(); ++i) {
        if (pointer[i] == '/') {
            tokens.emplace_back();
        } else if (pointer[i] == '~') {
            tokens.back() += pointer[++i] == '0' ? '~' : '/';
        } else {
            tokens.back() += pointer[i];
        }
    }
    return tokens;
}

std::string escape_pointer_token(std::string_view token) {
    std::string escaped;
    escaped.reserve(token.size());
    for (char c : token) {
        if (c == '~') {
            escaped += "~0";
        } else if (c == '/') {
            escaped += "~1";
        } else {
            escaped += c;
        }
    }
    return escaped;
}

const rapidjson::Value* find_value(const rapidjson::Value& root, std::string_view pointer) {
    return find_value(const_cast<rapidjson::Value&>(root), pointer);
}

rapidjson::Value* find_value(rapidjson::Value& root, std::string_view pointer) {
    rapidjson::Value* current = &root;
    for (const std::string& token : pointer_tokens(pointer)) {
        current = find_child(*current, token);
        if (current == nullptr) {
            return nullptr;
        }
    }
    return current;
}

bool set_value(rapidjson::Value& root, std::string_view pointer, rapidjson::Value& value,
               Allocator& allocator) {
    std::vector<std::string> tokens = pointer_tokens(pointer);
    rapidjson::Value* current = &root;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        const std::string& token = tokens[i];
        bool last = i + 1 == tokens.size();
        if (current->IsObject()) {
            auto member = find_member(*current, token);
            if (member != current->MemberEnd()) {
                current = &member->value;
                continue;
            }
            wrap_in_objects(tokens, i + 1, value, allocator);
            current->AddMember(make_string(token, allocator), value, allocator);
            return true;
        }
        if (!current->IsArray()) {
            return false;
        }
        auto index = array_index(token);
        if (index && *index < current->Size()) {
            current = &(*current)[*index];
        } else if (last && (token == "-" || (index && *index == current->Size()))) {
            current->PushBack(value, allocator);
            return true;
        } else {
            return false;
        }
    }
    *current = value;
    return true;
}

bool remove_value(rapidjson::Value& root, std::string_view pointer) {
    std::vector<std::string> tokens = pointer_tokens(pointer);
    if (tokens.empty()) {
        return false;
    }
    rapidjson::Value* parent = &root;
    for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
        parent = find_child(*parent, tokens[i]);
        if (parent == nullptr) {
            return false;
        }
    }
    const std::string& last = tokens.back();
    if (parent->IsObject()) {
        auto member = find_member(*parent, last);
        if (member == parent->MemberEnd()) {
            return false;
        }
        parent->EraseMember(member);
        return true;
    }
    if (parent->IsArray()) {
        auto index = array_index(last);
        if (!index || *index >= parent->Size()) {
            return false;
        }
        parent->Erase(parent->Begin() + *index);
        return true;
    }
    return false;
}

}  // namespace conform::json
