// Fuzz target: RFC 7396 merge patch of a target (first line) by a patch (the rest).
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>

#include "fuzz_input.hpp"
#include "json/merge_patch.hpp"
#include "json/write.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto [target_text, patch_text] =
        conform::fuzz::split_first_line(conform::fuzz::as_text(data, size));
    rapidjson::Document target;
    target.Parse<rapidjson::kParseIterativeFlag>(target_text.data(), target_text.size());
    rapidjson::Document patch;
    patch.Parse<rapidjson::kParseIterativeFlag>(patch_text.data(), patch_text.size());
    if (target.HasParseError() || patch.HasParseError()) {
        return 0;
    }
    conform::json::apply_merge_patch(target, patch, target.GetAllocator());
    // Applying the same patch again changes nothing (RFC 7396 patches are idempotent). Compared
    // as canonical JSON: a patch that repeats a name can remove a member and add it back at the
    // end, an order no JSON reader sees.
    std::string once = conform::json::to_canonical_json(target);
    conform::json::apply_merge_patch(target, patch, target.GetAllocator());
    if (conform::json::to_canonical_json(target) != once) {
        __builtin_trap();
    }
    return 0;
}
