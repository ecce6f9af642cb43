#pragma once

#include <rapidjson/fwd.h>

#include "config/test_config.hpp"
#include "engine/verdict.hpp"

// What the spec checks of sources (AP-SPEC-4, -5) and destinations (DST-SPEC-2, -3) share: the
// emitted spec compared with an expected one, as Airbyte's test_match_expected compares
// spec_path, and its secret marks, as test_secret_is_properly_marked reads them.
namespace conform::checks {

// Fails `verdict` at `where` for each place (the first twenty; the rest counted) where `emitted`,
// a SPEC message's "spec", differs from `expected`: member by member as Airbyte's model compares
// them (a member absent on one side equals its default on the other); of a manifest only the
// connection specification. Notes what it compared with.
void compare_with_expected_spec(const config::ExpectedSpec& expected,
                                const rapidjson::Value& emitted, const engine::Where& where,
                                engine::Verdict& verdict);

// Fails `verdict` at `where` for each property of `emitted`'s (a SPEC message's "spec")
// connectionSpecification whose airbyte_secret mark is wrong (protocol::secret_mark_problems).
void judge_secret_marks(const rapidjson::Value& emitted, const engine::Where& where,
                        engine::Verdict& verdict);

}  // namespace conform::checks
