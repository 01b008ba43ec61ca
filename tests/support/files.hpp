#pragma once
// Reading a run's files back in tests.
#include <fstream>
#include <sstream>
#include <string>

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

}  // namespace tpeopt::testing
