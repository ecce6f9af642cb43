#include "meltano/describe.hpp"

#include <rapidjson/document.h>

#include <fmt/format.h>

#include <algorithm>

#include "json/bounded_parse.hpp"

namespace conform::meltano {

namespace {

void read_entry(const rapidjson::Value& entry, std::size_t index, DescribeReading& reading) {
    std::string where = fmt::format("commands[{}]", index);
    if (!entry.IsObject()) {
        reading.deviations.push_back(where + " is not an object");
        return;
    }
    DescribedCli cli;
    auto name = entry.FindMember("name");
    if (name == entry.MemberEnd() || !name->value.IsString()) {
        reading.deviations.push_back(where + " has no string \"name\"");
        return;
    }
    cli.name = name->value.GetString();
    where = fmt::format("{} ({})", where, cli.name);
    auto description = entry.FindMember("description");
    if (description == entry.MemberEnd() || !description->value.IsString()) {
        reading.deviations.push_back(where + " has no string \"description\"");
    }
    auto commands = entry.FindMember("commands");
    if (commands == entry.MemberEnd() || !commands->value.IsArray()) {
        reading.deviations.push_back(where + " has no \"commands\" array");
    } else {
        for (const auto& command : commands->value.GetArray()) {
            if (command.IsString()) {
                cli.commands.emplace_back(command.GetString());
            } else {
                reading.deviations.push_back(where + " lists a command that is not a string");
            }
        }
    }
    auto pass_through = entry.FindMember("pass_through_cli");
    if (pass_through == entry.MemberEnd() || !pass_through->value.IsBool()) {
        reading.deviations.push_back(where + " has no boolean \"pass_through_cli\"");
    } else {
        cli.pass_through = pass_through->value.GetBool();
    }
    reading.clis.push_back(std::move(cli));
}

}  // namespace

DescribeReading read_describe(std::string_view stdout_text, std::string_view extension,
                              std::string_view invoker) {
    DescribeReading reading;
    rapidjson::Document document;
    auto parse = json::parse_bounded(document, stdout_text);
    if (parse.failed()) {
        reading.not_json = fmt::format("stdout is not one JSON document: {} at offset {}",
                                       json::reason_of(parse), parse.offset);
        return reading;
    }
    if (!document.IsObject()) {
        reading.not_json = "stdout is JSON but not an object";
        return reading;
    }
    auto commands = document.FindMember("commands");
    if (commands == document.MemberEnd()) {
        reading.not_json = "the JSON object has no \"commands\" member";
        return reading;
    }
    if (!commands->value.IsArray()) {
        reading.deviations.emplace_back("\"commands\" is not an array of CLI entries");
        return reading;
    }
    std::size_t index = 0;
    for (const auto& entry : commands->value.GetArray()) {
        read_entry(entry, index++, reading);
    }
    auto find = [&](std::string_view name) {
        return std::find_if(reading.clis.begin(), reading.clis.end(),
                            [&](const DescribedCli& cli) { return cli.name == name; });
    };
    if (auto it = find(extension); it == reading.clis.end()) {
        reading.deviations.push_back(
            fmt::format("no entry names the extension CLI '{}'", extension));
    } else if (it->pass_through) {
        reading.deviations.push_back(
            fmt::format("'{}' is marked pass_through_cli true; the extension CLI is not a "
                        "pass-through",
                        extension));
    }
    if (!invoker.empty()) {
        if (auto it = find(invoker); it == reading.clis.end()) {
            reading.deviations.push_back(fmt::format("no entry names the invoker '{}'", invoker));
        } else if (!it->pass_through) {
            reading.deviations.push_back(
                fmt::format("the invoker '{}' is not marked pass_through_cli true", invoker));
        }
    }
    return reading;
}

}  // namespace conform::meltano
