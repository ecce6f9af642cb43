// The core checks across runs (AP-*, X-STATE-*) through the runner's seam: the built-in suites
// (suites/*.json) run against SourceModel (fake_connector.hpp), correct and with one fault at a
// time; the real Runner, analyzer and checks judge each.
#include <doctest/doctest.h>

#include <string>

#include "checks/checks.hpp"
#include "fake_connector.hpp"

using namespace conform;
using namespace conform::testing;

namespace {

const bool k_noted = note_covered({"cli.spec",
                                   "cli.check",
                                   "cli.discover",
                                   "cli.read",
                                   "cli.read_invalid_config",
                                   "cli.check_minimal_config",
                                   "spec.schema_valid",
                                   "spec.config_valid",
                                   "spec.matches_expected",
                                   "spec.secrets_marked",
                                   "discover.streams_valid",
                                   "discover.key_paths_exist",
                                   "read.full_refresh_deterministic",
                                   "read.expected_records",
                                   "read.streams_complete",
                                   "read.streams_have_records",
                                   "read.no_duplicates",
                                   "state.final_checkpoint",
                                   "state.commit_boundaries",
                                   "state.resume_no_loss",
                                   "state.next_read_delivers_new_data",
                                   "state.resume_exactly_once"});

report::RunReport run_source(const SourceModel& model, std::vector<std::string> only,
                             const config::TestConfig& config = source_test_config()) {
    return run_builtin(model.behaviour(), config, std::move(only));
}

// Streams as discover lists them, from one stream's JSON text.
std::string streams(const std::string& first, const std::string& second) {
    return "[" + first + "," + second + "]";
}

const std::string k_events_stream =
    R"({"name":"events","json_schema":{"type":"object","properties":{"id":{"type":"integer"}}},)"
    R"("supported_sync_modes":["incremental"],"source_defined_primary_key":[["id"]]})";

}  // namespace

// Every check passes somewhere: its code judged something, so a check whose code was emptied (it
// judges nothing, and the framework skips what judged nothing) fails here.
TEST_CASE("cross-run: a correct source passes every check of the built-in suites") {
    REQUIRE(k_noted);
    SourceModel correct;
    auto report = run_source(correct, {});
    for (const auto& definition : checks::airbyte_checks()) {
        std::string id(definition.info.id);
        bool passed_somewhere = false;
        for (const auto& scenario : report.scenarios) {
            auto status = status_of(report, scenario.id, id);
            INFO(scenario.id, " / ", id, ": ", all_messages(report, scenario.id, id));
            CHECK(status != "failed");
            CHECK(status != "warned");
            passed_somewhere = passed_somewhere || status == "passed";
        }
        INFO(id);
        CHECK(passed_somewhere);
    }
}

TEST_CASE("cross-run cli.spec: two SPEC messages fail AP-CLI-1") {
    SourceModel model;
    model.spec_twice = true;
    expect_verdict(run_source(model, {"spec"}), "spec", "cli.spec", "failed",
                   "expected exactly one SPEC message, got 2");
}

TEST_CASE("cross-run spec.schema_valid: a spec that is no object schema fails; no SPEC skips") {
    SourceModel array_spec;
    array_spec.connection_specification = R"({"type":"array"})";
    expect_verdict(run_source(array_spec, {"spec"}), "spec", "spec.schema_valid", "failed",
                   "connectionSpecification must describe an object");

    SourceModel bad_keyword;
    bad_keyword.connection_specification = R"({"type":"object","required":"api_key"})";
    expect_verdict(run_source(bad_keyword, {"spec"}), "spec", "spec.schema_valid", "failed",
                   "connectionSpecification is not a valid draft-07 schema: at '/required'");

    SourceModel silent;
    silent.spec_silent = true;
    auto report = run_source(silent, {"spec"});
    expect_verdict(report, "spec", "spec.schema_valid", "skipped",
                   "spec emitted no SPEC message (see cli.spec)");
    expect_verdict(report, "spec", "cli.spec", "failed",
                   "expected exactly one SPEC message, got 0");
}

TEST_CASE("cross-run spec.config_valid: a config missing a required property fails AP-SPEC-2") {
    SourceModel model;
    model.connection_specification =
        R"({"type":"object","required":["api_key","account"],"properties":{)"
        R"("api_key":{"type":"string"},"account":{"type":"string"}}})";
    expect_verdict(run_source(model, {"spec"}), "spec", "spec.config_valid", "failed",
                   "the test config's connector config does not match the spec");

    SourceModel silent;
    silent.spec_silent = true;
    expect_verdict(run_source(silent, {"spec"}), "spec", "spec.config_valid", "skipped",
                   "spec emitted no SPEC message");
}

TEST_CASE("cross-run spec.secrets_marked: a property named as a secret and not marked warns") {
    SourceModel model;
    model.connection_specification =
        R"({"type":"object","required":["api_key"],"properties":{)"
        R"("api_key":{"type":"string","airbyte_secret":true},"password":{"type":"string"}}})";
    expect_verdict(run_source(model, {"spec"}), "spec", "spec.secrets_marked", "warned",
                   "property 'password' is named as a secret but not marked airbyte_secret");
    expect_verdict(run_source(SourceModel{}, {"spec"}), "spec", "spec.secrets_marked", "passed",
                   "");
    SourceModel silent;
    silent.spec_silent = true;
    expect_verdict(run_source(silent, {"spec"}), "spec", "spec.secrets_marked", "skipped",
                   "spec emitted no SPEC message");
}

TEST_CASE("cross-run spec.matches_expected: each place the spec differs from the file fails") {
    SourceModel changed;
    changed.connection_specification =
        R"({"type":"object","required":["api_key"],"properties":{)"
        R"("api_key":{"type":"string","airbyte_secret":true},)"
        R"("page_size":{"type":"integer","default":5},"region":{"type":"string"},)"
        R"("workspace":{"type":"string"}}})";
    auto report = run_source(changed, {"spec"});
    expect_verdict(report, "spec", "spec.matches_expected", "failed",
                   "at '/connectionSpecification/properties/page_size/default' the expected spec "
                   "has 2, the connector's 5");
    expect_verdict(report, "spec", "spec.matches_expected", "failed",
                   "at '/connectionSpecification/properties/workspace' the expected spec has "
                   R"(nothing, the connector's {"type":"string"})");

    SourceModel documented;
    documented.spec_unstable = true;  // adds a documentationUrl
    expect_verdict(run_source(documented, {"spec"}), "spec", "spec.matches_expected", "failed",
                   "at '/documentationUrl' the expected spec has nothing");
    auto manifest = source_test_config();
    manifest.expected_spec->connection_only = true;
    expect_verdict(run_source(documented, {"spec"}, manifest), "spec", "spec.matches_expected",
                   "passed", "a manifest: its connection specification only");

    auto unnamed = source_test_config();
    unnamed.expected_spec.reset();
    expect_verdict(run_source(SourceModel{}, {"spec"}, unnamed), "spec", "spec.matches_expected",
                   "skipped", "the test config names no expected_spec");
}

TEST_CASE("cross-run read.streams_have_records: a stream without records warns, unless listed") {
    SourceModel empty;
    empty.items_empty = true;
    expect_verdict(run_source(empty, {"read"}), "read", "read.streams_have_records", "warned",
                   "emitted no record of stream 'items': no record check judged it");

    auto allowed = source_test_config();
    allowed.empty_streams = {"items"};
    expect_verdict(run_source(empty, {"read"}, allowed), "read", "read.streams_have_records",
                   "passed", "allowed to be empty (empty_streams): items");
    // A stream listed that has records: the list says more than the connector needs.
    expect_verdict(run_source(SourceModel{}, {"read"}, allowed), "read",
                   "read.streams_have_records", "passed",
                   "listed in empty_streams, yet with records in read: items");

    SourceModel crashing;
    crashing.read_crashes = true;
    expect_verdict(run_source(crashing, {"read"}), "read", "read.streams_have_records", "skipped",
                   "no read exited 0");
    // Failed reads are not compared, and the skips say the reads failed (source-posthog).
    expect_verdict(run_source(crashing, {"read-twice"}), "read-twice",
                   "read.full_refresh_deterministic", "skipped",
                   "failed (exit code 1): no whole reads to compare (see cli.read)");
}

TEST_CASE("cross-run secrets.not_leaked: the skip says why no secret is known") {
    expect_verdict(run_source(SourceModel{}, {"spec"}), "spec", "secrets.not_leaked", "passed", "");

    auto without_secret = source_test_config();
    without_secret.config_text = R"({"page_size":2,"region":"eu"})";
    without_secret.invalid_config_text.reset();  // it sets api_key
    expect_verdict(run_source(SourceModel{}, {"spec"}, without_secret), "spec",
                   "secrets.not_leaked", "skipped",
                   "the spec marks 1 property airbyte_secret, but the config sets none of them");

    SourceModel unmarked;
    unmarked.connection_specification =
        R"({"type":"object","properties":{"api_key":{"type":"string"}}})";
    expect_verdict(run_source(unmarked, {"spec"}), "spec", "secrets.not_leaked", "skipped",
                   "the spec marks no config property airbyte_secret");

    SourceModel silent;
    silent.spec_silent = true;
    expect_verdict(run_source(silent, {"check-valid"}), "check-valid", "secrets.not_leaked",
                   "skipped", "the setup spec run emitted no SPEC");
}

TEST_CASE("cross-run cli.check: a wrong status for either config fails; no invalid config skips") {
    SourceModel refuses_valid;
    refuses_valid.check_status = "FAILED";
    expect_verdict(run_source(refuses_valid, {"check-valid"}), "check-valid", "cli.check", "failed",
                   "with the main config expected status SUCCEEDED, got FAILED");

    SourceModel accepts_invalid;
    accepts_invalid.check_accepts_invalid = true;
    expect_verdict(run_source(accepts_invalid, {"check-invalid"}), "check-invalid", "cli.check",
                   "failed", "with the invalid config expected status FAILED, got SUCCEEDED");

    SourceModel silent;
    silent.check_fails_silently = true;
    expect_verdict(run_source(silent, {"check-invalid"}), "check-invalid", "cli.check", "failed",
                   "status FAILED carries no message explaining why");

    auto without_invalid = source_test_config();
    without_invalid.invalid_config_text.reset();
    expect_verdict(run_source(SourceModel{}, {"check-invalid"}, without_invalid), "check-invalid",
                   "cli.check", "skipped", "the test config has no \"invalid_config\"");
}

TEST_CASE("cross-run cli.check_minimal_config: check crashing on the minimal config fails") {
    SourceModel crashes;
    crashes.check_crashes_without_region = true;
    auto report = run_source(crashes, {"check-minimal-config", "check-valid"});
    expect_verdict(report, "check-minimal-config", "cli.check_minimal_config", "failed",
                   "with only the required properties and defaults, check ended with exit code 1");
    CHECK(status_of(report, "check-valid", "cli.check") == "passed");

    SourceModel silent;
    silent.spec_silent = true;
    expect_verdict(run_source(silent, {"check-minimal-config"}), "check-minimal-config",
                   "cli.check_minimal_config", "skipped",
                   "spec emitted no connectionSpecification");
}

TEST_CASE("cross-run cli.discover and discover.*: no CATALOG fails cli.discover, skips the rest") {
    SourceModel silent;
    silent.discover_silent = true;
    auto report = run_source(silent, {"discover"});
    expect_verdict(report, "discover", "cli.discover", "failed",
                   "expected exactly one CATALOG message, got 0");
    expect_verdict(report, "discover", "discover.streams_valid", "skipped",
                   "discover emitted no CATALOG message (see cli.discover)");
    expect_verdict(report, "discover", "discover.key_paths_exist", "skipped",
                   "discover emitted no CATALOG message (see cli.discover)");
}

TEST_CASE("cross-run discover.streams_valid: a stream listed twice fails AP-DISC-1") {
    SourceModel model;
    model.discovered_streams = streams(k_events_stream, k_events_stream);
    expect_verdict(run_source(model, {"discover"}), "discover", "discover.streams_valid", "failed",
                   "stream 'events' is listed more than once");
}

TEST_CASE("cross-run discover.key_paths_exist: a key outside the schema fails; no keys skip") {
    SourceModel missing_key;
    missing_key.discovered_streams = streams(
        R"({"name":"items","json_schema":{"type":"object","properties":{"id":{}}},)"
        R"("supported_sync_modes":["full_refresh"],"source_defined_primary_key":[["uuid"]]})",
        k_events_stream);
    expect_verdict(run_source(missing_key, {"discover"}), "discover", "discover.key_paths_exist",
                   "failed", "stream 'items': primary key [\"uuid\"] is not a property");

    SourceModel empty_path;
    empty_path.discovered_streams = streams(
        R"({"name":"items","json_schema":{"type":"object","properties":{"id":{}}},)"
        R"("supported_sync_modes":["full_refresh"],"source_defined_primary_key":[["id"],[]]})",
        k_events_stream);
    expect_verdict(run_source(empty_path, {"discover"}), "discover", "discover.key_paths_exist",
                   "failed", "stream 'items': a primary key path is empty ([])");

    SourceModel no_keys;
    no_keys.discovered_streams =
        R"([{"name":"items","json_schema":{"type":"object"},"supported_sync_modes":["full_refresh"]}])";
    expect_verdict(run_source(no_keys, {"discover"}), "discover", "discover.key_paths_exist",
                   "skipped", "no discovered stream declares a primary key or a default cursor");
}

TEST_CASE("cross-run cli.read: a read that crashes without a TRACE error fails AP-CLI-4") {
    SourceModel crashes;
    crashes.read_crashes = true;
    expect_verdict(run_source(crashes, {"read"}), "read", "cli.read", "failed",
                   "read failed: exit code 1; no TRACE error message came first");

    SourceModel fails;
    fails.read_fails = true;
    expect_verdict(run_source(fails, {"read"}), "read", "cli.read", "failed",
                   "read failed: exit code 1, and said: \"cannot read\"");
}

TEST_CASE("cross-run cli.read_invalid_config: reading with the invalid config must fail") {
    SourceModel succeeds;
    succeeds.invalid_config_read_succeeds = true;
    expect_verdict(run_source(succeeds, {"read-invalid-config"}), "read-invalid-config",
                   "cli.read_invalid_config", "warned",
                   "with the invalid config the read succeeded (exit 0, 9 record(s)) and emitted "
                   "no TRACE error");

    auto without_invalid = source_test_config();
    without_invalid.invalid_config_text.reset();
    expect_verdict(run_source(SourceModel{}, {"read-invalid-config"}, without_invalid),
                   "read-invalid-config", "cli.read_invalid_config", "skipped",
                   "the test config has no \"invalid_config\"");
}

TEST_CASE("cross-run read.full_refresh_deterministic: other content in the second read warns") {
    SourceModel changing;
    changing.items_change_between_reads = true;
    expect_verdict(run_source(changing, {"read-twice"}), "read-twice",
                   "read.full_refresh_deterministic", "warned",
                   "same key, other content in the second read");
    auto name_volatile = source_test_config();
    name_volatile.volatile_fields = {{"items", {"/name"}}};
    expect_verdict(run_source(changing, {"read-twice"}, name_volatile), "read-twice",
                   "read.full_refresh_deterministic", "passed", "volatile fields ignored");

    auto events_only = source_test_config();
    events_only.catalog_text = R"({"streams":[
      {"stream":{"name":"events","json_schema":{"type":"object"},
                 "supported_sync_modes":["incremental"]},
       "sync_mode":"incremental","destination_sync_mode":"append","cursor_field":["seq"]}]})";
    expect_verdict(run_source(SourceModel{}, {"read-twice"}, events_only), "read-twice",
                   "read.full_refresh_deterministic", "skipped",
                   "no full-refresh stream in the configured catalog");
}

TEST_CASE("cross-run read.full_refresh_deterministic: a mixed catalog compares every stream once") {
    auto report = run_source(SourceModel{}, {"read-twice", "read-twice-as-full-refresh"});
    expect_verdict(report, "read-twice", "read.full_refresh_deterministic", "passed",
                   "compared: items");
    expect_verdict(report, "read-twice-as-full-refresh", "read.full_refresh_deterministic",
                   "passed", "compared: events (incremental, read in full refresh)");

    auto items_only = source_test_config();
    items_only.catalog_text = R"({"streams":[
      {"stream":{"name":"items","json_schema":{"type":"object"},
                 "supported_sync_modes":["full_refresh"]},
       "sync_mode":"full_refresh","destination_sync_mode":"overwrite"}]})";
    expect_verdict(run_source(SourceModel{}, {"read-twice-as-full-refresh"}, items_only),
                   "read-twice-as-full-refresh", "read.full_refresh_deterministic", "skipped",
                   "no incremental stream of the configured catalog supports full refresh");
}

TEST_CASE("cross-run read.expected_records: an expected record not emitted fails AP-READ-7") {
    SourceModel drops;
    drops.drops_item_3 = true;
    auto report = run_source(drops, {"read-expected"});
    // Known by its primary key, as an emitted record is (before 2026-12-08 by the first 80
    // characters of its data, which showed the key only when it came first).
    expect_verdict(report, "read-expected", "read.expected_records", "failed",
                   "expected record not emitted: items key [3] (line 2 of expected_records.jsonl): "
                   "no record with its primary key was emitted");

    auto renamed = source_test_config();
    renamed.expected_records = {{"items", R"({"id":2,"name":"item two"})", 1}};
    expect_verdict(run_source(SourceModel{}, {"read-expected"}, renamed), "read-expected",
                   "read.expected_records", "failed",
                   "has its primary key and differs (expected -> emitted): /name: \"item two\" "
                   "-> \"item 2\"");

    auto none_expected = source_test_config();
    none_expected.expected_records.clear();
    expect_verdict(run_source(SourceModel{}, {"read-expected"}, none_expected), "read-expected",
                   "read.expected_records", "skipped",
                   "the test config has no \"expected_records\"");
}

TEST_CASE(
    "cross-run read.expected_records in order: a stream's first records, in the file's order") {
    auto in_order = source_test_config();
    in_order.expected_in_order = true;
    in_order.expected_records = {{"items", R"({"id":1,"name":"item 1"})", 1},
                                 {"items", R"({"id":2,"name":"item 2"})", 2}};
    expect_verdict(run_source(SourceModel{}, {"read-expected"}, in_order), "read-expected",
                   "read.expected_records", "passed", "mode subset, in order");

    std::swap(in_order.expected_records[0].data_json, in_order.expected_records[1].data_json);
    expect_verdict(run_source(SourceModel{}, {"read-expected"}, in_order), "read-expected",
                   "read.expected_records", "failed",
                   "out of order: record 1 of stream 'items' is items key [1]");

    // A record whose fields differ is missing, not out of place: the order is that of the
    // primary keys (Airbyte's exact_order), and item 1 comes first.
    in_order.expected_records = {{"items", R"({"id":1,"name":"item one"})", 1},
                                 {"items", R"({"id":2,"name":"item 2"})", 2}};
    auto renamed = run_source(SourceModel{}, {"read-expected"}, in_order);
    expect_verdict(renamed, "read-expected", "read.expected_records", "failed",
                   "expected record not emitted: items key [1]");
    CHECK(all_messages(renamed, "read-expected", "read.expected_records").find("out of order") ==
          std::string::npos);

    // Items 1 and 3 are emitted, but item 2 comes between them.
    auto gap = source_test_config();
    gap.expected_in_order = true;
    expect_verdict(run_source(SourceModel{}, {"read-expected"}, gap), "read-expected",
                   "read.expected_records", "failed", "out of order: record 2 of stream 'items'");
    gap.expected_in_order = false;
    expect_verdict(run_source(SourceModel{}, {"read-expected"}, gap), "read-expected",
                   "read.expected_records", "passed", "mode subset");
}

TEST_CASE("cross-run state.final_checkpoint: records after the last STATE warn (X-STATE-4)") {
    SourceModel late;
    late.states_every_4 = true;
    expect_verdict(run_source(late, {"read"}), "read", "state.final_checkpoint", "warned",
                   "comes after the last STATE that commits it");

    SourceModel crashes;
    crashes.read_crashes = true;
    expect_verdict(run_source(crashes, {"read"}), "read", "state.final_checkpoint", "skipped",
                   "no read with records exited 0 (see cli.read)");
}

TEST_CASE("cross-run read.streams_complete: a stream INCOMPLETE while the read exits 0 fails") {
    SourceModel incomplete;
    incomplete.items_incomplete = true;
    expect_verdict(run_source(incomplete, {"read"}), "read", "read.streams_complete", "failed",
                   "configured stream events has no STREAM_STATUS though others do");
    expect_verdict(run_source(incomplete, {"read"}), "read", "read.streams_complete", "failed",
                   "stream items");
    expect_verdict(run_source(SourceModel{}, {"read"}), "read", "read.streams_complete", "passed",
                   "");

    SourceModel crashes;
    crashes.read_crashes = true;
    expect_verdict(run_source(crashes, {"read"}), "read", "read.streams_complete", "skipped",
                   "no read exited 0");
}

TEST_CASE("cross-run read.no_duplicates: the same record twice in one read warns, and is no loss") {
    SourceModel twice;
    twice.duplicates_item_2 = true;
    auto report = run_source(twice, {"read", "read-twice"});
    expect_verdict(report, "read", "read.no_duplicates", "warned",
                   "emitted again in the same read, same key and content: items key [2]");
    expect_verdict(report, "read-twice", "read.full_refresh_deterministic", "passed", "");
    expect_verdict(run_source(SourceModel{}, {"read"}), "read", "read.no_duplicates", "passed", "");
}

TEST_CASE("cross-run state.record_counts: a wrong sourceStats.recordCount warns (AP-STATE-3)") {
    SourceModel miscounts;
    miscounts.wrong_record_count = true;
    expect_verdict(run_source(miscounts, {"read"}), "read", "state.record_counts", "warned",
                   "sourceStats.recordCount is 3 but 2 RECORD(s)");
    expect_verdict(run_source(SourceModel{}, {"read"}), "read", "state.record_counts", "passed",
                   "");
}

TEST_CASE("cross-run state.commit_boundaries and resume_no_loss: a STATE ahead of its records") {
    SourceModel ahead;
    ahead.state_ahead = true;
    auto report = run_source(ahead, {"resume"});
    expect_verdict(report, "resume", "state.commit_boundaries", "failed",
                   "covers records emitted after it: resuming from it lost 1 of the 2 record(s)");
    expect_verdict(report, "resume", "state.resume_no_loss", "failed",
                   "lost after resuming from checkpoint");
}

TEST_CASE("cross-run state.commit_boundaries: a record skipped after resuming is the read's loss") {
    SourceModel skips;
    skips.resume_skips_second = true;
    auto report = run_source(skips, {"resume"});
    expect_verdict(report, "resume", "state.resume_no_loss", "failed",
                   "lost after resuming from checkpoint");
    expect_verdict(report, "resume", "state.commit_boundaries", "passed", "");
}

TEST_CASE("cross-run state.*: when the read to resume crashed, the resume checks skip") {
    SourceModel crashes;
    crashes.read_crashes = true;
    auto report = run_source(crashes, {"resume"});
    for (const char* check :
         {"state.commit_boundaries", "state.resume_no_loss", "state.resume_exactly_once"}) {
        expect_verdict(report, "resume", check, "skipped",
                       "the read of step 'full' that it resumes from failed ('full: read': exit "
                       "code 1)");
    }
}

TEST_CASE(
    "cross-run state.resume_exactly_once: a record re-emitted after several checkpoints is one "
    "example naming them all, each re-emission counted") {
    SourceModel from_start;
    from_start.resume_ignores_state = true;
    auto report = run_source(from_start, {"resume"});
    expect_verdict(report, "resume", "state.resume_exactly_once", "warned",
                   "re-emitted after resuming from checkpoints 3, 4: already committed by each: "
                   "events key [1] (line 5 of resume: read [from checkpoint 3/4])");
    const auto* check = find_result(report, "resume", "state.resume_exactly_once");
    REQUIRE(check != nullptr);
    CHECK(check->examples.size() == 5);
    CHECK(check->examples[0].run == "resume: read [from checkpoint 3/4]");
    CHECK(check->examples[0].line == 5);
    // Resumed from checkpoints 1, 3 and 4 (events 0, 4 and 6 committed): events 1 to 4 again
    // twice, 5 and 6 once.
    CHECK(check->occurrences == 10);
}

TEST_CASE("cross-run state.resume_exactly_once: re-emitting a committed record warns") {
    SourceModel inclusive;
    inclusive.resume_inclusive = true;
    expect_verdict(run_source(inclusive, {"resume"}), "resume", "state.resume_exactly_once",
                   "warned", "re-emitted after resuming from checkpoint");
    auto by_design = source_test_config();
    by_design.reemitting_streams = {"events"};
    expect_verdict(run_source(inclusive, {"resume"}, by_design), "resume",
                   "state.resume_exactly_once", "passed",
                   "not judged, as the test config's reemitting_streams says they emit every "
                   "record again by design: events");

    auto items_only = source_test_config();
    items_only.catalog_text = R"({"streams":[
      {"stream":{"name":"items","json_schema":{"type":"object"},
                 "supported_sync_modes":["full_refresh"]},
       "sync_mode":"full_refresh","destination_sync_mode":"overwrite","primary_key":[["id"]]}]})";
    expect_verdict(run_source(SourceModel{}, {"resume"}, items_only), "resume",
                   "state.resume_exactly_once", "skipped",
                   "no incremental stream in the configured catalog");
}

TEST_CASE("cross-run state.next_read_delivers_new_data: new data after the final STATE") {
    SourceModel skips;
    skips.resume_skips_new_data = true;
    expect_verdict(run_source(skips, {"read-new-data"}), "read-new-data",
                   "state.next_read_delivers_new_data", "failed",
                   "not delivered by the read resumed from that STATE");

    SourceModel adds_nothing;
    adds_nothing.inject_adds_nothing = true;
    expect_verdict(run_source(adds_nothing, {"read-new-data"}), "read-new-data",
                   "state.next_read_delivers_new_data", "skipped",
                   "the inject command added no record");

    // A failing inject command is named, with its stderr (before: only "added no record").
    SourceModel inject_fails;
    inject_fails.inject_fails = true;
    expect_verdict(run_source(inject_fails, {"read-new-data"}), "read-new-data",
                   "state.next_read_delivers_new_data", "skipped",
                   "the inject command failed: exit code 1; its stderr ends with: inject.sh: the "
                   "stub API is down");

    auto no_inject = source_test_config();
    no_inject.inject_command.clear();
    expect_verdict(run_source(SourceModel{}, {"read-new-data"}, no_inject), "read-new-data",
                   "state.next_read_delivers_new_data", "skipped",
                   "no \"tail\": {\"inject_command\"}");
}
