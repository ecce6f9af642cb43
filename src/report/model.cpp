#include "report/model.hpp"

namespace conform::report {

std::string_view status_name(Status status) {
    switch (status) {
        case Status::passed:
            return "passed";
        case Status::warned:
            return "warned";
        case Status::failed:
            return "failed";
        case Status::skipped:
            return "skipped";
    }
    return "?";
}

Totals RunReport::check_totals() const {
    Totals totals;
    for (const auto& scenario : scenarios) {
        for (const auto& check : scenario.checks) {
            switch (check.status) {
                case Status::passed:
                    ++totals.passed;
                    break;
                case Status::warned:
                    ++totals.warned;
                    break;
                case Status::failed:
                    ++totals.failed;
                    break;
                case Status::skipped:
                    ++totals.skipped;
                    break;
            }
        }
    }
    return totals;
}

}  // namespace conform::report
