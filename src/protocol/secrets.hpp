#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <rapidjson/fwd.h>

namespace conform::protocol {

// The values of `config` at properties the spec's `schema` (its connectionSpecification) marks
// `airbyte_secret`, following properties, patternProperties, additionalProperties, dependencies,
// items (one schema or a tuple) and additionalItems, every oneOf/anyOf/allOf and if/then/else
// branch, and local `$ref`s ("#/definitions/..."; each reference cycle once). Strings are taken
// as they are, numbers as their JSON text. Iterative: any nesting depth is fine.
std::vector<std::string> collect_secrets(const rapidjson::Value& schema,
                                         const rapidjson::Value& config);

// Every string value in `config`, at any depth (iterative): what conform masks when no spec says
// which values are secret.
std::vector<std::string> config_strings(const rapidjson::Value& config);

// The secret values of a connector config (properties marked `airbyte_secret`), found in output
// and masked in every report.
//
// Lengths (docs/hostile-input.md): values of 3 bytes or more are masked in reports; values of 4
// bytes or more are also reported as leaks when they appear in output (a shorter value would
// match by chance everywhere). Shorter values are neither.
class Secrets {
public:
    static constexpr std::size_t k_min_masked_length = 3;
    static constexpr std::size_t k_min_detected_length = 4;

    Secrets() = default;
    explicit Secrets(std::vector<std::string> values);

    // When the connector yielded no spec (no SPEC, or one without a connectionSpecification),
    // no value is known to be secret: every value of `unmarked` (the configs' strings) is masked
    // in reports, none is reported as a leak (a start date in a record is no leak).
    static Secrets without_spec(std::vector<std::string> unmarked);

    // True when nothing would be masked.
    bool empty() const { return m_mask_needles.empty(); }
    // False when no spec said which values are secret (see without_spec).
    bool from_spec() const { return m_from_spec; }
    // True when `text` contains a secret of at least k_min_detected_length bytes, raw, in any
    // JSON string spelling (escapes such as \u0061 for any character, mixed freely), encoded up
    // to three times (JSON in a JSON string in a JSON string), or as a JSON pointer token.
    // Linear in the length of `text`.
    bool found_in(std::string_view text) const;
    // `text` with every secret (at least k_min_masked_length bytes), in any of those spellings,
    // replaced by "**********". Linear in the length of `text`, however many occurrences.
    std::string redact(std::string_view text) const;
    // The longest text that can spell one secret, for scanning a stream chunk by chunk.
    std::size_t max_spelling_length() const { return m_max_spelling; }

private:
    std::vector<std::string> m_detect_values;
    std::vector<std::string> m_mask_values;
    std::vector<std::string> m_detect_needles;
    std::vector<std::string> m_mask_needles;
    // Per mask value: its Knuth-Morris-Pratt failure function, for masking in decoded text.
    std::vector<std::vector<std::size_t>> m_mask_failures;
    std::size_t m_max_spelling = 0;
    bool m_from_spec = true;
};

// Scans a stream (stderr) for secrets as it arrives, across chunk boundaries, so that a leak is
// found even when the stream is longer than what conform keeps of it.
class SecretStreamScanner {
public:
    explicit SecretStreamScanner(const Secrets* secrets) : m_secrets(secrets) {}
    void feed(std::string_view chunk);
    bool found() const { return m_found; }

private:
    const Secrets* m_secrets;
    std::string m_window;
    bool m_found = false;
};

}  // namespace conform::protocol
