#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace conform::checks {

enum class Level { must, should };

// A check: a stable id, the contract clauses it enforces and what it verifies. Ids are part of
// conform's interface (--only/--skip, reports); never rename one. Each check is defined beside
// its code: suite::airbyte_checks() (src/suite/check_registry.hpp) and
// meltano::extension_checks().
struct CheckInfo {
    std::string_view id;
    std::vector<std::string_view> clauses;
    Level level;
    std::string_view title;
};

namespace ids {
inline constexpr std::string_view io_json_lines = "io.json_lines";
inline constexpr std::string_view io_messages = "io.messages_valid";
inline constexpr std::string_view io_known_types = "io.known_types";
inline constexpr std::string_view cli_spec = "cli.spec";
inline constexpr std::string_view cli_check = "cli.check";
inline constexpr std::string_view cli_discover = "cli.discover";
inline constexpr std::string_view cli_read = "cli.read";
inline constexpr std::string_view spec_schema = "spec.schema_valid";
inline constexpr std::string_view spec_config = "spec.config_valid";
inline constexpr std::string_view secrets = "secrets.not_leaked";
inline constexpr std::string_view discover_streams = "discover.streams_valid";
inline constexpr std::string_view discover_keys = "discover.key_paths_exist";
inline constexpr std::string_view read_streams = "read.streams_configured";
inline constexpr std::string_view read_schema = "read.records_match_schema";
inline constexpr std::string_view read_emitted_at = "read.emitted_at_ms";
inline constexpr std::string_view read_primary_key = "read.primary_key_present";
inline constexpr std::string_view read_cursor = "read.cursor_present";
inline constexpr std::string_view read_deterministic = "read.full_refresh_deterministic";
inline constexpr std::string_view read_expected = "read.expected_records";
inline constexpr std::string_view state_well_formed = "state.well_formed";
inline constexpr std::string_view state_no_older = "state.incremental_no_older";
inline constexpr std::string_view state_commits = "state.commit_boundaries";
inline constexpr std::string_view state_resume = "state.resume_no_loss";
inline constexpr std::string_view state_exactly_once = "state.resume_exactly_once";
inline constexpr std::string_view state_final = "state.final_checkpoint";
inline constexpr std::string_view tail_off = "tail.off_exits";
inline constexpr std::string_view tail_on = "tail.on_streams";
inline constexpr std::string_view tail_resume = "tail.resume_no_loss";
inline constexpr std::string_view tail_delivers = "tail.delivers_new_data";
inline constexpr std::string_view read_invalid_config = "cli.read_invalid_config";
inline constexpr std::string_view check_minimal_config = "cli.check_minimal_config";
inline constexpr std::string_view state_new_data = "state.next_read_delivers_new_data";
inline constexpr std::string_view range_split = "range.split_union";
inline constexpr std::string_view range_subdivide = "range.state_subdivision";
inline constexpr std::string_view range_absent = "range.absent_is_full";
inline constexpr std::string_view range_malformed = "range.malformed_rejected";
inline constexpr std::string_view merge_reduction = "merge.reduction_valid";
inline constexpr std::string_view merge_resume = "merge.resume_no_loss";
inline constexpr std::string_view merge_equals_full = "merge.patches_equal_full";
inline constexpr std::string_view projections = "projections.differential";
inline constexpr std::string_view compat = "compat.neutral_keys";
// Meltano extensions (MX-*), `"protocol": "meltano-extension"` test configs (docs/meltano.md).
inline constexpr std::string_view mx_help = "mx.help";
inline constexpr std::string_view mx_describe_json = "mx.describe_json";
inline constexpr std::string_view mx_describe_shape = "mx.describe_shape";
inline constexpr std::string_view mx_described_executables = "mx.described_executables";
inline constexpr std::string_view mx_invoke_commands = "mx.invoke_commands";
inline constexpr std::string_view mx_test_commands = "mx.test_commands";
inline constexpr std::string_view mx_unknown_command = "mx.unknown_command";
inline constexpr std::string_view mx_passthrough = "mx.passthrough";
inline constexpr std::string_view mx_initialize = "mx.initialize";
inline constexpr std::string_view mx_stdout_quiet = "mx.stdout_quiet";
inline constexpr std::string_view mx_stdin_unused = "mx.stdin_unused";
inline constexpr std::string_view mx_log_structured = "mx.log_structured";
inline constexpr std::string_view mx_log_uncoloured = "mx.log_uncoloured";
inline constexpr std::string_view mx_log_json = "mx.log_json";
inline constexpr std::string_view mx_log_errors = "mx.log_errors";
inline constexpr std::string_view mx_invoke_dashdash = "mx.invoke_keeps_dashdash";
}  // namespace ids

}  // namespace conform::checks
