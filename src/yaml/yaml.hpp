#pragma once

#include <string>

// YAML read as JSON, so that one loader (schema::UserDocument) validates either and names the line
// of any value in an error. yaml-cpp stays inside yaml.cpp.
namespace conform::yaml {

// `text` (YAML 1.2 as yaml-cpp reads it) as JSON text in which every key and scalar starts on its
// line in `text`, and every block mapping or sequence on the line of the key that names it: a
// JSON loader's line of a value is the YAML line a user looks for. Plain scalars become
// JSON numbers, booleans (true/false, yes/no, on/off in any case, as YAML 1.1 files such as
// Airbyte's write them) and null (~, null, empty) when they read as one, strings otherwise;
// quoted scalars stay strings; an alias repeats its anchor's value. Mappings read as PyYAML
// reads them: merge keys (`<<`) honoured, a repeated key's last value kept. An empty document is
// null.
// Throws conform::Error (input) naming origin:line:column for text that is not YAML, a second
// document, nesting deeper than yaml-cpp reads, an alias inside its own anchor's node, a merge
// key of anything but mappings, and aliases or merges that expand the text past 16 MiB plus 8
// bytes a byte of it.
std::string to_json_text(const std::string& text, const std::string& origin);

// True when `path` ends in .yml or .yaml (any case).
bool is_yaml_path(const std::string& path);

}  // namespace conform::yaml
