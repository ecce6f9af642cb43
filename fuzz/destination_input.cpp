// Fuzz target: what conform makes of a destination's configured catalog and the files around it.
// The first line is the catalog; the first byte of the input picks the rest's role and the
// settings: bit 0 set, the rest is a recorded source read (input.recorded) both syncs send; clear,
// records are generated from the catalog's schemas and the rest is a verify command's stdout.
// Bits 1-2 pick the state type (STREAM, GLOBAL, LEGACY), bit 3 leaves out stream statuses.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "destination/catalog.hpp"
#include "destination/input.hpp"
#include "destination/landing.hpp"
#include "fuzz_input.hpp"
#include "util/error.hpp"

namespace {

using conform::destination::Catalog;
using conform::destination::Input;
using conform::destination::InputSettings;

InputSettings settings_of(std::uint8_t choice, std::string_view rest) {
    InputSettings settings;
    settings.records_per_stream = 6;
    settings.state_every = 2;
    static constexpr const char* k_state_types[] = {"STREAM", "GLOBAL", "LEGACY", "STREAM"};
    settings.state_type = k_state_types[(choice >> 1U) & 3U];
    settings.stream_status = (choice & 8U) == 0;
    if ((choice & 1U) != 0) {
        settings.recorded_text = std::string(rest);
        settings.recorded_origin = "recorded.jsonl";
    }
    return settings;
}

// What the checks rely on of an input: its text is its lines, and each line's first byte is found
// in that line.
void check_consistent(const Input& input) {
    std::uint64_t offset = 0;
    std::string text = input.text();
    for (std::size_t i = 0; i < input.messages.size(); ++i) {
        if (input.message_at(offset) != i) {
            __builtin_trap();
        }
        offset += input.messages[i].line.size() + 1;
    }
    if (offset != text.size()) {
        __builtin_trap();
    }
}

// Resumes `killed` after its first STATE of each stream, as a kill there would.
Input resumed_after_first_states(const Input& killed, std::size_t streams) {
    std::vector<std::optional<std::size_t>> after(streams);
    std::optional<std::size_t> after_all;
    for (std::size_t i = 0; i < killed.messages.size(); ++i) {
        const auto& message = killed.messages[i];
        if (message.kind != conform::destination::InputMessage::Kind::state) {
            continue;
        }
        if (message.stream && *message.stream < streams && !after[*message.stream]) {
            after[*message.stream] = i;
        } else if (message.all_streams && !after_all) {
            after_all = i;
        }
    }
    return conform::destination::resumed_input(killed, after, after_all);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    auto [catalog_text, rest] =
        conform::fuzz::split_first_line(conform::fuzz::as_text(data + 1, size - 1));
    try {
        Catalog catalog(catalog_text, "catalog.json");
        catalog.for_sync(2);
        auto settings = settings_of(data[0], rest);
        if (!settings.recorded_text) {
            conform::destination::LandedReader reader(catalog);
            conform::fuzz::feed_stdout_lines(reader, rest);
            reader.take();
        }
        for (int sync = 1; sync <= 2; ++sync) {
            auto input = conform::destination::sync_input(catalog, settings, sync);
            check_consistent(input);
            check_consistent(resumed_after_first_states(input, catalog.streams().size()));
        }
        if (auto input = conform::destination::unknown_stream_input(catalog, settings)) {
            check_consistent(*input);
        }
        if (auto input = conform::destination::schema_violation_input(catalog, settings)) {
            check_consistent(*input);
        }
    } catch (const conform::Error&) {
        // Bad input, named: the documented outcome.
    }
    return 0;
}
