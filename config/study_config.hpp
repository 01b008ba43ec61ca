#pragma once
// io/: configs, data loaders and result writers. The study config (docs/user-guide.md, "The config").
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/json_fields.hpp"
#include "strategies/registry.hpp"
#include "tpe/batch_tpe_sampler.hpp"
#include "tpe/ga_sampler.hpp"
#include "tpe/search_space.hpp"
#include "tpe/tpe_sampler.hpp"

namespace tpeopt::io {

/// `objective`: what the score is and which way is better (as written; the strategy's
/// settings hold it typed).
struct ObjectiveConfig {
  std::string name;  ///< one of the strategy's objectives (its default when not written)
  tpe::Direction direction = tpe::Direction::Maximize;
  std::int64_t min_trades = 0;  ///< trials with fewer trades are infeasible (strategy default if unset)
  bool min_trades_set = false;
  std::string aggregate;  ///< strategies over symbols: sum | mean | worst | portfolio ("" = sum)
};

/// `data.holdout` (docs/user-guide.md, "Hold-out"): the out-of-sample part
/// of the data, never shown to the optimizer; the top-K trials are scored on it after the run.
struct HoldoutConfig {
  double fraction = 0.0;  ///< in (0, 1): the last `fraction` of the data's time span
  /// Or explicit date ranges, "YYYY-MM-DD" (UTC; both ends included); parsed to
  /// [first second, last second + 1) since 1970.
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
  std::vector<std::pair<std::string, std::string>> range_text;  ///< as written, for resolved()
  bool enabled() const { return fraction > 0.0 || !ranges.empty(); }
};

/// `data.walk_forward` (docs/user-guide.md, "Walk-forward"): the data cut into
/// folds + 1 equal windows of atoms; fold f optimizes on window f and scores its top K on
/// window f + 1. `tpeopt run` runs the folds one after another, each in a run directory of
/// its own whose config names its fold.
struct WalkForwardConfig {
  std::uint64_t folds = 0;  ///< >= 1 when enabled
  std::int64_t fold = -1;   ///< this study's fold (0-based), or -1: the parent of all folds
  bool enabled() const { return folds > 0; }
  /// The parent directory of a walk-forward study (its folds are runs of their own).
  bool is_parent() const { return enabled() && fold < 0; }
};

/// `data.folds`, `data.embargo` and `objective.across_folds` (docs/user-guide.md, "Folds"):
/// the in-sample span cut into `folds` contiguous folds of equal atom count, each scored in
/// the same walk, and the rule that makes the trial's score of the fold scores.
struct FoldsConfig {
  std::uint64_t folds = 0;    ///< 2 .. 64 when enabled
  std::uint64_t embargo = 0;  ///< atoms after each inner boundary where a trade that starts is not counted
  strategies::AcrossFolds across;
  bool enabled() const { return folds > 0; }
};

/// `search.halving` (docs/user-guide.md, "Successive halving"): successive
/// halving of each batch over data slices.
struct HalvingConfig {
  bool enabled = false;
  std::uint64_t eta = 3;         ///< >= 2: after each rung the best 1/eta of the batch go on
  std::uint64_t min_slices = 1;  ///< >= 1: rung 0's slices (m); rung r has m * eta^r
  /// Slices the (in-sample) data is cut into: 0 = the strategy's natural slices (one per
  /// trading day of a trade log; else 16 equal blocks of bars); n = n equal groups of atoms.
  std::uint64_t slices = 0;
};

/// `search`: how trials are proposed and batched.
struct SearchConfig {
  std::string sampler = "tpe";  ///< tpe | random | grid | ga
  std::uint64_t trials = 1000;  ///< total trials (grid: all combinations unless smaller)
  std::uint64_t batch = 256;    ///< trials per batch (>= 1)
  std::uint64_t depth = 2;      ///< batches in flight (>= 1)
  std::uint64_t seed = 0;       ///< study seed: with the config, fixes the run
  std::uint64_t top_k = 10;     ///< size of top.json
  tpe::TpeConfig tpe;
  tpe::GaConfig ga;  ///< `search.ga` (docs/samplers.md)
  HalvingConfig halving;
};

/// A whole study config, validated. Paths are resolved against the config's folder.
struct StudyConfig {
  std::string source;                                ///< where it came from, for messages
  std::filesystem::path base_dir;                    ///< relative data paths are resolved against this
  std::string strategy;                              ///< a registered strategy's name (strategies/registry.hpp)
  const strategies::StrategyEntry* entry = nullptr;  ///< its registry entry
  /// The strategy's own part of the config (its `data` object, objective, root keys of its
  /// own), parsed and checked by its registration.
  std::shared_ptr<const strategies::StrategySettings> settings;
  HoldoutConfig holdout;           ///< `data.holdout`
  WalkForwardConfig walk_forward;  ///< `data.walk_forward`
  FoldsConfig folds;               ///< `data.folds`, `data.embargo`, `objective.across_folds`
  /// A hold-out or a walk-forward fold: the optimizer sees an in-sample part only.
  bool has_parts() const { return holdout.enabled() || walk_forward.fold >= 0; }
  ObjectiveConfig objective;
  SearchConfig search;
  tpe::SearchSpace space;                ///< the searched parameters, in the order written
  std::map<std::string, double> fixed;   ///< parameters given as plain numbers
  std::vector<std::string> param_order;  ///< every parameter name in the order written
  std::string executor = "auto";         ///< cpu | cuda | auto

  /// The config with every default filled in (written to a run's directory).
  Json resolved() const;
};

/// Values given beside a config (the command line's --trials, ...; tpeopt.run's keywords),
/// each overriding the config key of the same name.
struct ConfigOverrides {
  std::optional<std::uint64_t> trials, batch, depth, seed;
  std::string executor;  ///< cpu | cuda | auto; "" = the config's
};

/// Applies `overrides` to `config`; errors name each value as `prefix` + its name
/// ("--trials" on the command line, "trials" for a keyword).
void apply_overrides(StudyConfig& config, const ConfigOverrides& overrides, const std::string& prefix);

/// Reads and validates a config file. Errors name the file and the key (or the line
/// and column of a JSON syntax error).
StudyConfig load_study_config(const std::filesystem::path& path);

/// Validates an already parsed config; `source` names it in errors.
StudyConfig parse_study_config(const Json& json, const std::string& source, const std::filesystem::path& base_dir);

/// Days since 1970-01-01 of a "YYYY-MM-DD" date; throws Error naming `path` when malformed.
std::int64_t parse_date_days(const std::string& text, const std::string& path);

/// Parses JSON text, turning syntax errors into "source:line:column: ..." errors.
Json parse_json_text(const std::string& text, const std::string& source);

}  // namespace tpeopt::io
