#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "diff/change.hpp"
#include "diff/records.hpp"

namespace conform::diff {

// The control's checkpoints the target is resumed from: the first, the middle and the final
// one (fewer when the control wrote fewer STATEs), by index into ReadCapture::states.
struct ResumePoint {
    std::size_t checkpoint = 0;
    std::string name;  // "first", "middle", "final" ("only" for a single STATE)

    // "the control's final state (after STATE 9 of 9)"
    std::string describe(std::size_t total) const;
};
std::vector<ResumePoint> resume_points(std::size_t states);

// A target resumed from the control's state at `point` must, together with what the control
// emitted before that checkpoint, cover every record of the target's own full read: each record
// missing is lost ("state.resume_loss"). Records are matched by `identities`.
std::vector<Change> resume_losses(const ReadCapture& control, const ResumePoint& point,
                                  const ReadCapture& target_full, const ReadCapture& target_resumed,
                                  const StreamIdentities& identities);

// The shape of a --state file per stream: the state's type and the members of each stream's
// state with their JSON types ("STREAM {\"cursor\":string}"); "state" for the kind of the whole
// file (per-stream, GLOBAL or legacy).
std::map<std::string, std::string> state_shapes(const std::string& state_file);

// The shapes of the control's and the target's final states compared ("state.shape_changed",
// harmless: whether the target still reads the old state is what resuming it shows).
std::vector<Change> diff_state_shapes(const ReadCapture& control, const ReadCapture& target);

}  // namespace conform::diff
