// What a verify command prints, read as rows of the catalog's streams.
#include <doctest/doctest.h>

#include <string>

#include "destination/catalog.hpp"
#include "destination/landing.hpp"

using namespace conform;
using namespace conform::destination;

TEST_CASE("landed rows: a row without a namespace, of a stream in two namespaces, is not guessed") {
    const char* catalog_text = R"({"streams": [
      {"stream": {"name": "users", "namespace": "ns_a", "json_schema": {"type": "object"},
                  "supported_sync_modes": ["full_refresh"]},
       "sync_mode": "full_refresh", "destination_sync_mode": "append"},
      {"stream": {"name": "users", "namespace": "ns_b", "json_schema": {"type": "object"},
                  "supported_sync_modes": ["full_refresh"]},
       "sync_mode": "full_refresh", "destination_sync_mode": "append"},
      {"stream": {"name": "tags", "json_schema": {"type": "object"},
                  "supported_sync_modes": ["full_refresh"]},
       "sync_mode": "full_refresh", "destination_sync_mode": "append"}]})";
    Catalog catalog(catalog_text, "two namespaces");
    LandedReader reader(catalog);
    reader.on_stdout_line(R"({"stream": "tags", "data": {"id": 1}})", 1, false);
    reader.on_stdout_line(R"({"stream": "users", "namespace": "ns_b", "data": {"id": 1}})", 2,
                          false);
    auto named = reader.take();
    CHECK(named.problem.empty());
    CHECK(named.rows.size() == 2);

    LandedReader ambiguous_reader(catalog);
    ambiguous_reader.on_stdout_line(R"({"stream": "users", "data": {"id": 1}})", 1, false);
    auto ambiguous = ambiguous_reader.take();
    CHECK(ambiguous.problem.find("names stream 'users' without a namespace, and the catalog has "
                                 "it in 2 namespaces (ns_a, ns_b)") != std::string::npos);
    CHECK(ambiguous.rows.empty());
}
