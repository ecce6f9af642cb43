# End-to-end cases for the Airbyte destination protocol: the built conform against the reference
# destination (fixtures/reference-destination), one case per fault, each caught by exactly its
# check; and a real destination (npm airbyte-faros-destination) in its dry-run mode. Included by
# CMakeLists.txt.
set(destination_case ${CMAKE_CURRENT_SOURCE_DIR}/destination_case.py)
set(instrumented_destination_bin $<TARGET_FILE:conform-reference-destination>)
conform_fixture_for_cases(destination_bin ${instrumented_destination_bin}
                          $<TARGET_FILE:conform-reference-destination-static>)
set(destination_fixtures ${PROJECT_SOURCE_DIR}/fixtures/reference-destination)

# conform_destination_case(NAME FAULT EXPECTED_CHECKS [DESTINATION PATH]
#                          [extra destination_case.py arguments...])
# EXPECTED_CHECKS: the exact set of checks that must fail or warn ("none": all pass).
# DESTINATION: another build of the reference destination than ${destination_bin}.
function(conform_destination_case name fault expected)
  cmake_parse_arguments(ARG "" "DESTINATION" "" ${ARGN})
  if(NOT ARG_DESTINATION)
    set(ARG_DESTINATION ${destination_bin})
  endif()
  set(fault_args "")
  if(NOT fault STREQUAL "-")
    set(fault_args --fault ${fault})
  endif()
  add_test(NAME e2e.destination.${name}
           COMMAND ${Python3_EXECUTABLE} ${destination_case} --conform ${conform_bin}
                   --destination ${ARG_DESTINATION} --fixtures ${destination_fixtures}
                   ${fault_args} --expect ${expected} ${ARG_UNPARSED_ARGUMENTS})
  set_tests_properties(e2e.destination.${name} PROPERTIES TIMEOUT 300)
endfunction()

# Nothing fails and nothing is skipped: every check judged the reference destination.
conform_destination_case(reference_passes - none DESTINATION ${instrumented_destination_bin}
                         --expect-skipped none)
conform_destination_case(reference_passes_strict - none --strict --expect-skipped none)
# Coverage (docs/coverage.md): the catalog's streams written with data in each destination sync
# mode; what a destination offers does not apply.
conform_destination_case(coverage - none --only dst-syncs
                         --expect-coverage streams=available-unknown,stream:users=data
                         --expect-coverage mode:users=append_dedup,mode:events=append,mode:tags=overwrite
                         --expect-coverage clause:DST-DATA-1=judged,clause:DST-CLI-1=not-selected)
# A destination that stops reading its stdin while it writes (128 KiB of logs after each STATE)
# on an input larger than a pipe holds: waited for, not a failure.
conform_destination_case(backpressure_is_not_a_failure - none --quirk pause_reading
                         --set input.records_per_stream=400 --expect-skipped none)
# A destination whose echoes come only at the end of its input (a Python destination without
# PYTHONUNBUFFERED): the write to be killed is never interrupted, so the kill checks skip saying
# so; they passed, killing it in the burst of echoes after everything had landed.
set(unkilled dst-kill-resume:dst.messages_valid,dst-kill-resume:dst.overwrite_interrupted_keeps_prior)
set(unkilled ${unkilled},dst-kill-resume:dst.resume_no_loss,dst-kill-resume:dst.secrets_not_leaked)
set(unkilled ${unkilled},dst-kill-resume:dst.state_after_commit,dst-kill-resume:dst.write_exit)
conform_destination_case(buffered_echoes_not_killed - none --quirk echo_at_end
                         --expect-skipped ${unkilled})
# Known failures work for destinations as for sources (one engine): listed, the fault fails nothing.
conform_destination_case(known_failure.write_exit_nonzero write_exit_nonzero none
                         --known-failure dst.write_exit)
# GLOBAL and LEGACY states: one position for every stream, echoed and resumed the same way.
conform_destination_case(global_states - none --set input.state_type=GLOBAL)
conform_destination_case(legacy_states - none --set input.state_type=LEGACY)

# One faulty variant per clause, caught there and nowhere else.
conform_destination_case(fault.log_invalid_level log_invalid_level dst.messages_valid)
conform_destination_case(fault.spec_twice spec_twice dst.spec)
# The spec changed: it differs from the expected spec as well.
conform_destination_case(fault.spec_without_dedup spec_without_dedup
                         dst.spec_sync_modes,dst.spec_matches_expected)
conform_destination_case(fault.check_always_succeeds check_always_succeeds dst.check)
conform_destination_case(fault.check_crashes check_crashes dst.check)
conform_destination_case(fault.leak_secret leak_secret dst.secrets_not_leaked)
conform_destination_case(fault.write_exit_nonzero write_exit_nonzero dst.write_exit)
conform_destination_case(fault.stops_reading_early stops_reading_early dst.reads_all_input)
conform_destination_case(fault.crash_on_unknown_stream crash_on_unknown_stream
                         dst.bad_records_handled)
conform_destination_case(fault.echo_out_of_order echo_out_of_order dst.states_echoed)
conform_destination_case(fault.echo_before_commit echo_before_commit dst.state_after_commit)
# An echo that matches no STATE sent (airbyte-cdk 0.62's "global_"): named, and no kill after it.
conform_destination_case(fault.global_renamed global_renamed dst.states_echoed
                         --set input.state_type=GLOBAL
                         --expect-note "dst-kill-resume:dst.state_after_commit=echoed 0 STATE(s) it was sent, not 2"
                         --expect-note "dst-kill-resume:dst.state_after_commit=match none it was sent")
conform_destination_case(fault.stats_off_by_one stats_off_by_one dst.destination_stats)
conform_destination_case(fault.retry_discards_attempt retry_discards_attempt dst.resume_no_loss)
conform_destination_case(fault.retry_drops_earlier_syncs retry_drops_earlier_syncs
                         dst.resume_no_loss)
# The resumed write succeeds too, and the first sync's rows are gone after it: a loss the resume
# shows as well.
conform_destination_case(fault.append_replaces_on_success append_replaces_on_success
                         dst.append_lands_all,dst.resume_no_loss)
conform_destination_case(fault.overwrite_keeps_old overwrite_keeps_old dst.overwrite_keeps_last)
conform_destination_case(fault.overwrite_truncates_first overwrite_truncates_first
                         dst.overwrite_interrupted_keeps_prior)
conform_destination_case(fault.dedup_keeps_first dedup_keeps_first dst.dedup_latest)
# Several rows under a key right after the kill already: the resume is not blamed for them.
conform_destination_case(fault.dedup_as_append dedup_as_append dst.dedup_latest
                         --expect-note "dst-kill-resume:dst.resume_no_loss=the destination does not deduplicate")
# SHOULD findings fail under --strict; --only selects destination scenarios and checks.
conform_destination_case(strict.spec_without_dedup spec_without_dedup
                         dst.spec_sync_modes,dst.spec_matches_expected
                         --strict --only dst-spec)
conform_destination_case(only.resume retry_discards_attempt dst.resume_no_loss
                         --only dst.resume_no_loss)
# The documented handling is what is judged: a destination that drops a record its test config
# says it rejects with an error fails.
conform_destination_case(documented_error_not_given - dst.bad_records_handled
                         --set invalid_records.unknown_stream=error --only dst-unknown-stream)

# --only/--skip globs and --shard select destination scenarios as they do Airbyte and Meltano ones
# (one engine loop); the shards merge into the whole run.
add_test(NAME e2e.destination.selection
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/protocol_selection.py
                 --conform ${conform_bin} --protocol destination --destination ${destination_bin}
                 --fixtures ${destination_fixtures})
set_tests_properties(e2e.destination.selection PROPERTIES TIMEOUT 600)

# Faros AI's real destination (npm airbyte-faros-destination 0.10.65, on faros-airbyte-cdk) with
# `write --dry-run`, offline. Skipped (77) until `npm ci --prefix tests/connectors/faros-destination`
# has run (scripts/install-deps.sh does it). The dry run echoes only its last STATE, at the end of
# its input: dst.states_echoed warns; what it cannot serve its test config names (not_served).
set(faros_destination_checks dst.spec,dst.check,dst.write_exit,dst.reads_all_input)
set(faros_destination_checks ${faros_destination_checks},dst.messages_valid,dst.secrets_not_leaked)
set(faros_destination_checks ${faros_destination_checks},dst.bad_records_handled,dst.spec_sync_modes)
conform_real_case(faros_destination dst.states_echoed
                  --test-config tests/connectors/faros-destination/conform.json
                  --needs-node-modules tests/connectors/faros-destination
                  --must-pass ${faros_destination_checks} --secret faros-hasura-secret-5150)

# A destination's acceptance-test-config.yml (docs/acceptance-test-config.md, "Destinations"): its
# spec and connection tests in the destination suite, the writes skipped without a catalog.
add_test(NAME e2e.destination.acceptance_test_config
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/destination_acceptance.py
                 ${conform_bin} ${destination_bin} ${destination_fixtures})
set_tests_properties(e2e.destination.acceptance_test_config PROPERTIES TIMEOUT 300)
