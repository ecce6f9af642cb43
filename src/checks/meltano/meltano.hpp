#pragma once

#include "meltano/check.hpp"

// The Meltano extension checks (MX-*), one family per file, each defined beside its code.
namespace conform::checks::mx {

meltano::Checks command_checks();  // commands.cpp: help, describe, commands, pass-through, init
meltano::Checks output_checks();   // output.cpp: stdout, stdin and the logs on stderr

}  // namespace conform::checks::mx
