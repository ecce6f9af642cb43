#pragma once

#include "destination/check.hpp"

// The Airbyte destination checks (DST-*), one family per file, each defined beside its code.
namespace conform::checks::dst {

destination::Checks command_checks();  // commands.cpp: messages, secrets, spec, check, write, input
destination::Checks state_checks();    // states.cpp: STATE echoes, their stats, kill and resume
destination::Checks data_checks();     // data.cpp: what landed, per sync mode

}  // namespace conform::checks::dst
