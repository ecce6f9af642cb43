#pragma once

#include "suite/check.hpp"

// The Airbyte-protocol checks, one family per file, each defined beside its code.
namespace conform::checks::airbyte {

suite::Checks message_checks();  // messages.cpp: judged line by line
suite::Checks core_checks();     // core.cpp: AP-* clauses judged once the runs are over
suite::Checks estuary_checks();  // estuary.cpp: X-* clauses (Estuary's protocol extensions)
suite::Checks probe_checks();    // probes.cpp: inputs made wrong on purpose, answers asked twice

}  // namespace conform::checks::airbyte
