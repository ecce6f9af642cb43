#include "protocol/schemas.hpp"

#include "resources/resources.hpp"
#include "schema/schema.hpp"

namespace conform::protocol {

const schema::Schema& airbyte_message_schema() {
    static const schema::Schema k_schema =
        schema::Schema::compile_text(resources::find("airbyte_message.schema.json"));
    return k_schema;
}

}  // namespace conform::protocol
