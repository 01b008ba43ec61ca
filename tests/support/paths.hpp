#pragma once
// Where tests find the repository and the shared real data. The environment
// (TPEOPT_SOURCE_DIR, TPEOPT_SHARED_DATA_DIR) overrides the build-time paths, so test
// binaries built here also run on the GPU machine over a copy of the tree.
#include <cstdlib>
#include <string>

namespace tpeopt::testing {

inline std::string source_dir() {
  const char* env = std::getenv("TPEOPT_SOURCE_DIR");
  return env && *env ? env : TPEOPT_SOURCE_DIR;
}

inline std::string shared_data_dir() {
  const char* env = std::getenv("TPEOPT_SHARED_DATA_DIR");
  return env && *env ? env : TPEOPT_SHARED_DATA_DIR;
}

}  // namespace tpeopt::testing
