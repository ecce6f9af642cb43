#pragma once

#include <string>
#include <vector>

#include <rapidjson/fwd.h>

namespace conform::protocol {

// A property of a connectionSpecification whose secret mark is wrong (AP-SPEC-5, DST-SPEC-3).
struct SecretMarkProblem {
    std::string pointer;  // JSON pointer of the property's schema in the specification
    std::string message;
};

// Airbyte's acceptance test_secret_is_properly_marked, read from its rule: a property named (the
// nearest property name, lower-cased) client_token, access_token, api_token, token, secret,
// client_secret, password, key, service_account_info, service_account, tenant_id, certificate,
// jwt, credentials, app_id, appid or refresh_token, whose type is string, integer or number and
// that is no `const`, is marked `airbyte_secret: true`; one so named and marked holds such a
// value. Follows properties, items and every oneOf/anyOf/allOf branch (which keep the property's
// name); iterative (any depth).
std::vector<SecretMarkProblem> secret_mark_problems(const rapidjson::Value& specification);

}  // namespace conform::protocol
