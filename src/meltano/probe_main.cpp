// conform-probe: stands in for the program a Meltano extension wraps (MX-INV-2), installed by
// conform as SCRATCH/probe-bin/WRAPPED. Each call appends one record to SCRATCH/probe-record
// ($CONFORM_PROBE_RECORD where set): the number of arguments it received in decimal, then each
// argument, each followed by a NUL byte (a wrapper that calls the program several times leaves a
// record per call).
//
// SCRATCH/probe.conf, written by conform before each step, says which calls are the step's own:
// its first line is the exit code of a call that carries `conform-probe-fail`, each further line
// an argument that marks a call as the step's (an empty line: a call without arguments). The
// step's calls exit 0, or that code; they never read stdin and print nothing. Any other call is
// the extension's own business (airflow-ext's pre_invoke parses `airflow version`, dbt-ext runs
// `dbt clean`): it is handed to the real WRAPPED, the next one on PATH, when there is one, and
// otherwise exits 0. Files beside the probe, not the environment, carry this, since a wrapper
// may run the program with an environment of its own (superset-ext passes its settings and PATH).
// Without probe.conf beside it (started through a script of the user's), every call is the step's
// and nothing is handed on, as before the file existed. Linked statically, so that it runs inside
// any container image.

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr const char* k_fail_argument = "conform-probe-fail";

struct Setup {
    std::string scratch;  // the folder above probe-bin, where probe.conf is; "" without one
    std::string self_dir;
    std::string name;  // WRAPPED
    int fail_code = 0;
    // Without probe.conf beside it (a probe started through a wrapper of its own, no /proc), every
    // call is the step's, as before the file existed: none is handed on.
    bool instructed = false;
    std::vector<std::string> markers;
};

std::string parent_of(const std::string& path) {
    auto slash = path.rfind('/');
    return slash == std::string::npos || slash == 0 ? std::string("/") : path.substr(0, slash);
}

void read_conf(Setup& setup) {
    char self[PATH_MAX] = {};
    auto length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) {
        return;
    }
    std::string path(self, static_cast<std::size_t>(length));
    setup.self_dir = parent_of(path);
    setup.name = path.substr(setup.self_dir.size() + 1);
    auto scratch = parent_of(setup.self_dir);
    std::ifstream conf(scratch + "/probe.conf");
    std::string line;
    if (!std::getline(conf, line)) {
        return;  // not in conform's scratch folder: no record or instructions beside it
    }
    setup.scratch = scratch;
    setup.fail_code = std::atoi(line.c_str());
    setup.instructed = true;
    while (std::getline(conf, line)) {
        setup.markers.push_back(line);
    }
}

Setup read_setup() {
    Setup setup;
    read_conf(setup);
    if (const char* code = std::getenv("CONFORM_PROBE_EXIT"); code != nullptr) {
        setup.fail_code = std::atoi(code);
    }
    return setup;
}

bool step_call(const Setup& setup, int argc, char** argv) {
    if (!setup.instructed) {
        return true;
    }
    for (const auto& marker : setup.markers) {
        if (marker.empty() && argc == 1) {
            return true;
        }
        for (int i = 1; i < argc; ++i) {
            if (!marker.empty() && marker == argv[i]) {
                return true;
            }
        }
    }
    return false;
}

int record_call(const Setup& setup, int argc, char** argv) {
    const char* variable = std::getenv("CONFORM_PROBE_RECORD");
    if ((variable == nullptr || *variable == '\0') && setup.scratch.empty()) {
        return 0;  // nowhere known to write: the step sees no call
    }
    std::string record = variable != nullptr && *variable != '\0' ? std::string(variable)
                                                                  : setup.scratch + "/probe-record";
    std::FILE* out = std::fopen(record.c_str(), "ab");
    if (out == nullptr) {
        std::perror("conform-probe: cannot write its record");
        return 125;
    }
    std::fprintf(out, "%d", argc - 1);
    std::fputc('\0', out);
    for (int i = 1; i < argc; ++i) {
        std::fwrite(argv[i], 1, std::strlen(argv[i]) + 1, out);
    }
    return std::fclose(out) != 0 ? 125 : 0;
}

// The next executable named like the probe on PATH, outside the probe's own folder; "" when none.
std::string real_program(const Setup& setup) {
    const char* path = std::getenv("PATH");
    if (path == nullptr || setup.name.empty()) {
        return {};
    }
    std::string dirs = path;
    std::size_t start = 0;
    while (start <= dirs.size()) {
        auto end = dirs.find(':', start);
        auto dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
        start = end == std::string::npos ? dirs.size() + 1 : end + 1;
        char resolved[PATH_MAX] = {};
        if (dir.empty() || ::realpath(dir.c_str(), resolved) == nullptr ||
            setup.self_dir == resolved) {
            continue;
        }
        auto candidate = dir + "/" + setup.name;
        if (::access(candidate.c_str(), X_OK) == 0) {
            return candidate;
        }
    }
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    auto setup = read_setup();
    if (int failed = record_call(setup, argc, argv); failed != 0) {
        return failed;
    }
    if (step_call(setup, argc, argv)) {
        bool failing = false;
        for (int i = 1; i < argc; ++i) {
            failing = failing || std::strcmp(argv[i], k_fail_argument) == 0;
        }
        return failing ? setup.fail_code : 0;
    }
    if (auto real = real_program(setup); !real.empty()) {
        ::execv(real.c_str(), argv);
        std::perror("conform-probe: cannot run the real program");
        return 126;
    }
    return 0;
}
