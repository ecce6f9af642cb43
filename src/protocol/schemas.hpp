#pragma once

namespace conform::schema {
class Schema;
}

namespace conform::protocol {

// The AirbyteMessage schema of schemas/airbyte_message.schema.json, compiled once.
const schema::Schema& airbyte_message_schema();

}  // namespace conform::protocol
