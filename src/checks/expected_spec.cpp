#include "checks/expected_spec.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <string_view>

#include "json/compare.hpp"
#include "json/member.hpp"
#include "json/parse.hpp"
#include "json/pointer.hpp"
#include "json/write.hpp"
#include "protocol/spec_lint.hpp"
#include "util/text.hpp"

namespace conform::checks {

namespace {

// How many places where the spec differs from the expected one a verdict lists (the rest are
// counted).
constexpr std::size_t k_spec_differences_shown = 20;

// Top-level members of a connector specification that Airbyte's model defaults to false when
// absent: absent, null and false are the same spec there.
bool defaults_to_false(std::string_view name) {
    return name == "supportsNormalization" || name == "supportsDBT";
}

bool same_as_absent(std::string_view name, const rapidjson::Value* value) {
    return value == nullptr || value->IsNull() || (value->IsFalse() && defaults_to_false(name));
}

const rapidjson::Value* member_or_null(const rapidjson::Value& object,
                                       const rapidjson::Value& name) {
    auto found = object.FindMember(name);
    return found == object.MemberEnd() ? nullptr : &found->value;
}

// Where the emitted spec differs from the expected one, member by member as Airbyte's model
// compares them: a member absent on one side equals its default on the other.
json::Differences spec_differences(const rapidjson::Value& expected,
                                   const rapidjson::Value& emitted) {
    json::Differences all;
    auto add = [&](const rapidjson::Value& name) {
        std::string_view text(name.GetString(), name.GetStringLength());
        const auto* want = member_or_null(expected, name);
        const auto* got = member_or_null(emitted, name);
        if (same_as_absent(text, want) && same_as_absent(text, got)) {
            return;
        }
        auto pointer = "/" + json::escape_pointer_token(text);
        if (want == nullptr || got == nullptr) {
            ++all.total;
            if (all.shown.size() < k_spec_differences_shown) {
                all.shown.push_back({pointer, want ? json::to_canonical_json(*want) : "",
                                     got ? json::to_canonical_json(*got) : ""});
            }
            return;
        }
        auto found =
            json::differences(*want, *got, k_spec_differences_shown - all.shown.size(), pointer);
        all.total += found.total;
        all.shown.insert(all.shown.end(), found.shown.begin(), found.shown.end());
    };
    for (const auto& member : expected.GetObject()) {
        add(member.name);
    }
    for (const auto& member : emitted.GetObject()) {
        if (!expected.HasMember(member.name)) {
            add(member.name);
        }
    }
    return all;
}

std::string spec_value(const std::string& json) {
    return json.empty() ? std::string("nothing") : excerpt(json, 120);
}

}  // namespace

void compare_with_expected_spec(const config::ExpectedSpec& expected_spec,
                                const rapidjson::Value& emitted, const engine::Where& where,
                                engine::Verdict& verdict) {
    auto expected = json::parse_json_text(expected_spec.json, expected_spec.origin);
    if (!emitted.IsObject()) {
        verdict.fail("the SPEC message's \"spec\" is not an object", where);
        return;
    }
    json::Differences found;
    if (expected_spec.connection_only) {
        static const rapidjson::Value k_null;
        const auto* got = json::find_value(emitted, "/connectionSpecification");
        found = json::differences(expected["connectionSpecification"], got ? *got : k_null,
                                  k_spec_differences_shown, "/connectionSpecification");
    } else {
        found = spec_differences(expected, emitted);
    }
    for (const auto& difference : found.shown) {
        verdict.fail(
            fmt::format("at '{}' the expected spec has {}, the connector's {}", difference.pointer,
                        spec_value(difference.expected), spec_value(difference.actual)),
            where);
    }
    verdict.count_more(found.total - found.shown.size());
    verdict.note(fmt::format(
        "compared with {}{}", expected_spec.as_named,
        expected_spec.connection_only ? " (a manifest: its connection specification only)" : ""));
}

void judge_secret_marks(const rapidjson::Value& emitted, const engine::Where& where,
                        engine::Verdict& verdict) {
    const auto* specification =
        emitted.IsObject() ? json::member(emitted, "connectionSpecification") : nullptr;
    if (specification == nullptr || !specification->IsObject()) {
        verdict.skip("the SPEC has no connectionSpecification object");
        return;
    }
    verdict.judged();
    for (const auto& problem : protocol::secret_mark_problems(*specification)) {
        verdict.fail(fmt::format("{} (at '{}')", problem.message, problem.pointer), where);
    }
    verdict.note(
        "names held to be secret: Airbyte's test_secret_is_properly_marked's list (password, "
        "token, access_token, client_secret, key, credentials, ...), whole names only");
}

}  // namespace conform::checks
