// conform-probe: stands in for the program a Meltano extension wraps (MX-INV-2). Each call appends
// one record to $CONFORM_PROBE_RECORD: the number of arguments it received in decimal, then each
// argument, each followed by a NUL byte (so a wrapper that calls the program several times leaves
// a record per call). A call that carries the argument `conform-probe-fail` exits with
// $CONFORM_PROBE_EXIT (0 when unset), any other call 0: a wrapper that runs the program before the
// command (dbt-ext's `dbt clean` and `dbt deps`) gets to the command. It never reads stdin and
// writes nothing else. Linked statically, so that it runs inside any container image.

#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
    const char* record = std::getenv("CONFORM_PROBE_RECORD");
    if (record != nullptr && *record != '\0') {
        std::FILE* out = std::fopen(record, "ab");
        if (out == nullptr) {
            std::perror("conform-probe: cannot write its record");
            return 125;
        }
        std::fprintf(out, "%d", argc - 1);
        std::fputc('\0', out);
        for (int i = 1; i < argc; ++i) {
            std::fwrite(argv[i], 1, std::strlen(argv[i]) + 1, out);
        }
        if (std::fclose(out) != 0) {
            return 125;
        }
    }
    bool failing = false;
    for (int i = 1; i < argc; ++i) {
        failing = failing || std::strcmp(argv[i], "conform-probe-fail") == 0;
    }
    const char* code = std::getenv("CONFORM_PROBE_EXIT");
    return failing && code != nullptr ? std::atoi(code) : 0;
}
