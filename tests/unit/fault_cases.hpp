#pragma once

#include <doctest/doctest.h>

#include <set>
#include <string>

#include "report/model.hpp"

// What the fault tables of the protocols' check tests share (tests/unit/meltano/test_checks.cpp,
// tests/unit/destination/test_checks.cpp): each fault case names a check, the status it must get
// and a part of its message. Include it after the fake's header, whose status_of and message_of
// read the report.
namespace conform::testing {

// The fault's check got the fault's status, with the fault's words in its message.
template <typename FaultCase>
void check_caught(const report::RunReport& report, const FaultCase& fault) {
    auto message = message_of(report, fault.check);
    INFO(std::string(fault.name), ": ", message);
    CHECK(status_of(report, fault.check) == std::string(fault.status));
    CHECK(message.find(fault.message) != std::string::npos);
}

// Every check of `table` is among the checks a fault case `proven`: none is left without a fault
// that trips it.
template <typename Checks>
void check_every_check_proven(const Checks& table, const std::set<std::string>& proven) {
    for (const auto& check : table) {
        INFO("no fault proves ", check.info.id);
        CHECK(proven.contains(std::string(check.info.id)));
    }
}

}  // namespace conform::testing
