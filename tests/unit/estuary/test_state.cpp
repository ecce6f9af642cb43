#include <doctest/doctest.h>
#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "estuary/state.hpp"
#include "json/parse.hpp"

using namespace conform;
using namespace conform::estuary;

namespace {

// Applies one `state` object given as text and returns the problems' clauses.
std::vector<std::string> apply(StateReducer& reducer, std::string_view state_text) {
    std::vector<std::string> clauses;
    for (const StateProblem& problem : reducer.apply(json::parse_json_text(state_text, "state"))) {
        CHECK(!problem.message.empty());
        clauses.push_back(problem.clause);
    }
    return clauses;
}

void apply_clean(StateReducer& reducer, std::string_view state_text) {
    CAPTURE(state_text);
    CHECK(apply(reducer, state_text).empty());
}

std::string problem_text(StateReducer& reducer, std::string_view state_text) {
    std::string text;
    for (const StateProblem& problem : reducer.apply(json::parse_json_text(state_text, "state"))) {
        text += problem.clause + ": " + problem.message + "\n";
    }
    return text;
}

using Strings = std::vector<std::string>;

}  // namespace

TEST_CASE("state: nothing yet") {
    StateReducer reducer;
    CHECK(reducer.count() == 0);
    CHECK(reducer.state_file_json().empty());
    CHECK(reducer.materialized_json().empty());
}

TEST_CASE("state: legacy STATEs replace") {
    // The shape of source-postgres' TestTailing golden stream.
    StateReducer reducer;
    apply_clean(reducer, R"({"data":{"current_lsn":1234,"streams":{"public.t":{"mode":"Backfill",
        "key_columns":["id"]}}}})");
    apply_clean(reducer, R"({"data":{"current_lsn":1234,"streams":{"public.t":{"mode":"Backfill",
        "key_columns":["id"],"scanned":"FSg="}}}})");
    apply_clean(reducer, R"({"data":{"current_lsn":1234,"streams":{"public.t":{"mode":"Active",
        "key_columns":["id"]}}}})");
    CHECK(reducer.count() == 3);
    CHECK(reducer.state_file_json() ==
          R"({"current_lsn":1234,"streams":{"public.t":{"mode":"Active","key_columns":["id"]}}})");
    CHECK(reducer.materialized_json() ==
          R"({"current_lsn":1234,"streams":{"public.t":{"key_columns":["id"],"mode":"Active"}}})");
    apply_clean(reducer, R"({"type":"LEGACY","data":{"x":1}})");
    CHECK(reducer.state_file_json() == R"({"x":1})");
}

TEST_CASE("state: Estuary checkpoint-reduction vectors (materialized)") {
    SUBCASE("empty, then replace") {
        StateReducer reducer;
        apply_clean(reducer, R"({"data":{"k1":"v1"}})");
        CHECK(reducer.materialized_json() == R"({"k1":"v1"})");
    }
    SUBCASE("after a patch, a replace wins") {
        StateReducer reducer;
        apply_clean(reducer, R"({"data":{"other":"value"},"merge":true})");
        apply_clean(reducer, R"({"data":{"k1":"v1"}})");
        CHECK(reducer.materialized_json() == R"({"k1":"v1"})");
    }
    SUBCASE("empty, then a patch gives the patch with nulls stripped") {
        StateReducer reducer;
        apply_clean(reducer, R"({"data":{"k1":"v1","n":null},"estuary.dev/merge":true})");
        CHECK(reducer.materialized_json() == R"({"k1":"v1"})");
        CHECK(reducer.state_file_json() == R"({"k1":"v1"})");
    }
    SUBCASE("replace, then a patch merges") {
        StateReducer reducer;
        apply_clean(reducer, R"({"data":{"other":"value"}})");
        apply_clean(reducer, R"({"data":{"k1":"v1","n":null},"merge":true})");
        CHECK(reducer.materialized_json() == R"({"k1":"v1","other":"value"})");
    }
    SUBCASE("patch, then a patch: materialized, so the null is applied, not kept") {
        StateReducer reducer;
        apply_clean(reducer, R"({"data":{"other":"value","n":1},"merge":true})");
        apply_clean(reducer, R"({"data":{"k1":"v1","n":null},"patch":true})");
        CHECK(reducer.materialized_json() == R"({"k1":"v1","other":"value"})");
    }
}

TEST_CASE("state: merge flags") {
    StateReducer reducer;
    apply_clean(reducer, R"({"data":{"a":1,"b":2}})");
    SUBCASE("any of the three names") {
        apply_clean(reducer, R"({"data":{"a":null},"merge":true})");
        apply_clean(reducer, R"({"data":{"c":3},"estuary.dev/merge":true})");
        apply_clean(reducer, R"({"data":{"d":4},"patch":true})");
        CHECK(reducer.materialized_json() == R"({"b":2,"c":3,"d":4})");
    }
    SUBCASE("false flags replace; the flags are OR'ed") {
        apply_clean(reducer, R"({"data":{"z":0},"merge":false,"estuary.dev/merge":true})");
        CHECK(reducer.materialized_json() == R"({"a":1,"b":2,"z":0})");
        apply_clean(reducer, R"({"data":{"y":0},"merge":false,"patch":false})");
        CHECK(reducer.materialized_json() == R"({"y":0})");
    }
    SUBCASE("a non-boolean flag is reported and treated as false") {
        CHECK(apply(reducer, R"({"data":{"z":0},"merge":"true"})") == Strings{"X-MERGE-1"});
        CHECK(reducer.materialized_json() == R"({"z":0})");
    }
    SUBCASE("an empty patch is a no-op checkpoint") {
        apply_clean(reducer, R"({"data":{},"merge":true})");
        CHECK(reducer.materialized_json() == R"({"a":1,"b":2})");
    }
}

TEST_CASE("state: patches are applied one by one, never composed") {
    StateReducer reducer;
    apply_clean(reducer, R"({"data":{"a":{"b":5,"c":6}}})");
    apply_clean(reducer, R"({"data":{"a":1},"merge":true})");
    apply_clean(reducer, R"({"data":{"a":{"b":null}},"merge":true})");
    CHECK(reducer.materialized_json() == R"({"a":{}})");
}

TEST_CASE("state: malformed messages are reported and not applied") {
    StateReducer reducer;
    apply_clean(reducer, R"({"data":{"keep":true}})");
    const std::string kept = R"({"keep":true})";
    CHECK(apply(reducer, R"({"merge":true})") == Strings{"X-MERGE-1"});
    CHECK(apply(reducer, R"({"data":[1],"estuary.dev/merge":true})") == Strings{"X-MERGE-1"});
    CHECK(apply(reducer, R"({"data":"x"})") == Strings{"AP-STATE-1"});
    CHECK(apply(reducer, R"({"Data":{"x":1}})") == Strings{"AP-STATE-1"});
    CHECK(apply(reducer, R"({"type":"LEGACY"})") == Strings{"AP-STATE-1"});
    CHECK(apply(reducer, R"({"type":"OTHER","data":{}})") == Strings{"AP-STATE-1"});
    CHECK(apply(reducer, R"([1])") == Strings{"AP-STATE-1"});
    CHECK(reducer.materialized_json() == kept);
    CHECK(reducer.count() == 8);
    CHECK(problem_text(reducer, R"({"merge":true})").find("without \"data\"") != std::string::npos);
}

TEST_CASE("state: per-stream STATEs") {
    StateReducer reducer;
    apply_clean(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"users"},
        "stream_state":{"cursor":1,"extra":true}}})");
    apply_clean(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"orders",
        "namespace":"shop"},"stream_state":{"cursor":"a"}}})");
    CHECK(reducer.state_file_json() ==
          R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"users"},)"
          R"("stream_state":{"cursor":1,"extra":true}}},)"
          R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"orders","namespace":"shop"},)"
          R"("stream_state":{"cursor":"a"}}}])");

    SUBCASE("a stream's state is replaced (Airbyte semantics)") {
        apply_clean(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"users"},
            "stream_state":{"cursor":2}}})");
        CHECK(reducer.materialized_json() ==
              R"([{"stream":{"stream_descriptor":{"name":"users"},"stream_state":{"cursor":2}},)"
              R"("type":"STREAM"},)"
              R"({"stream":{"stream_descriptor":{"name":"orders","namespace":"shop"},)"
              R"("stream_state":{"cursor":"a"}},"type":"STREAM"}])");
    }
    SUBCASE("with a merge flag it is merged into that stream's state") {
        apply_clean(reducer, R"({"type":"STREAM","merge":true,"stream":{"stream_descriptor":
            {"name":"users"},"stream_state":{"cursor":2,"new":null}}})");
        CHECK(reducer.state_file_json().find(R"("stream_state":{"cursor":2,"extra":true})") !=
              std::string::npos);
        apply_clean(reducer, R"({"type":"STREAM","estuary.dev/merge":true,"stream":{
            "stream_descriptor":{"name":"fresh"},"stream_state":{"x":{"y":null}}}})");
        CHECK(reducer.state_file_json().find(
                  R"({"stream_descriptor":{"name":"fresh"},"stream_state":{"x":{}}})") !=
              std::string::npos);
    }
    SUBCASE("namespace distinguishes streams; absent and null are the same") {
        apply_clean(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"orders"},
            "stream_state":{"cursor":"b"}}})");
        apply_clean(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"users",
            "namespace":null},"stream_state":{"cursor":3}}})");
        std::string file = reducer.state_file_json();
        CHECK(file.find(R"("namespace":"shop"},"stream_state":{"cursor":"a"})") !=
              std::string::npos);
        CHECK(file.find(R"({"cursor":"b"})") != std::string::npos);
        CHECK(file.find(R"("extra")") == std::string::npos);
    }
    SUBCASE("materialized form does not depend on first-seen order") {
        StateReducer other;
        apply_clean(other, R"({"type":"STREAM","stream":{"stream_descriptor":{"namespace":"shop",
            "name":"orders"},"stream_state":{"cursor":"a"}}})");
        apply_clean(other, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"users"},
            "stream_state":{"extra":true,"cursor":1.0}}})");
        CHECK(other.materialized_json() == reducer.materialized_json());
        CHECK(other.state_file_json() != reducer.state_file_json());
    }
    SUBCASE("problems") {
        CHECK(apply(reducer, R"({"type":"STREAM","stream":{"stream_state":{}}})") ==
              Strings{"AP-STATE-1"});
        CHECK(apply(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":5}}})") ==
              Strings{"AP-STATE-1"});
        CHECK(apply(reducer, R"({"type":"STREAM"})") == Strings{"AP-STATE-1"});
        CHECK(apply(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"u",
            "namespace":1},"stream_state":{}}})") == Strings{"AP-STATE-1"});
        CHECK(apply(reducer, R"({"type":"STREAM","merge":true,"stream":{"stream_descriptor":
            {"name":"users"}}})") == Strings{"X-MERGE-1"});
        CHECK(apply(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"users"},
            "stream_state":[1]}})") == Strings{"AP-STATE-1"});
        CHECK(reducer.state_file_json().find(R"({"cursor":1,"extra":true})") != std::string::npos);
    }
    SUBCASE("a stream state without stream_state is kept as sent") {
        apply_clean(reducer,
                    R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"users"}}})");
        CHECK(reducer.state_file_json().find(
                  R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"users"}}})") !=
              std::string::npos);
    }
}

TEST_CASE("state: GLOBAL STATEs") {
    StateReducer reducer;
    apply_clean(reducer, R"({"type":"GLOBAL","global":{"shared_state":{"lsn":1},"stream_states":[
        {"stream_descriptor":{"name":"a"},"stream_state":{"c":1}},
        {"stream_descriptor":{"name":"b"},"stream_state":{"c":1}}]}})");
    apply_clean(reducer, R"({"type":"GLOBAL","global":{"shared_state":{"lsn":2},"stream_states":[
        {"stream_descriptor":{"name":"b"},"stream_state":{"c":2}}]}})");
    CHECK(reducer.state_file_json() ==
          R"([{"type":"GLOBAL","global":{"shared_state":{"lsn":2},"stream_states":[)"
          R"({"stream_descriptor":{"name":"a"},"stream_state":{"c":1}},)"
          R"({"stream_descriptor":{"name":"b"},"stream_state":{"c":2}}]}}])");
    CHECK(reducer.materialized_json() ==
          R"([{"global":{"shared_state":{"lsn":2},"stream_states":[)"
          R"({"stream_descriptor":{"name":"a"},"stream_state":{"c":1}},)"
          R"({"stream_descriptor":{"name":"b"},"stream_state":{"c":2}}]},"type":"GLOBAL"}])");
    SUBCASE("merge flag merges shared state and listed streams") {
        apply_clean(reducer, R"({"type":"GLOBAL","merge":true,"global":{"shared_state":{"x":0},
            "stream_states":[{"stream_descriptor":{"name":"a"},"stream_state":{"c":null}}]}})");
        CHECK(reducer.state_file_json() ==
              R"([{"type":"GLOBAL","global":{"shared_state":{"lsn":2,"x":0},"stream_states":[)"
              R"({"stream_descriptor":{"name":"a"},"stream_state":{}},)"
              R"({"stream_descriptor":{"name":"b"},"stream_state":{"c":2}}]}}])");
    }
    SUBCASE("problems") {
        CHECK(apply(reducer, R"({"type":"GLOBAL"})") == Strings{"AP-STATE-1"});
        CHECK(apply(reducer, R"({"type":"GLOBAL","global":{"stream_states":{}}})") ==
              Strings{"AP-STATE-1"});
        CHECK(apply(reducer, R"({"type":"GLOBAL","global":{"shared_state":{"lsn":9},
            "stream_states":[{"stream_state":{}}]}})") == Strings{"AP-STATE-1"});
        CHECK(reducer.state_file_json().find(R"({"lsn":2})") != std::string::npos);
    }
}

TEST_CASE("state: changing shape is reported and applied") {
    StateReducer reducer;
    apply_clean(reducer, R"({"data":{"legacy":true}})");
    CHECK(apply(reducer, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"s"},
        "stream_state":{"c":1}}})") == Strings{"AP-STATE-1"});
    CHECK(reducer.state_file_json() ==
          R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"s"},)"
          R"("stream_state":{"c":1}}}])");
    CHECK(apply(reducer, R"({"data":{"n":null,"m":1},"merge":true})") == Strings{"AP-STATE-1"});
    CHECK(reducer.state_file_json() == R"({"m":1})");
}

TEST_CASE("state: copies are independent snapshots") {
    StateReducer reducer;
    apply_clean(reducer, R"({"data":{"step":1}})");
    StateReducer snapshot = reducer;
    apply_clean(reducer, R"({"data":{"step":2},"merge":true})");
    CHECK(snapshot.state_file_json() == R"({"step":1})");
    CHECK(snapshot.count() == 1);
    CHECK(reducer.state_file_json() == R"({"step":2})");
    snapshot = reducer;
    apply_clean(reducer, R"({"data":{"step":3}})");
    CHECK(snapshot.state_file_json() == R"({"step":2})");
    StateReducer moved = std::move(snapshot);
    CHECK(moved.state_file_json() == R"({"step":2})");
}

TEST_CASE("state: message buffers may be reused after apply") {
    StateReducer reducer;
    std::string buffer = R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"s"},)"
                         R"("stream_state":{"k":"value"}}})";
    {
        rapidjson::Document document;
        document.ParseInsitu(buffer.data());
        REQUIRE(!document.HasParseError());
        CHECK(reducer.apply(document).empty());
    }
    buffer.assign(buffer.size(), 'X');
    CHECK(reducer.state_file_json() ==
          R"([{"type":"STREAM","stream":{"stream_descriptor":{"name":"s"},)"
          R"("stream_state":{"k":"value"}}}])");
}

TEST_CASE("state: many large states stay correct across memory compaction") {
    StateReducer reducer;
    std::string filler(4000, 'f');
    constexpr int k_states = 600;
    for (int i = 0; i < k_states; ++i) {
        std::string text = R"({"data":{"i":)" + std::to_string(i) + R"(,"filler":")" + filler +
                           R"("},"merge":)" + (i % 2 == 0 ? "true" : "false") + "}";
        REQUIRE(reducer.apply(json::parse_json_text(text, "state")).empty());
    }
    CHECK(reducer.count() == k_states);
    CHECK(reducer.materialized_json() ==
          R"({"filler":")" + filler + R"(","i":)" + std::to_string(k_states - 1) + "}");
}

TEST_CASE("state: a null merge patch is RFC 7396's reset, applied and advised against") {
    StateReducer reducer;
    apply_clean(reducer, R"({"data":{"cursor":5}})");
    auto problems = reducer.apply(json::parse_json_text(R"({"data":null,"merge":true})", "state"));
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].clause == "X-MERGE-1");
    CHECK(problems[0].advisory);
    CHECK(reducer.materialized_json() == "{}");

    StateReducer streams;
    apply_clean(streams, R"({"type":"STREAM","stream":{"stream_descriptor":{"name":"s"},)"
                         R"("stream_state":{"cursor":5}}})");
    auto reset = streams.apply(json::parse_json_text(
        R"({"type":"STREAM","merge":true,"stream":{"stream_descriptor":{"name":"s"},)"
        R"("stream_state":null}})",
        "state"));
    REQUIRE(reset.size() == 1);
    CHECK(reset[0].advisory);
    CHECK(streams.materialized_json().find(R"("stream_state":{})") != std::string::npos);
}

TEST_CASE("state: a connector whose STATEs are always patches needs no flag") {
    StateReducer reducer(true);
    apply_clean(reducer, R"({"data":{"a":1,"b":2}})");
    apply_clean(reducer, R"({"data":{"a":null,"c":3}})");
    CHECK(reducer.materialized_json() == R"({"b":2,"c":3})");
}

TEST_CASE("state: merge flags are recognised in every spelling, only when true") {
    for (const char* text :
         {R"({"merge":true})", R"({"estuary.dev/merge":true})", R"({"patch":true})"}) {
        CHECK(has_merge_flag(json::parse_json_text(text, "state")));
    }
    CHECK_FALSE(has_merge_flag(json::parse_json_text(R"({"merge":false})", "state")));
    CHECK_FALSE(has_merge_flag(json::parse_json_text(R"({"data":{}})", "state")));
}
