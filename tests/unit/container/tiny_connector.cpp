// A connector stand-in for the real-runtime test, linked statically so that an image can hold it
// alone. It prints plain "key=value" lines, not Airbyte messages: the test checks what reached the
// container, not the protocol.
//
//   tiny_connector report ARG... [--flag FILE]...  each ARG ("env NAME=VALUE" for a set variable),
//                                                  each file's first line, the stdin lines, and
//                                                  the number of network interfaces besides lo
//   tiny_connector sleep                           waits for SIGTERM, then prints "stopped=SIGTERM"
//   tiny_connector ignore-term                     ignores SIGTERM and waits forever
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

volatile std::sig_atomic_t g_terminated = 0;

std::string first_line_of(const char* path) {
    std::FILE* file = std::fopen(path, "r");
    if (file == nullptr) {
        return "<unreadable>";
    }
    char buffer[4096] = {};
    std::string line = std::fgets(buffer, sizeof buffer, file) != nullptr ? buffer : "";
    std::fclose(file);
    if (!line.empty() && line.back() == '\n') {
        line.pop_back();
    }
    return line;
}

int count_interfaces_besides_lo() {
    std::FILE* file = std::fopen("/proc/net/dev", "r");
    if (file == nullptr) {
        return -1;
    }
    int count = 0;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, file) != nullptr) {
        std::string line = buffer;
        auto colon = line.find(':');
        if (colon != std::string::npos && line.substr(0, colon).find("lo") == std::string::npos) {
            ++count;
        }
    }
    std::fclose(file);
    return count;
}

int report(int argc, char** argv) {
    for (int i = 2; i < argc; ++i) {
        if (std::strncmp(argv[i], "--", 2) == 0 && i + 1 < argc) {
            std::printf("file %s %s=%s\n", argv[i], argv[i + 1],
                        first_line_of(argv[i + 1]).c_str());
            ++i;
        } else if (const char* value = std::getenv(argv[i])) {
            std::printf("env %s=%s\n", argv[i], value);
        } else {
            std::printf("arg=%s\n", argv[i]);
        }
    }
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, stdin) != nullptr) {
        std::string line = buffer;
        if (!line.empty() && line.back() == '\n') {
            line.pop_back();
        }
        std::printf("stdin=%s\n", line.c_str());
    }
    std::printf("interfaces=%d\n", count_interfaces_besides_lo());
    return 0;
}

int sleep_until_terminated() {
    // As PID 1 in a container the process gets SIGTERM only because it installs a handler.
    std::signal(SIGTERM, [](int) { g_terminated = 1; });
    std::printf("sleeping\n");
    std::fflush(stdout);
    while (g_terminated == 0) {
        ::pause();
    }
    std::printf("stopped=SIGTERM\n");
    return 0;
}

int ignore_term() {
    std::signal(SIGTERM, SIG_IGN);
    std::printf("sleeping\n");
    std::fflush(stdout);
    for (;;) {
        ::pause();
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::string command = argc > 1 ? argv[1] : "";
    if (command == "report") {
        return report(argc, argv);
    }
    if (command == "sleep") {
        return sleep_until_terminated();
    }
    if (command == "ignore-term") {
        return ignore_term();
    }
    std::fprintf(stderr, "usage: tiny_connector report|sleep|ignore-term ...\n");
    return 2;
}
