# End-to-end cases for Singer taps: the built conform against the reference tap
# (fixtures/reference-tap, python3 stdlib) and the test taps written the way the Meltano SDK writes
# (tests/connectors/singer-sdk-style). Included by CMakeLists.txt.
set(singer_case ${CMAKE_CURRENT_SOURCE_DIR}/singer_case.py)
set(reference_tap ${PROJECT_SOURCE_DIR}/fixtures/reference-tap)

# conform_singer_case(NAME FAULT EXPECTED_CHECKS [extra singer_case.py arguments...])
# EXPECTED_CHECKS: the exact set of checks that must fail or warn ("none": all pass); each fault
# of the reference tap is built for one check (docs/singer.md, "The reference tap").
function(conform_singer_case name fault expected)
  set(fault_args "")
  if(NOT fault STREQUAL "-")
    set(fault_args --fault ${fault})
  endif()
  add_test(NAME e2e.singer.${name}
           COMMAND ${Python3_EXECUTABLE} ${singer_case} --conform ${conform_bin}
                   --tap-dir ${reference_tap} ${fault_args} --expect ${expected} ${ARGN})
  set_tests_properties(e2e.singer.${name} PROPERTIES TIMEOUT 600)
endfunction()

# Every check judges something and passes. Skipped: sg.batch_files wherever the sync was not
# given the batch config (it emits no BATCH there), and nothing else.
set(batch_only_skips sg-currently-syncing:sg.batch_files,sg-incremental:sg.batch_files)
set(batch_only_skips ${batch_only_skips},sg-properties:sg.batch_files,sg-resume:sg.batch_files)
set(batch_only_skips ${batch_only_skips},sg-selection:sg.batch_files,sg-future-state:sg.batch_files)
set(batch_only_skips ${batch_only_skips},sg-start-date:sg.batch_files,sg-sync:sg.batch_files)
conform_singer_case(reference_tap_passes - none --expect-skipped ${batch_only_skips}
                    --secret reftap-secret-key-4321
                    --must-pass sg.about,sg.discover,sg.catalog_valid,sg.catalog_metadata
                    --must-pass sg.sync_exit,sg.messages_valid,sg.schema_before_record
                    --must-pass sg.records_match_schema,sg.key_properties_present
                    --must-pass sg.state_bookmarks,sg.bookmarks_monotonic,sg.activate_version
                    --must-pass sg.batch_files,sg.metrics_valid,sg.secrets_not_leaked
                    --must-pass sg.invalid_config,sg.properties_flag,sg.selection_honoured
                    --must-pass sg.automatic_fields,sg.incremental_no_older,sg.resume_no_loss
                    --must-pass sg.resume_currently_syncing,sg.start_date_honoured
                    --must-pass sg.future_state_no_older)
conform_singer_case(reference_tap_passes_strict - none --strict)

# One fault per SG clause, caught by exactly its check.
conform_singer_case(fault.about_broken about_broken sg.about)
conform_singer_case(fault.discover_exit_nonzero discover_exit_nonzero sg.discover)
# Coverage (docs/coverage.md): one sync of every stream; INCREMENTAL and FULL_TABLE streams with
# data, sg.batch_files' clause skipped with its reason, discovery's checks not selected.
conform_singer_case(coverage - none --only sg-sync --expect-skipped sg-sync:sg.batch_files
                    --expect-coverage stream:users=data,stream:countries=data
                    --expect-coverage mode:users=INCREMENTAL,mode:countries=FULL_TABLE
                    --expect-coverage clause:SG-MSG-1=judged,clause:SG-BATCH-1=skipped
                    --expect-coverage clause:SG-DISC-1=not-selected)
conform_singer_case(fault.catalog_duplicate_id catalog_duplicate_id sg.catalog_valid)
conform_singer_case(fault.metadata_bad_breadcrumb metadata_bad_breadcrumb sg.catalog_metadata)
conform_singer_case(fault.sync_exit_nonzero sync_exit_nonzero sg.sync_exit)
conform_singer_case(fault.invalid_config_accepted invalid_config_accepted sg.invalid_config)
conform_singer_case(fault.properties_ignored properties_ignored sg.properties_flag)
conform_singer_case(fault.leak_secret leak_secret sg.secrets_not_leaked
                    --secret reftap-secret-key-4321)
conform_singer_case(fault.stdout_garbage stdout_garbage sg.messages_valid)
conform_singer_case(fault.record_before_schema record_before_schema sg.schema_before_record)
conform_singer_case(fault.record_schema_violation record_schema_violation sg.records_match_schema)
conform_singer_case(fault.missing_key_property missing_key_property sg.key_properties_present)
conform_singer_case(fault.final_progress_markers final_progress_markers sg.state_bookmarks)
conform_singer_case(fault.bookmark_backwards bookmark_backwards sg.bookmarks_monotonic)
conform_singer_case(fault.record_wrong_version record_wrong_version sg.activate_version
                    --must-warn sg.activate_version)
conform_singer_case(fault.record_older_version record_older_version sg.activate_version
                    --must-fail sg.activate_version)
# tap-mysql 1.17.7: an interrupted full-table sync resumes after its last key under a new version,
# whose ACTIVATE_VERSION drops the rows sent before; each resume alone loses nothing it owed.
conform_singer_case(fault.resume_new_version resume_new_version sg.resume_no_loss
                    --must-fail sg.resume_no_loss)
# LOG_BASED from the test config (log_based), as database taps are run: countries' initial full
# table under a version, resumable after its last key, then the log. The fault resumes straight
# into the log and never reads the rest of the table (only LOG_BASED selects the code that loses).
set(log_based_args --tap-set log_based=true --set "log_based=[\"countries\"]")
conform_singer_case(reading.log_based - none ${log_based_args}
                    --must-pass sg.resume_no_loss,sg.activate_version,sg.state_bookmarks
                    --expect-coverage mode:countries=LOG_BASED,mode:users=INCREMENTAL)
conform_singer_case(fault.log_based_resume_loses log_based_resume_loses sg.resume_no_loss
                    ${log_based_args} --must-fail sg.resume_no_loss)
conform_singer_case(input.log_based_forced_full_table - none --set "log_based=[\"countries\"]"
                    --expect-input-error "log_based names stream 'countries', but its catalog forces FULL_TABLE replication")
conform_singer_case(input.log_based_and_key - none --tap-set log_based=true
                    --set "log_based=[\"users\"]"
                    --set "replication_keys={\"users\":\"updated_at\"}"
                    --expect-input-error "'users' is also in replication_keys")
# PipelineWise's tap-postgres names its messages' streams by tap_stream_id ("public-products" for
# the catalog's "products"). Before 2026-12-08 conform matched no record to its catalog stream:
# sg.streams_have_records warned that no stream emitted a record, selection checks were skipped.
conform_singer_case(reading.messages_by_tap_stream_id prefixed_ids,messages_by_tap_stream_id none
                    --expect-skipped ${batch_only_skips}
                    --must-pass sg.streams_have_records,sg.selection_honoured,sg.automatic_fields
                    --must-pass sg.incremental_no_older,sg.resume_currently_syncing)
conform_singer_case(reading.prefixed_ids prefixed_ids none
                    --must-pass sg.incremental_no_older,sg.resume_currently_syncing)
conform_singer_case(reading.keyless_view keyless_view none --must-pass sg.automatic_fields)
# tap-mysql's catalog: each column's inclusion in its schema (singer-python's Schema), none in its
# metadata. Before 2026-12-07 sg.catalog_metadata warned that the keys were "available".
conform_singer_case(reading.inclusion_in_schema inclusion_in_schema none
                    --must-pass sg.catalog_metadata,sg.automatic_fields,sg.selection_honoured)
conform_singer_case(reading.activate_after_records activate_after_records none
                    --must-pass sg.activate_version)
conform_singer_case(fault.batch_missing_file batch_missing_file sg.batch_files)
conform_singer_case(fault.metric_broken metric_broken sg.metrics_valid)
conform_singer_case(fault.selection_ignored selection_ignored sg.selection_honoured)
conform_singer_case(fault.automatic_dropped automatic_dropped sg.automatic_fields)
conform_singer_case(fault.resume_reemits_older resume_reemits_older
                    sg.incremental_no_older,sg.future_state_no_older)
# A Meltano SDK stream whose source cannot filter (meltano/tap-smoke-test): every record again,
# and the bookmark the newest of them. Given a far-future bookmark it comes back lower: SG-INC-1,
# which only a state the tap did not write shows (before 2026-12-08 conform gave none).
conform_singer_case(fault.bookmark_from_records bookmark_from_records
                    sg.incremental_no_older,sg.future_state_no_older,sg.bookmarks_monotonic
                    --must-fail sg.future_state_no_older,sg.bookmarks_monotonic)
conform_singer_case(fault.resume_loses resume_loses sg.resume_no_loss)
conform_singer_case(fault.currently_syncing_ignored currently_syncing_ignored
                    sg.resume_currently_syncing)
conform_singer_case(fault.start_date_ignored start_date_ignored sg.start_date_honoured)
# A selected stream with no record (tap-tester asserts one per stream); listed in empty_streams, it
# is not judged.
conform_singer_case(fault.stream_empty stream_empty sg.streams_have_records)
conform_singer_case(reading.stream_empty_listed stream_empty none --set "empty_streams=[\"orders\"]"
                    --expect-skipped ${batch_only_skips} --must-pass sg.streams_have_records)
# A catalog without valid-replication-keys (SQL and file taps): the incremental and start-date
# scenarios skip, saying why; the test config's replication_keys makes them run, and pass.
set(unkeyed_skips ${batch_only_skips})
foreach(scenario sg-incremental sg-start-date sg-future-state)
  foreach(check sg.activate_version sg.batch_files sg.bookmarks_monotonic sg.key_properties_present
                sg.messages_valid sg.metrics_valid sg.records_match_schema sg.schema_before_record
                sg.secrets_not_leaked sg.state_bookmarks sg.sync_exit)
    set(unkeyed_skips ${unkeyed_skips},${scenario}:${check})
  endforeach()
endforeach()
# A FULL_TABLE stream keeps no bookmark: sg.bookmarks_monotonic has none to judge in any sync.
foreach(scenario sg-batch sg-currently-syncing sg-properties sg-resume sg-selection sg-sync)
  set(unkeyed_skips ${unkeyed_skips},${scenario}:sg.bookmarks_monotonic)
endforeach()
set(unkeyed_skips ${unkeyed_skips},sg-incremental:sg.incremental_no_older)
set(unkeyed_skips ${unkeyed_skips},sg-future-state:sg.future_state_no_older)
set(unkeyed_skips ${unkeyed_skips},sg-start-date:sg.start_date_honoured)
conform_singer_case(reading.catalog_without_replication_keys no_valid_replication_keys none
                    --expect-skipped ${unkeyed_skips})
conform_singer_case(reading.replication_keys_named no_valid_replication_keys none
                    --set "replication_keys={\"users\":\"updated_at\",\"orders\":\"updated_at\"}"
                    --expect-skipped ${batch_only_skips}
                    --must-pass sg.incremental_no_older,sg.start_date_honoured,sg.bookmarks_monotonic)
# singer-sdk 0.34.1 reads the replication key only from the entry's top-level replication_key, and
# its SQL streams crash on a deselected one: conform writes both forms and keeps the key selected.
conform_singer_case(reading.replication_keys_top_level
                    no_valid_replication_keys,top_level_replication_key none
                    --set "replication_keys={\"users\":\"updated_at\",\"orders\":\"updated_at\"}"
                    --expect-skipped ${batch_only_skips}
                    --must-pass sg.incremental_no_older,sg.automatic_fields,sg.start_date_honoured)
# A tap that syncs FULL_TABLE whatever it is asked writes no bookmark: sg.incremental_no_older has
# nothing to compare with and skips (no bookmark invented); the start date and the crafted
# currently_syncing bookmark, ignored, are caught.
conform_singer_case(fault.replication_key_ignored replication_key_ignored
                    sg.resume_currently_syncing,sg.start_date_honoured)
conform_singer_case(input.replication_keys_unknown_stream - none
                    --set "replication_keys={\"invoices\":\"updated_at\"}"
                    --expect-input-error "replication_keys names 'updated_at' for stream 'invoices', but the tap's catalog has no such stream")
conform_singer_case(input.replication_keys_full_table - none
                    --set "replication_keys={\"countries\":\"code\"}"
                    --expect-input-error "its catalog forces FULL_TABLE replication")
# Re-reading the boundary record (>= on resume) is at-least-once: a SHOULD, a warning only.
conform_singer_case(reading.inclusive_bookmark inclusive_bookmark sg.incremental_no_older)
conform_singer_case(strict.inclusive_bookmark inclusive_bookmark sg.incremental_no_older --strict)
# A record's replication key written with microseconds, its bookmark with seconds (singer-python's
# Transformer beside the tap's own isoformat, singer-io/tap-gitlab): the same instant, compared as
# one; the boundary record read again warns only (before, '.' < 'Z' made it "older": a MUST).
conform_singer_case(reading.bookmark_seconds_record_microseconds
                    inclusive_bookmark,record_microseconds sg.incremental_no_older
                    --must-warn sg.incremental_no_older)
# orders synced inside users (parent-tap-stream-id, as singer-io taps): the crafted state marks a
# top-level stream currently_syncing, never the child, which the tap never writes there.
conform_singer_case(reading.child_stream child_stream none --expect-skipped ${batch_only_skips}
                    --must-pass sg.resume_currently_syncing,sg.incremental_no_older)
# As singer-io's tap-github: orders keeps a bookmark per user ({"user-1": {"since": V}}), read
# as partitions, and the crafted currently_syncing state sets each; ignoring them on resume is
# caught (before, sg.incremental_no_older found no bookmark of orders and let it pass).
conform_singer_case(reading.keyed_bookmarks keyed_bookmarks none --expect-skipped ${batch_only_skips}
                    --must-pass sg.incremental_no_older,sg.resume_currently_syncing)
conform_singer_case(fault.keyed_bookmark_ignored keyed_bookmarks,keyed_bookmark_ignored
                    sg.incremental_no_older,sg.resume_currently_syncing,sg.future_state_no_older)
# valid-replication-keys as a bare string (tap-github): sg.catalog_metadata fails, and the key is
# used all the same (before, the streams were synced FULL_TABLE and the incremental checks skipped).
conform_singer_case(reading.replication_keys_string keyed_bookmarks,replication_keys_string
                    sg.catalog_metadata
                    --must-pass sg.incremental_no_older,sg.start_date_honoured,sg.bookmarks_monotonic)
# A tap that syncs its streams in its own order (tap-github's alphabetical one): "the streams after"
# the interrupted one are after it in that order, not the catalog's (a false warning before).
conform_singer_case(reading.alphabetical_order alphabetical_order none
                    --expect-skipped ${batch_only_skips} --must-pass sg.resume_currently_syncing)
# A tap that names one stream only currently_syncing, and resumes by it alone (tap-gitlab names
# groups, and syncs projects inside it): there is no stream in the middle to interrupt, and the
# scenario says so (before, conform marked orders currently_syncing and warned falsely).
conform_singer_case(reading.one_currently_syncing one_currently_syncing none
                    --must-skip sg.resume_currently_syncing)
# A tap that reads its selection from --properties only (tap-github): every --catalog sync emits
# nothing, which sg.properties_flag says; the checks with nothing to judge skip (before, selection,
# resume and start date passed on empty syncs).
conform_singer_case(fault.catalog_ignored catalog_ignored sg.properties_flag,sg.streams_have_records
                    --must-skip sg.selection_honoured,sg.resume_no_loss
                    --must-skip sg.start_date_honoured,sg.automatic_fields
                    --expect-note "sg-sync:sg.activate_version=no sync emitted an ACTIVATE_VERSION")
# --only selects Singer scenarios and checks as it does Airbyte ones.
conform_singer_case(only.resume resume_loses sg.resume_no_loss --only sg-resume)

# A tap written the way the Meltano SDK writes one (tests/connectors/singer-sdk-style/README.md).
# Deserved: its inclusive start re-reads the boundary record (a SHOULD), and the SDK does not
# resume by currently_syncing (a SHOULD).
set(sdk_style_tap ${PROJECT_SOURCE_DIR}/tests/connectors/singer-sdk-style)
function(conform_sdk_style_case name quirk expected)
  set(quirk_args "")
  if(NOT quirk STREQUAL "-")
    set(quirk_args --fault ${quirk} --fault-variable SDKSTYLE_QUIRKS)
  endif()
  add_test(NAME e2e.singer.${name}
           COMMAND ${Python3_EXECUTABLE} ${singer_case} --conform ${conform_bin}
                   --tap-dir ${sdk_style_tap} ${quirk_args} --expect ${expected} ${ARGN})
  set_tests_properties(e2e.singer.${name} PROPERTIES TIMEOUT 600)
endfunction()
set(sdk_style_warned sg.incremental_no_older,sg.resume_currently_syncing)
conform_sdk_style_case(sdk_style - ${sdk_style_warned} --secret sdkstyle-secret-token-8842
                       --must-pass sg.about,sg.catalog_metadata,sg.records_match_schema
                       --must-pass sg.state_bookmarks,sg.bookmarks_monotonic,sg.resume_no_loss
                       --must-pass sg.selection_honoured,sg.automatic_fields,sg.batch_files
                       --must-pass sg.metrics_valid,sg.secrets_not_leaked,sg.invalid_config
                       --must-pass sg.start_date_honoured)
conform_sdk_style_case(sdk_style_quirk_unfinalized_markers unfinalized_markers
                       ${sdk_style_warned},sg.state_bookmarks)
conform_sdk_style_case(sdk_style_quirk_nested_key_stuck nested_key_stuck
                       sg.resume_currently_syncing,sg.incremental_no_older)
# Each partition held to its own bookmark: mobile's records between web's bookmark and mobile's fail.
conform_sdk_style_case(sdk_style_quirk_lowest_partition_start lowest_partition_start
                       sg.resume_currently_syncing,sg.incremental_no_older
                       --must-fail sg.incremental_no_older)
# Every resume crashes, the crafted currently_syncing state's too: it keeps the partitions as the
# tap wrote them (before 2026-12-07 it dropped them, and the tap then ignored their bookmarks).
conform_sdk_style_case(sdk_style_quirk_duplicate_partitions duplicate_partitions
                       sg.sync_exit,sg.resume_no_loss --must-skip sg.resume_currently_syncing)
