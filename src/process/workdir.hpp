#pragma once

#include <filesystem>
#include <string_view>

namespace conform::process {

// A private temporary folder (mode 0700) that is removed with everything in it when destroyed.
// Input files for connectors are written here because configs hold secrets.
class PrivateDir {
public:
    // Creates the folder under $TMPDIR (or /tmp). Throws conform::Error (internal) on failure.
    PrivateDir();
    ~PrivateDir();
    PrivateDir(const PrivateDir&) = delete;
    PrivateDir& operator=(const PrivateDir&) = delete;

    const std::filesystem::path& path() const { return m_path; }

    // Writes `content` to `name` inside the folder with mode 0600 (replacing an existing file) and
    // returns its full path. Throws conform::Error (internal) when `name` is not a plain file name
    // or the file cannot be written.
    std::filesystem::path write_file(std::string_view name, std::string_view content) const;

private:
    std::filesystem::path m_path;
};

}  // namespace conform::process
