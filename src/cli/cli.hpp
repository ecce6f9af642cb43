#pragma once

namespace conform::cli {

// Exit codes; documented in docs/CLI.md and `conform --help`.
inline constexpr int k_exit_passed = 0;
inline constexpr int k_exit_checks_failed = 1;
inline constexpr int k_exit_usage = 2;
inline constexpr int k_exit_bad_input = 3;
inline constexpr int k_exit_internal = 4;
inline constexpr int k_exit_nothing_ran = 5;
inline constexpr int k_exit_interrupted = 130;

// Parses the command line, runs the command and returns the exit code. Never throws.
int conform_main(int argc, char** argv);

}  // namespace conform::cli
