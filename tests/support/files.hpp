#pragma once
// Reading a run's files back in tests.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/json_fields.hpp"

namespace tpeopt::testing {

/// The whole file as bytes ("" when it cannot be opened).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The file parsed as JSON (throws nlohmann's parse error when it is not).
inline io::Json read_json(const std::string& path) { return io::Json::parse(read_text(path)); }

/// The names of the temporary files left beside `path` (`path`.tmp and `path`.tmp.PID, as
/// common/atomic_file.hpp writes them); empty when a replacement cleaned up after itself.
inline std::vector<std::string> temporaries_beside(const std::filesystem::path& path) {
  std::vector<std::string> out;
  const std::string prefix = path.filename().string() + ".tmp";
  for (const auto& entry : std::filesystem::directory_iterator(path.parent_path())) {
    const std::string name = entry.path().filename().string();
    if (name.compare(0, prefix.size(), prefix) == 0) out.push_back(name);
  }
  return out;
}

}  // namespace tpeopt::testing
