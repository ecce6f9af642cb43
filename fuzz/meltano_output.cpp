// Fuzz target: what a Meltano extension prints, read as the Meltano checks read it. The whole
// input is `describe --format=json`'s stdout; each of its lines is also a stderr log line, read as
// a console line and as a JSON log line, and the whole is searched for tracebacks.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "meltano/describe.hpp"
#include "meltano/logs.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text = conform::fuzz::as_text(data, size);
    auto reading = conform::meltano::read_describe(text, "extension", "invoker");
    (void)reading;
    (void)conform::meltano::has_traceback(text);
    for (auto line : conform::meltano::non_empty_lines(text)) {
        auto plain = conform::meltano::strip_ansi(line);
        (void)conform::meltano::has_ansi_escape(line);
        (void)conform::meltano::starts_with_iso8601(plain);
        auto console = conform::meltano::read_console_line(plain);
        (void)conform::meltano::carries_event(console);
        std::string level;
        (void)conform::meltano::json_log_problem(plain, true, true, &level);
        (void)conform::meltano::json_log_problem(plain, false, false);
    }
    return 0;
}
