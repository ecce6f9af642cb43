#pragma once

#include <rapidjson/fwd.h>

namespace conform::schema {
class Schema;
}

namespace conform::protocol {

// The AirbyteMessage schema of schemas/airbyte_message.schema.json, compiled once.
const schema::Schema& airbyte_message_schema();

// True when `message` is a RECORD that airbyte_message_schema() accepts, seen without evaluating
// it: members `type` ("RECORD") and `record` and no other; in `record`, `stream` (a string),
// `data` (an object) and `emitted_at` (an integer), and at most `namespace` (a string or null)
// besides. Most lines of a read are such records. False decides nothing: the schema does.
bool is_plain_valid_record(const rapidjson::Value& message);

}  // namespace conform::protocol
