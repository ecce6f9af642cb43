#include "meltano/checks.hpp"

namespace conform::meltano {

namespace ids = checks::ids;

const std::vector<checks::CheckInfo>& extension_checks() {
    using enum checks::Level;
    static const std::vector<checks::CheckInfo> k_checks{
        {ids::mx_help, {"MX-HELP-1"}, must, "--help exits 0 and prints usage"},
        {ids::mx_describe_json,
         {"MX-DESC-1"},
         must,
         "describe --format=json exits 0 and prints one JSON document with \"commands\""},
        {ids::mx_describe_shape,
         {"MX-DESC-1"},
         should,
         "describe's JSON has the seed's shape and names the extension (and invoker)"},
        {ids::mx_described_executables,
         {"MX-DESC-2"},
         must,
         "every described executable exists and each listed command runs"},
        {ids::mx_invoke_commands,
         {"MX-INV-1", "MX-EXIT-1"},
         must,
         "the test config's commands exit with the expected codes"},
        {ids::mx_test_commands, {"MX-TEST-1"}, must, "test* commands exit 0"},
        {ids::mx_unknown_command,
         {"MX-INV-1", "MX-EXIT-1"},
         must,
         "an unknown sub-command exits non-zero with a message on stderr"},
        {ids::mx_passthrough,
         {"MX-INV-2", "MX-EXIT-1"},
         must,
         "invoke and the invoker pass arguments through unchanged and propagate the exit code"},
        {ids::mx_initialize, {"MX-INIT-1"}, should, "initialize exits 0 twice and is idempotent"},
        {ids::mx_stdout_quiet,
         {"MX-IO-1"},
         should,
         "stdout stays empty outside describe and --help"},
        {ids::mx_stdin_unused, {"MX-IO-2"}, should, "no command waits on stdin"},
        {ids::mx_log_structured,
         {"MX-LOG-1"},
         should,
         "stderr lines carry an event, and a level and ISO 8601 timestamp where enabled"},
        {ids::mx_log_uncoloured, {"MX-LOG-1"}, should, "no colour codes on stderr without a TTY"},
        {ids::mx_log_json,
         {"MX-LOG-1"},
         should,
         "with MELTANO_LOG_JSON=true every stderr line is one JSON object with an event"},
        {ids::mx_log_errors, {"MX-LOG-1"}, should, "a failure is logged at error level"},
        {ids::mx_invoke_dashdash,
         {"MX-INV-2"},
         should,
         "invoke passes `--` through too (the EDK's parser drops the first)"},
    };
    return k_checks;
}

const checks::CheckInfo* find_extension_check(std::string_view id) {
    for (const auto& check : extension_checks()) {
        if (check.id == id) {
            return &check;
        }
    }
    return nullptr;
}

}  // namespace conform::meltano
