#include "schema/user_document.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <iterator>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/positions.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"

namespace conform::schema {

namespace {

// The pointer of a member whose name its object already has (an outer object's before an inner
// one's, each object's first); none when no object repeats a name. Iterative: a user's file may
// nest deeper than the call stack.
std::optional<std::string> repeated_member(const rapidjson::Value& root) {
    std::vector<std::pair<const rapidjson::Value*, std::string>> pending{{&root, ""}};
    while (!pending.empty()) {
        auto [value, pointer] = std::move(pending.back());
        pending.pop_back();
        std::vector<std::pair<const rapidjson::Value*, std::string>> children;
        if (value->IsObject()) {
            std::unordered_set<std::string_view> names;
            for (const auto& member : value->GetObject()) {
                std::string_view name(member.name.GetString(), member.name.GetStringLength());
                auto child = pointer + "/" + json::escape_pointer_token(name);
                if (!names.insert(name).second) {
                    return child;
                }
                children.emplace_back(&member.value, std::move(child));
            }
        } else if (value->IsArray()) {
            for (rapidjson::SizeType i = 0; i < value->Size(); ++i) {
                children.emplace_back(&(*value)[i], fmt::format("{}/{}", pointer, i));
            }
        }
        std::move(children.rbegin(), children.rend(), std::back_inserter(pending));
    }
    return std::nullopt;
}

}  // namespace

struct UserDocument::Impl {
    std::string text;
    std::string origin;
    Kind kind;
    rapidjson::Document root;
    std::map<std::string, std::size_t> lines;
};

UserDocument::UserDocument(std::string text, std::string origin, const Schema& schema, Kind kind)
    : m_impl(std::make_unique<Impl>()) {
    m_impl->text = std::move(text);
    m_impl->origin = std::move(origin);
    m_impl->kind = kind;
    m_impl->root = json::parse_json_text(m_impl->text, m_impl->origin);
    if (auto repeated = repeated_member(m_impl->root)) {
        fail({{*repeated,
               "given twice in its object (here first): conform would read the first value, "
               "Python's json and JavaScript's JSON.parse the last; give it once"}});
    }
    std::vector<Violation> violations;
    if (schema.validate(m_impl->root, &violations, 20)) {
        return;
    }
    std::vector<Problem> problems;
    for (auto& violation : violations) {
        problems.emplace_back(std::move(violation.instance_path), std::move(violation.message));
    }
    fail(problems);
}

UserDocument::~UserDocument() = default;
UserDocument::UserDocument(UserDocument&&) noexcept = default;
UserDocument& UserDocument::operator=(UserDocument&&) noexcept = default;

const rapidjson::Document& UserDocument::root() const {
    return m_impl->root;
}

const std::string& UserDocument::origin() const {
    return m_impl->origin;
}

std::size_t UserDocument::line_of(const std::string& pointer) const {
    if (m_impl->lines.empty()) {
        m_impl->lines = json::pointer_lines(m_impl->text);
    }
    return json::line_of(m_impl->lines, pointer);
}

void UserDocument::fail(const std::vector<Problem>& problems) const {
    const auto& origin = m_impl->origin;
    std::string message = fmt::format("{}: invalid {}:", origin, m_impl->kind.what);
    for (const auto& [pointer, problem] : problems) {
        message += fmt::format("\n  {}:{}: {}: {}", origin, line_of(pointer),
                               pointer.empty() ? "(top level)" : pointer, problem);
    }
    message +=
        fmt::format("\n  (what each key means: {} in conform's documentation)", m_impl->kind.guide);
    throw_input_error(message);
}

}  // namespace conform::schema
