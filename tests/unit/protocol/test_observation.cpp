// What a run said when it failed: its first TRACE error (protocol/observation.*).
#include <doctest/doctest.h>

#include "protocol/observation.hpp"

using conform::protocol::Observation;
using conform::protocol::trace_error_message;

TEST_CASE("trace_error_message: the message, and the internal message when it says more") {
    Observation run;
    CHECK(trace_error_message(run).empty());
    run.kept.push_back({"LOG", 1, R"({"type":"LOG","log":{"level":"ERROR","message":"x"}})"});
    run.kept.push_back({"TRACE", 2,
                        R"({"type":"TRACE","trace":{"type":"ERROR","emitted_at":1,)"
                        R"("error":{"message":"Something went wrong in the connector. See the )"
                        R"(logs for more details.","internal_message":"near \"-\": syntax )"
                        R"(error","failure_type":"system_error"}}})"});
    CHECK(trace_error_message(run) ==
          "Something went wrong in the connector. See the logs for more details. "
          "(internal_message: near \"-\": syntax error)");

    Observation plain;
    plain.kept.push_back(
        {"TRACE", 1,
         R"({"type":"TRACE","trace":{"type":"ERROR","emitted_at":1,)"
         R"("error":{"message":"cannot read","internal_message":"cannot read"}}})"});
    CHECK(trace_error_message(plain) == "cannot read");
}
