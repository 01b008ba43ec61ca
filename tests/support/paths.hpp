#pragma once
// Where tests find the repository and its real data. The environment (TPEOPT_SOURCE_DIR)
// overrides the build-time path, so test binaries built here also run on the GPU machine
// over a copy of the tree, and CI runs them over a copy in a temporary folder.
#include <cstdlib>
#include <string>

namespace tpeopt::testing {

inline std::string source_dir() {
  const char* env = std::getenv("TPEOPT_SOURCE_DIR");
  return env && *env ? env : TPEOPT_SOURCE_DIR;
}

/// The real series shipped in the repository's data/ folder (data/README.md, a SOURCE.md
/// per folder): binance-1m/..., backtesting-py/....
inline std::string data_dir() { return source_dir() + "/data"; }

}  // namespace tpeopt::testing
