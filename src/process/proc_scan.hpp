#pragma once

// Internal to the process module: finding processes through /proc, for the ones that escaped
// their process group (setsid, setpgid, double fork). No cgroups are needed.

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace conform::process::detail {

// The environment variable conform sets in every connector it starts; its value identifies the
// run, and every descendant that keeps its environment carries it.
inline constexpr std::string_view k_run_id_variable = "CONFORM_RUN_ID";

// A new run id, unique in this machine's process lifetime: "<conform pid>-<counter>-<random>".
std::string new_run_id();

// Processes other than conform whose initial environment holds `entry` ("NAME=value") exactly.
// Zombies have no environment and are not listed.
std::vector<pid_t> find_processes_with_environment(std::string_view entry);

// Processes other than conform with `argument` as one of their command-line arguments.
std::vector<pid_t> find_processes_with_argument(std::string_view argument);

struct ProcessInfo {
    pid_t pid = 0;
    pid_t parent = 0;
    char state = '?';
    // When it started, in clock ticks since boot (/proc/<pid>/stat field 22): with the pid, what
    // tells a process from a later one that got its pid.
    unsigned long long start_ticks = 0;
};

// /proc/<pid>/stat's parent, state and start time, or nothing when the process is gone.
bool read_process_info(pid_t pid, ProcessInfo& info);

// Children of conform (processes whose parent is conform), as /proc lists them.
std::vector<ProcessInfo> children_of_self();

// Every process /proc lists.
std::vector<ProcessInfo> all_processes();

// Whether `pid` is a descendant of conform: its chain of parents reaches conform (conform is a
// child subreaper, so an orphaned descendant's parent becomes conform, not init).
bool descends_from_self(pid_t pid);

// The start of a process's command line, for messages ("" once it is gone).
std::string command_line_of(pid_t pid, std::size_t limit = 120);

}  // namespace conform::process::detail
