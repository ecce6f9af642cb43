#pragma once

#include <stdexcept>
#include <string>

namespace conform {

// What went wrong decides the exit code; see docs/CLI.md.
enum class ErrorKind {
    usage,        // bad command line
    input,        // a suite, test config or input file is malformed
    internal,     // conform itself failed (spawn, I/O, a bug)
    interrupted,  // the user stopped conform (Ctrl-C, SIGTERM)
};

// The one exception type that aborts a run. Connector misbehaviour is never an Error: it is a
// finding in the report. `what()` is a complete sentence a user can act on.
class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), m_kind(kind) {}
    ErrorKind kind() const { return m_kind; }

private:
    ErrorKind m_kind;
};

[[noreturn]] void throw_input_error(const std::string& message);
[[noreturn]] void throw_internal_error(const std::string& message);

}  // namespace conform
