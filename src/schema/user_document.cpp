#include "schema/user_document.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <map>

#include "json/parse.hpp"
#include "json/positions.hpp"
#include "schema/schema.hpp"
#include "util/error.hpp"

namespace conform::schema {

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
