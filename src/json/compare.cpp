#include "json/compare.hpp"

#include <rapidjson/document.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "json/pointer.hpp"
#include "json/write.hpp"

namespace conform::json {

namespace {

bool is_container(const rapidjson::Value& value) {
    return value.IsObject() || value.IsArray();
}

bool same_container(const rapidjson::Value& expected, const rapidjson::Value& actual) {
    return (expected.IsObject() && actual.IsObject()) || (expected.IsArray() && actual.IsArray());
}

bool equal_scalars(const rapidjson::Value& expected, const rapidjson::Value& actual) {
    return !is_container(expected) && !is_container(actual) &&
           to_canonical_json(expected) == to_canonical_json(actual);
}

// A container both sides have, its children being visited: expected's members or elements
// first, then the members only actual has.
struct Frame {
    const rapidjson::Value* expected;
    const rapidjson::Value* actual;
    std::size_t pointer_size;
    rapidjson::SizeType next = 0;
    bool actual_only = false;
};

// A depth-first walk with one pointer string that grows and shrinks with the path, so that deep
// nesting costs neither stack nor a copy of the path per value.
class Comparison {
public:
    Comparison(std::size_t limit, std::string prefix)
        : m_limit(limit), m_pointer(std::move(prefix)) {}

    Differences run(const rapidjson::Value& expected, const rapidjson::Value& actual) {
        visit(&expected, &actual);
        while (!m_frames.empty()) {
            if (!visit_next_child(m_frames.back())) {
                m_frames.pop_back();
            }
        }
        return std::move(m_result);
    }

private:
    void visit(const rapidjson::Value* expected, const rapidjson::Value* actual) {
        bool both = expected != nullptr && actual != nullptr;
        if (both && same_container(*expected, *actual)) {
            m_frames.push_back({expected, actual, m_pointer.size()});
        } else if (!both || !equal_scalars(*expected, *actual)) {
            record(expected, actual);
        }
    }

    // Visits the frame's next child; false when it has none left.
    bool visit_next_child(Frame& frame) {
        // `visit` may push a frame, moving this one: nothing reads `frame` after it.
        m_pointer.resize(frame.pointer_size);
        const auto& expected = *frame.expected;
        const auto& actual = *frame.actual;
        if (expected.IsArray()) {
            auto index = frame.next++;
            if (index >= std::max(expected.Size(), actual.Size())) {
                return false;
            }
            m_pointer += "/" + std::to_string(index);
            visit(index < expected.Size() ? &expected[index] : nullptr,
                  index < actual.Size() ? &actual[index] : nullptr);
            return true;
        }
        if (!frame.actual_only) {
            if (frame.next < expected.MemberCount()) {
                const auto& member = *(expected.MemberBegin() + frame.next++);
                auto found = actual.FindMember(member.name);
                append_name(member.name);
                visit(&member.value, found == actual.MemberEnd() ? nullptr : &found->value);
                return true;
            }
            frame.actual_only = true;
            frame.next = 0;
        }
        while (frame.next < actual.MemberCount()) {
            const auto& member = *(actual.MemberBegin() + frame.next++);
            if (!expected.HasMember(member.name)) {
                append_name(member.name);
                visit(nullptr, &member.value);
                return true;
            }
        }
        return false;
    }

    void append_name(const rapidjson::Value& name) {
        m_pointer += '/';
        m_pointer +=
            escape_pointer_token(std::string_view(name.GetString(), name.GetStringLength()));
    }

    void record(const rapidjson::Value* expected, const rapidjson::Value* actual) {
        ++m_result.total;
        if (m_result.shown.size() < m_limit) {
            m_result.shown.push_back({m_pointer, expected ? to_canonical_json(*expected) : "",
                                      actual ? to_canonical_json(*actual) : ""});
        }
    }

    std::size_t m_limit;
    std::string m_pointer;
    std::vector<Frame> m_frames;
    Differences m_result;
};

}  // namespace

Differences differences(const rapidjson::Value& expected, const rapidjson::Value& actual,
                        std::size_t limit, const std::string& prefix) {
    return Comparison(limit, prefix).run(expected, actual);
}

}  // namespace conform::json
