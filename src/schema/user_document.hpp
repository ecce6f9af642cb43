#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidjson/fwd.h>

namespace conform::schema {

class Schema;

// A problem in a user's file: the JSON pointer of the value at fault ("" for the whole file) and
// what was expected there.
using Problem = std::pair<std::string, std::string>;

// A JSON file a user wrote (a test config, a suite): parsed, validated against its schema, and
// able to name the line of any value in an error. Every error it raises reads
//   ORIGIN: invalid WHAT:
//     ORIGIN:LINE: POINTER: what was expected
//     (what each key means: GUIDE in conform's documentation)
class UserDocument {
public:
    struct Kind {
        std::string_view what;  // "suite", "test config"
        // The page of conform's documentation for users that explains the keys (a user has the
        // documentation, not conform's source tree with its schemas).
        std::string_view guide;  // "docs/test-config.md"
    };

    // Throws conform::Error (input) when the text is not JSON or breaks the schema, listing every
    // violation (at most 20) with its line.
    UserDocument(std::string text, std::string origin, const Schema& schema, Kind kind);
    ~UserDocument();
    UserDocument(UserDocument&&) noexcept;
    UserDocument& operator=(UserDocument&&) noexcept;

    const rapidjson::Document& root() const;
    const std::string& origin() const;
    // The line where the value at `pointer` (or its nearest ancestor) starts.
    std::size_t line_of(const std::string& pointer) const;
    // Reports problems the schema cannot express, in the same form as the schema's own.
    [[noreturn]] void fail(const std::vector<Problem>& problems) const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace conform::schema
