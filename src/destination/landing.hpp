#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "destination/catalog.hpp"
#include "destination/input.hpp"
#include "json/digest.hpp"
#include "process/process.hpp"

// What landed in a destination (the rows its verify command prints) and what each sync mode says
// should have: the model the checks of DST-DATA-* and DST-STATE-2/4 compare it with.
namespace conform::destination {

// One row the verify command printed, of a catalog stream.
struct Row {
    std::size_t stream = 0;
    json::Digest content{};
    std::optional<json::Digest> key;
    std::string key_text;
    std::uint64_t line = 0;  // its line in verify's stdout
    std::string text;        // an excerpt
};

struct Landed {
    std::vector<Row> rows;
    std::uint64_t other_rows = 0;  // rows of streams the catalog does not have
    std::vector<std::string> other_streams;
    std::string problem;  // the first line that is not a row, and why
};

// Reads verify's stdout as it arrives: each line `{"stream", "namespace", "data"}` or an Airbyte
// RECORD message.
class LandedReader : public process::Observer {
public:
    explicit LandedReader(const Catalog& catalog);
    ~LandedReader() override;

    process::Decision on_stdout_line(std::string_view line, std::uint64_t line_number,
                                     bool truncated) override;
    Landed take();

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// What one write sent, as the expectations weigh it.
struct Sent {
    int sync = 0;
    InputPtr input;
    // The write took all its input and exited 0 (not killed, not failed).
    bool completed = false;
};

// How often one record must and may be in the destination.
struct Bounds {
    std::uint64_t required = 0;  // once per time a completed sync's input holds it
    std::uint64_t allowed = 0;   // once per time a write sent it (a resumed write sends again)
    const InputMessage* example = nullptr;
    int sync = 0;  // the last sync that sent it
};

using ByContent = std::unordered_map<json::Digest, Bounds>;

// An append stream keeps every completed sync's records.
ByContent appended(const std::vector<Sent>& history, std::size_t stream);
// An overwrite stream keeps the records of the last completed sync only.
ByContent overwritten(const std::vector<Sent>& history, std::size_t stream);

// The record an append_dedup stream keeps for one key: the latest by cursor (by input order when
// the stream has no cursor or two cursors tie) over the completed syncs.
struct Latest {
    const InputMessage* record = nullptr;
    int sync = 0;
};

std::unordered_map<json::Digest, Latest> latest_by_key(const std::vector<Sent>& history,
                                                       std::size_t stream);

// The completed syncs of `history`, each once, in order.
std::vector<int> completed_syncs(const std::vector<Sent>& history);

// The rows of `stream`, counted by content and grouped by key.
std::unordered_map<json::Digest, std::uint64_t> count_by_content(const Landed& landed,
                                                                 std::size_t stream);
std::unordered_map<json::Digest, std::vector<const Row*>> rows_by_key(const Landed& landed,
                                                                      std::size_t stream);

// "users record [12] (sync 2, input line 40)".
std::string describe(const Catalog& catalog, const InputMessage& record, int sync);
std::string describe(const Catalog& catalog, const Row& row);

}  // namespace conform::destination
