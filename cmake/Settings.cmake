# Project-only settings, linked PRIVATE by our own targets so third-party code is untouched.
add_library(conform_settings INTERFACE)
target_compile_options(conform_settings INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor)
if(CONFORM_WERROR)
  target_compile_options(conform_settings INTERFACE -Werror)
endif()
target_compile_definitions(conform_settings INTERFACE $<$<CONFIG:Debug>:_GLIBCXX_ASSERTIONS>)
if(CONFORM_SANITIZE)
  # -O1, as the ASan documentation advises, for faster sanitized tests; -g1 (line tables only)
  # keeps file:line in every report and makes -O1 compile no slower than -O0 with full -g. GCC
  # 12's maybe-uninitialized analysis misfires on instrumented code at -O1 (a
  # std::optional<std::string> member); the plain build keeps the warning.
  target_compile_options(conform_settings INTERFACE -O1 -g1 -Wno-maybe-uninitialized -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  target_link_options(conform_settings INTERFACE -fsanitize=address,undefined)
endif()
if(CONFORM_TSAN)
  if(CONFORM_SANITIZE)
    message(FATAL_ERROR "CONFORM_TSAN and CONFORM_SANITIZE exclude each other: one build folder each")
  endif()
  # -O1 -g1 as above. Through the project settings only: conform-probe links statically, which
  # ThreadSanitizer cannot, and has no threads.
  target_compile_options(conform_settings INTERFACE -O1 -g1 -fsanitize=thread)
  target_link_options(conform_settings INTERFACE -fsanitize=thread)
endif()

if(CONFORM_FUZZ)
  # Coverage for libFuzzer in every conform library, and the sanitizers that turn bugs into
  # crashes; through the project settings, as for TSan, so that conform-probe links statically.
  target_compile_options(conform_settings INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer)
  target_link_options(conform_settings INTERFACE -fsanitize=address,undefined)
endif()

# Adds a module library `conform_<name>` from the listed sources, with src/ as include root.
function(conform_module name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(conform_${name} STATIC ${ARG_SOURCES})
  target_include_directories(conform_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(conform_${name} PUBLIC ${ARG_DEPS} PRIVATE conform_settings)
endfunction()

# Adds a doctest unit-test executable `test_<name>` registered with ctest as `unit.<name>`.
function(conform_unit_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(test_${name} ${ARG_SOURCES})
  target_link_libraries(test_${name} PRIVATE conform_test_main ${ARG_DEPS} conform_settings)
  add_test(NAME unit.${name} COMMAND test_${name})
  set_tests_properties(unit.${name} PROPERTIES ENVIRONMENT "CONFORM_TEST_DATA=${PROJECT_SOURCE_DIR}/tests/data" TIMEOUT 300)
endfunction()
