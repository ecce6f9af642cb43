# End-to-end cases for the Meltano extension protocol: the built conform against the reference
# extension (fixtures/reference-extension), natively and as an image. Included by CMakeLists.txt.
set(extension_case ${CMAKE_CURRENT_SOURCE_DIR}/extension_case.py)
set(instrumented_extension_bin ${CMAKE_BINARY_DIR}/fixtures/reference-extension/bin)
conform_fixture_for_cases(extension_bin ${instrumented_extension_bin}
                          ${CMAKE_BINARY_DIR}/fixtures/reference-extension/static/bin)

# conform_extension_case(NAME FAULT EXPECTED_CHECKS [BIN FOLDER]
#                        [extra extension_case.py arguments...])
# EXPECTED_CHECKS: the exact set of checks that must fail or warn ("none": all pass); the first is
# the check the fault is built for, the others are real consequences (docs/meltano.md).
# BIN: the folder of another build of the extension than ${extension_bin}.
function(conform_extension_case name fault expected)
  cmake_parse_arguments(ARG "" "BIN" "" ${ARGN})
  if(NOT ARG_BIN)
    set(ARG_BIN ${extension_bin})
  endif()
  set(fault_args "")
  if(NOT fault STREQUAL "-")
    set(fault_args --fault ${fault})
  endif()
  add_test(NAME e2e.extension.${name}
           COMMAND ${Python3_EXECUTABLE} ${extension_case} --conform ${conform_bin}
                   --bin ${ARG_BIN} ${fault_args} --expect ${expected} ${ARG_UNPARSED_ARGUMENTS})
  set_tests_properties(e2e.extension.${name} PROPERTIES TIMEOUT 300)
endfunction()

conform_extension_case(reference_passes - none BIN ${instrumented_extension_bin})
conform_extension_case(reference_passes_strict - none --strict)
# Coverage (docs/coverage.md): an extension has no streams; its MX clauses are judged.
conform_extension_case(coverage - none --only mx-help,mx-describe
                       --expect-coverage streams=not-applicable,clause:MX-HELP-1=judged
                       --expect-coverage clause:MX-DESC-1=judged,clause:MX-INV-1=not-selected)
# Where the EDK reads the seed differently, conform warns (exit 0) and fails nothing: click drops
# invoke's first `--`; describe's default format is text. Logs without level or timestamp pass
# when the test config does not enable them.
conform_extension_case(edk_invoke_drops_dashdash invoke_drops_dashdash mx.invoke_keeps_dashdash)
conform_extension_case(edk_describe_default_text describe_default_text mx.describe_shape)
conform_extension_case(edk_all_readings invoke_drops_dashdash,describe_default_text
                       mx.invoke_keeps_dashdash,mx.describe_shape
                       --set logging.levels=false --set logging.timestamps=false)
conform_extension_case(edk_logs_event_only log_unlevelled none
                       --set logging.levels=false --set logging.timestamps=false)

# One faulty variant per clause, caught exactly there.
conform_extension_case(fault.help_exit_nonzero help_exit_nonzero mx.help,mx.described_executables)
conform_extension_case(fault.help_no_usage help_no_usage mx.help)
conform_extension_case(fault.describe_not_json describe_not_json mx.describe_json)
conform_extension_case(fault.describe_wrong_shape describe_wrong_shape mx.describe_shape)
conform_extension_case(fault.describe_missing_executable describe_missing_executable
                       mx.described_executables)
conform_extension_case(fault.tool_status_fails tool_status_fails mx.invoke_commands)
conform_extension_case(fault.test_fails test_fails mx.test_commands)
conform_extension_case(fault.unknown_command_exit_zero unknown_command_exit_zero
                       mx.unknown_command)
conform_extension_case(fault.unknown_command_unclear unknown_command_unclear mx.unknown_command)
conform_extension_case(fault.invoke_drops_empty invoke_drops_empty mx.passthrough)
conform_extension_case(fault.invoker_drops_empty invoker_drops_empty mx.passthrough)
conform_extension_case(fault.invoker_resplits invoker_resplits mx.passthrough)
conform_extension_case(fault.invoker_swallows_exit invoker_swallows_exit mx.passthrough)
conform_extension_case(fault.invoke_swallows_exit invoke_swallows_exit
                       mx.passthrough,mx.invoke_commands)
# What real wrappers do around the tool (not faults): airflow-ext's pre_invoke parses `airflow
# version` before the call, so the probe hands the wrapper's other calls to the real tool;
# superset-ext runs the tool with an environment of its own, so the probe reads its instructions
# from beside itself. Before 2026-12-08 both failed mx.passthrough (and curated_env
# mx.log_errors), the probe silent and its exit code lost. With a swallowed exit code on top, the
# fault is still caught.
conform_extension_case(reading.version_check version_check none)
conform_extension_case(reading.curated_env curated_env none)
conform_extension_case(fault.curated_env_swallows_exit curated_env,invoke_swallows_exit
                       mx.passthrough,mx.invoke_commands)
conform_extension_case(fault.initialize_not_idempotent initialize_not_idempotent mx.initialize)
conform_extension_case(fault.stdout_noise stdout_noise mx.stdout_quiet)
conform_extension_case(fault.reads_stdin reads_stdin mx.stdin_unused --stdin-timeout 2)
# The unlevelled lines are mx.log_structured's finding; mx.log_errors cannot read a level, so it is
# skipped with that reason rather than failed for the same defect.
conform_extension_case(fault.log_unlevelled log_unlevelled mx.log_structured)
conform_extension_case(fault.log_no_timestamp log_no_timestamp mx.log_structured)
conform_extension_case(fault.log_coloured log_coloured mx.log_uncoloured)
conform_extension_case(fault.log_json_broken log_json_broken mx.log_json)
conform_extension_case(fault.error_at_info error_at_info mx.log_errors)
# SHOULD clauses fail under --strict; --only selects scenarios and checks.
conform_extension_case(strict.stdout_noise stdout_noise mx.stdout_quiet --strict --only mx-stdio)
conform_extension_case(only.passthrough invoker_swallows_exit mx.passthrough --only mx.passthrough)

# The command line around extension test configs: exit codes and messages.
add_test(NAME e2e.extension.cli_contract
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/extension_cli.py ${conform_bin}
                 ${extension_bin})

# The reference extension as an image, under podman and the docker CLI (through podman's Docker
# API socket). Skipped (exit 77) with the reason where no runtime can run containers.
foreach(runtime podman docker)
  add_test(NAME e2e.extension.containers.${runtime}
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/extension_containers.sh ${runtime} ${conform_bin}
                   $<TARGET_FILE:conform-reference-extension-static>)
  set_tests_properties(e2e.extension.containers.${runtime} PROPERTIES
                       SKIP_RETURN_CODE 77 TIMEOUT 1200 LABELS containers COST 100
                       RESOURCE_LOCK conform_container_runtime)
endforeach()

# --only/--skip globs and --shard select Meltano scenarios as they do Airbyte ones (one code path:
# src/checks/selection.hpp); the shards merge into the whole run.
add_test(NAME e2e.extension.selection
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/protocol_selection.py
                 --conform ${conform_bin} --protocol meltano --bin ${extension_bin})
set_tests_properties(e2e.extension.selection PROPERTIES TIMEOUT 300)
