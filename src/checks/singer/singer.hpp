#pragma once

#include "singer/check.hpp"

// The Singer checks (SG-*), one family per file, each defined beside its code.
namespace conform::checks::sg {

singer::Checks command_checks();  // commands.cpp: --about, discovery, exits, secrets
singer::Checks message_checks();  // messages.cpp: judged line by line
singer::Checks sync_checks();     // syncs.cpp: selection, incremental, resume, start date

}  // namespace conform::checks::sg
