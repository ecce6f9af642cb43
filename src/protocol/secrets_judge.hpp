#pragma once

#include <string_view>

#include "protocol/line_judge.hpp"

namespace conform::protocol {

// The per-message code of a "no secret leaks" check (AP-SPEC-3 for sources, DST-SEC-1 for
// destinations): a secret config value on any stdout line, or anywhere on stderr, fails. A CONTROL
// message is the connector handing the platform its updated config to persist (a migrated config,
// a refreshed OAuth token): its secrets belong there. `id` is the check's id and must outlive the
// judge (a literal).
class SecretsJudge : public LineJudge {
public:
    explicit SecretsJudge(std::string_view id) : LineJudge(id) {}
    void on_line(const LineFacts& line, const Secrets& secrets, Tally& tally) const override {
        if (secrets.empty() || line.type == "CONTROL") {
            return;
        }
        tally.judged();
        if (secrets.found_in(line.text)) {
            tally.fail("a secret config value appears in this stdout line", line.text);
        }
    }
    void on_end(const EndFacts& end, Tally& tally) const override {
        if (!end.secrets_known) {
            return;
        }
        tally.judged();
        if (end.secret_on_stderr) {
            tally.fail("a secret config value appears on stderr", end.stderr_text);
        }
    }
};

}  // namespace conform::protocol
