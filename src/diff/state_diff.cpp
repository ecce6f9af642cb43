#include "diff/state_diff.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <set>

namespace conform::diff {

namespace {

using Value = rapidjson::Value;

std::string string_member(const Value& object, const char* name) {
    if (!object.IsObject()) {
        return "";
    }
    auto found = object.FindMember(name);
    return found != object.MemberEnd() && found->value.IsString() ? found->value.GetString() : "";
}

std::string descriptor_name(const Value& descriptor) {
    auto name = string_member(descriptor, "name");
    auto ns = string_member(descriptor, "namespace");
    return ns.empty() ? name : ns + "." + name;
}

// `{"cursor":string,"seq":integer}`: members and their JSON types, objects two levels deep.
std::string shape_of(const Value& value, int depth = 0) {
    if (value.IsObject() && depth < 2) {
        std::set<std::string> members;
        for (const auto& member : value.GetObject()) {
            members.insert(fmt::format("\"{}\":{}", member.name.GetString(),
                                       shape_of(member.value, depth + 1)));
        }
        return fmt::format("{{{}}}", fmt::join(members, ","));
    }
    return std::string(json_type_name(value));
}

void add_stream_state(const Value& stream, const char* kind,
                      std::map<std::string, std::string>& shapes) {
    if (stream.IsObject() && stream.HasMember("stream_descriptor")) {
        const Value null_state;
        auto found = stream.FindMember("stream_state");
        shapes[descriptor_name(stream["stream_descriptor"])] = fmt::format(
            "{} {}", kind, shape_of(found == stream.MemberEnd() ? null_state : found->value));
    }
}

}  // namespace

std::string ResumePoint::describe(std::size_t total) const {
    return fmt::format("the control's {} state (after STATE {} of {})", name, checkpoint + 1,
                       total);
}

std::vector<ResumePoint> resume_points(std::size_t states) {
    std::vector<ResumePoint> points;
    if (states <= 1) {
        if (states == 1) {
            points.push_back({0, "only"});
        }
        return points;
    }
    for (const auto& [checkpoint, name] : {std::pair<std::size_t, const char*>{0, "first"},
                                           {(states - 1) / 2, "middle"},
                                           {states - 1, "final"}}) {
        if (points.empty() || points.back().checkpoint != checkpoint) {
            points.push_back({checkpoint, name});
        }
    }
    return points;
}

std::vector<Change> resume_losses(const ReadCapture& control, const ResumePoint& point,
                                  const ReadCapture& target_full, const ReadCapture& target_resumed,
                                  const StreamIdentities& identities) {
    std::vector<Change> changes;
    for (const auto& [stream, records] : target_full.streams) {
        const auto& identity = identity_for(identities, stream);
        std::set<std::string> covered;
        if (auto found = control.streams.find(stream); found != control.streams.end()) {
            for (std::size_t i = 0; i < found->second.size(); ++i) {
                if (found->second[i].checkpoint <= point.checkpoint) {
                    covered.insert(identity_of(identity, found->second[i], i));
                }
            }
        }
        // Positions in a resumed read start over: by order, a record is covered by being there.
        if (auto found = target_resumed.streams.find(stream);
            found != target_resumed.streams.end() && identity.kind != StreamIdentity::Kind::order) {
            for (std::size_t i = 0; i < found->second.size(); ++i) {
                covered.insert(identity_of(identity, found->second[i], i));
            }
        }
        std::vector<std::string> lost;
        std::size_t resumed_count =
            target_resumed.streams.count(stream) ? target_resumed.streams.at(stream).size() : 0;
        for (std::size_t i = 0; i < records.size(); ++i) {
            auto key = identity_of(identity, records[i], i);
            if (covered.count(key) == 0) {
                lost.push_back(key);
            }
        }
        if (identity.kind == StreamIdentity::Kind::order) {
            // Only how many are missing can be told: the resumed read owes what the control's
            // records before the checkpoint do not cover.
            auto owed = lost.size();
            lost.resize(owed > resumed_count ? owed - resumed_count : 0);
        }
        if (!lost.empty()) {
            changes.push_back({"state.resume_loss",
                               stream,
                               fmt::format("resumed from {}, the target skipped {} record(s), "
                                           "e.g. {}",
                                           point.describe(control.states.size()), lost.size(),
                                           first_examples(lost)),
                               true,
                               {}});
        }
    }
    return changes;
}

std::map<std::string, std::string> state_shapes(const std::string& state_file) {
    std::map<std::string, std::string> shapes;
    rapidjson::Document document;
    document.Parse(state_file.c_str(), state_file.size());
    if (document.HasParseError()) {
        return shapes;
    }
    if (document.IsObject()) {
        shapes["state"] = "legacy";
        for (const auto& member : document.GetObject()) {
            shapes[member.name.GetString()] = "legacy " + shape_of(member.value);
        }
        return shapes;
    }
    if (!document.IsArray() || document.Empty()) {
        shapes["state"] = "none";
        return shapes;
    }
    std::set<std::string> kinds;
    for (const auto& entry : document.GetArray()) {
        auto type = string_member(entry, "type");
        kinds.insert(type);
        if (type == "STREAM" && entry.HasMember("stream") && entry["stream"].IsObject()) {
            add_stream_state(entry["stream"], "STREAM", shapes);
        } else if (type == "GLOBAL" && entry.HasMember("global") && entry["global"].IsObject()) {
            const auto& global = entry["global"];
            if (global.HasMember("shared_state")) {
                shapes["(shared)"] = "GLOBAL " + shape_of(global["shared_state"]);
            }
            if (global.HasMember("stream_states") && global["stream_states"].IsArray()) {
                for (const auto& stream : global["stream_states"].GetArray()) {
                    add_stream_state(stream, "GLOBAL", shapes);
                }
            }
        }
    }
    shapes["state"] = kinds.count("GLOBAL") ? "GLOBAL" : "per-stream";
    return shapes;
}

std::vector<Change> diff_state_shapes(const ReadCapture& control, const ReadCapture& target) {
    std::vector<Change> changes;
    if (control.states.empty() || target.states.empty()) {
        return changes;
    }
    auto before = state_shapes(control.states.back());
    auto after = state_shapes(target.states.back());
    for (const auto& [where, shape] : before) {
        auto found = after.find(where);
        auto now = found == after.end() ? std::string("none") : found->second;
        if (now != shape) {
            changes.push_back({"state.shape_changed",
                               where,
                               fmt::format("the final state: {} -> {}", shape, now),
                               false,
                               {}});
        }
    }
    for (const auto& [where, shape] : after) {
        if (before.count(where) == 0) {
            changes.push_back({"state.shape_changed",
                               where,
                               fmt::format("the final state: none -> {}", shape),
                               false,
                               {}});
        }
    }
    return changes;
}

}  // namespace conform::diff
