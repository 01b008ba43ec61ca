#pragma once
// Checks of the paths a command writes, made while the command line is parsed (before
// anything runs): a folder given where a file is written, or a file where a folder is,
// says so (exit 2).
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

namespace tpeopt::cli {

/// A file to write: anything but an existing folder.
inline CLI::Validator output_file() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        std::error_code ec;
        return std::filesystem::is_directory(path, ec) ? path + " is a folder, not a file" : std::string();
      },
      "FILE");
}

/// A folder to create or fill: anything but an existing file.
inline CLI::Validator output_folder() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        std::error_code ec;
        return std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)
                   ? path + " is a file, not a folder"
                   : std::string();
      },
      "DIR");
}

}  // namespace tpeopt::cli
