#pragma once

#include <rapidjson/fwd.h>

namespace conform::json {

// The allocator of rapidjson::Document and rapidjson::Value, spelled without rapidjson/document.h.
using Allocator = rapidjson::MemoryPoolAllocator<rapidjson::CrtAllocator>;

}  // namespace conform::json
