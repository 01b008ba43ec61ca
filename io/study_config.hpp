#pragma once
// io/: configs, data loaders and result writers. The study config (DESIGN.md section 8).
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "io/json_fields.hpp"
#include "tpe/ga_sampler.hpp"
#include "tpe/search_space.hpp"
#include "tpe/tpe_sampler.hpp"

namespace tpeopt::io {

/// `objective`: what the score is and which way is better.
struct ObjectiveConfig {
  std::string name;  ///< strategy-specific ("total_return", ...; "value" for functions)
  tpe::Direction direction = tpe::Direction::Maximize;
  std::int64_t min_trades = 0;  ///< trials with fewer trades are infeasible (strategy default if unset)
  bool min_trades_set = false;
  std::string aggregate;  ///< candle strategies: sum | mean | worst | portfolio over symbols ("" = sum)
};

/// `search`: how trials are proposed and batched.
struct SearchConfig {
  std::string sampler = "tpe";    ///< tpe | random | grid | ga
  std::uint64_t trials = 1000;    ///< total trials (grid: all combinations unless smaller)
  std::uint64_t batch = 256;      ///< trials per batch (>= 1)
  std::uint64_t depth = 2;        ///< batches in flight (>= 1)
  std::uint64_t seed = 0;         ///< study seed: with the config, fixes the run
  std::uint64_t top_k = 10;       ///< size of top.json
  tpe::TpeConfig tpe;
  tpe::GaConfig ga;  ///< `search.ga` (docs/samplers.md)
};

/// A whole study config, validated. Paths are resolved against the config's folder.
struct StudyConfig {
  std::string source;              ///< where it came from, for messages
  std::filesystem::path base_dir;  ///< relative data paths are resolved against this
  std::string strategy;            ///< functions | exhaustion | trade_filter | ...
  std::string function;            ///< functions: the test function
  Json data = Json::object();      ///< strategy-specific; validated by the strategy factory
  ObjectiveConfig objective;
  SearchConfig search;
  tpe::SearchSpace space;                ///< the searched parameters, in the order written
  std::map<std::string, double> fixed;   ///< parameters given as plain numbers
  std::vector<std::string> param_order;  ///< every parameter name in the order written
  std::string executor = "auto";         ///< cpu | cuda | auto

  /// The config with every default filled in (written to a run's directory).
  Json resolved() const;
};

/// Reads and validates a config file. Errors name the file and the key (or the line
/// and column of a JSON syntax error).
StudyConfig load_study_config(const std::filesystem::path& path);

/// Validates an already parsed config; `source` names it in errors.
StudyConfig parse_study_config(const Json& json, const std::string& source, const std::filesystem::path& base_dir);

/// Parses JSON text, turning syntax errors into "source:line:column: ..." errors.
Json parse_json_text(const std::string& text, const std::string& source);

}  // namespace tpeopt::io
