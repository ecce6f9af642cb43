#include "checks/registry.hpp"

namespace conform::checks {

const std::vector<CheckInfo>& all_checks() {
    using enum Level;
    static const std::vector<CheckInfo> k_checks{
        {ids::io_json_lines,
         {"AP-IO-1"},
         should,
         "stdout carries only JSON lines (non-JSON lines warn, fail under --strict)"},
        {ids::io_messages, {"AP-IO-1"}, must, "every JSON line is a valid AirbyteMessage"},
        {ids::io_known_types, {"AP-IO-2"}, should, "message types are known"},
        {ids::cli_spec, {"AP-CLI-1"}, must, "spec emits exactly one SPEC and exits 0"},
        {ids::cli_check,
         {"AP-CLI-2"},
         must,
         "check reports SUCCEEDED for a valid config and FAILED for an invalid one, exit 0"},
        {ids::cli_discover, {"AP-CLI-3"}, must, "discover emits exactly one CATALOG and exits 0"},
        {ids::cli_read,
         {"AP-CLI-4"},
         must,
         "read exits 0; a failing read exits non-zero after a TRACE error"},
        {ids::spec_schema,
         {"AP-SPEC-1"},
         must,
         "connectionSpecification is a valid draft-07 schema of an object"},
        {ids::spec_config, {"AP-SPEC-2"}, must, "the test config validates against the spec"},
        {ids::secrets, {"AP-SPEC-3"}, must, "no airbyte_secret value appears in any output"},
        {ids::discover_streams,
         {"AP-DISC-1"},
         must,
         "streams are unique, schemas valid, sync modes listed"},
        {ids::discover_keys,
         {"AP-DISC-2"},
         must,
         "primary-key and cursor paths exist in the stream schema"},
        {ids::read_streams, {"AP-READ-1"}, must, "records belong to configured streams"},
        {ids::read_schema, {"AP-READ-2"}, must, "every record validates against its stream schema"},
        {ids::read_emitted_at, {"AP-READ-3"}, must, "emitted_at is integer epoch milliseconds"},
        {ids::read_primary_key, {"AP-READ-4"}, must, "primary-key fields present and non-null"},
        {ids::read_cursor, {"AP-READ-5"}, must, "incremental records carry the cursor field"},
        {ids::read_deterministic,
         {"AP-READ-6"},
         should,
         "two full-refresh reads emit the same records"},
        {ids::read_expected, {"AP-READ-7"}, must, "the expected records are emitted"},
        {ids::state_well_formed, {"AP-STATE-1"}, must, "STATE messages are well formed"},
        {ids::state_no_older,
         {"AP-STATE-2"},
         must,
         "a read from the final state emits no record older than its cursor"},
        {ids::state_commits,
         {"X-STATE-1"},
         must,
         "each STATE commits exactly the records before it"},
        {ids::state_resume, {"X-STATE-2"}, must, "resuming from a checkpoint loses nothing"},
        {ids::state_exactly_once,
         {"X-STATE-3"},
         should,
         "resuming from a checkpoint re-emits nothing already committed"},
        {ids::state_final, {"X-STATE-4"}, should, "a successful read ends with a STATE"},
        {ids::tail_off, {"X-TAIL-1"}, must, "with tail false the connector exits 0 in time"},
        {ids::tail_on,
         {"X-TAIL-2"},
         must,
         "with tail true the connector keeps running, delivers new data and stops on SIGTERM"},
        {ids::tail_resume, {"X-TAIL-3"}, must, "resuming a stopped tail run loses nothing"},
        {ids::range_split,
         {"X-RANGE-1"},
         must,
         "split ranges together emit the full range's records exactly once"},
        {ids::range_subdivide,
         {"X-RANGE-2"},
         must,
         "child ranges resumed from the parent's state emit exactly what the parent would"},
        {ids::range_absent, {"X-RANGE-3"}, must, "an absent range behaves as the full range"},
        {ids::range_malformed, {"X-RANGE-4"}, should, "a malformed range fails without data"},
        {ids::merge_reduction,
         {"X-MERGE-1"},
         must,
         "merge-patch STATEs are well formed and reduce per RFC 7396"},
        {ids::merge_resume,
         {"X-MERGE-2"},
         must,
         "resuming from merge-reduced states loses nothing"},
        {ids::merge_equals_full,
         {"X-MERGE-3"},
         should,
         "reduced patch states equal the full states at every checkpoint"},
        {ids::projections,
         {"X-PROJ-1"},
         must,
         "records with projections equal the plain records with the projections applied"},
        {ids::compat, {"X-COMPAT-1"}, must, "extension keys at neutral values change nothing"},
    };
    return k_checks;
}

const CheckInfo* find_check(std::string_view id) {
    for (const auto& check : all_checks()) {
        if (check.id == id) {
            return &check;
        }
    }
    return nullptr;
}

}  // namespace conform::checks
