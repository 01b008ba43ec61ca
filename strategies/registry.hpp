#pragma once
// The strategy registry: the one place where a strategy is known to the rest of tpeopt.
// Each strategy registers itself once (its folder's <name>_register.cpp, listed by
// strategies/CMakeLists.txt): its name, parameters, config parsing, host and device
// factories and optional capabilities. The config loader, the engine, the CUDA executor and
// the command line only look strategies up here; none of them names one. How to write and
// register a strategy: docs/writing-a-strategy.md. Host-only (no CUDA headers).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/config_errors.hpp"
#include "io/json_fields.hpp"
#include "strategies/exact_grid.hpp"
#include "strategies/export.hpp"
#include "strategies/params.hpp"
#include "strategies/strategy.hpp"

namespace CLI {
class App;
}
struct CUstream_st;  // cudaStream_t is CUstream_st*: the registry names it without CUDA headers
namespace tpeopt::gpu {
class DeviceStrategy;
}

/// Names a device-side function in a registration: the function itself in a build with
/// CUDA, null in a CPU-only build (where the strategy's .cu files are not compiled), so a
/// registration needs no conditional code of its own. TPEOPT_WITH_CUDA is defined for
/// every target that links the device glue (gpu/CMakeLists.txt), the strategies included.
#if defined(TPEOPT_WITH_CUDA)
#define TPEOPT_DEVICE(function) (function)
#else
#define TPEOPT_DEVICE(function) nullptr
#endif

namespace tpeopt::strategies {

/// The config's `objective` as written (config/study_config.cpp checks its shape; the strategy
/// checks the names and picks its defaults).
struct ObjectiveInput {
  std::string name;  ///< the strategy's default objective when the config has none
  bool maximize = true;
  std::int64_t min_trades = 0;
  bool min_trades_set = false;
  std::string aggregate;  ///< "" when not set
};

/// A strategy's own part of a study config (its `data` object, its objective and any root
/// keys of its own), parsed and validated when the config is loaded, so that every error
/// names its key before anything runs. Each strategy derives its own typed struct.
class StrategySettings {
 public:
  virtual ~StrategySettings() = default;
  /// The `data` object as the resolved config writes it (empty: the strategy reads no data).
  virtual io::Json data_json() const { return io::Json::object(); }
  /// Root keys of the strategy's own, as the resolved config writes them.
  virtual io::Json root_json() const { return io::Json::object(); }
  /// A few words for titles ("rastrigin"); empty when the strategy's name says it all.
  virtual std::string label() const { return {}; }
  /// Keys of `objective` of the strategy's own (StrategyEntry::objective_keys), as the
  /// resolved config writes them.
  virtual io::Json objective_json() const { return io::Json::object(); }
};

/// The settings a strategy's own parser made (a checked downcast: the registry only hands a
/// strategy the settings its parser returned).
template <typename T>
const T& settings_as(const StrategySettings& s) {
  const T* t = dynamic_cast<const T*>(&s);
  if (!t) throw std::logic_error("strategy settings of another strategy");
  return *t;
}

/// What a strategy's config parser reads.
struct SettingsInput {
  const io::JsonFields& root;  ///< the whole config, for root keys of the strategy's own
  /// `data` without holdout and walk_forward; null when the strategy reads none, or when it
  /// is missing or not an object (that error is recorded already)
  const io::Json* data;
  const ObjectiveInput& objective;  ///< as written, with the strategy's default name filled in
  /// The config's errors: a parser checks the parts that do not depend on each other each in
  /// its own `errors.check` (the data, each objective key), so that the loader reports them
  /// all at once. An error it throws is recorded too (the rest of its part goes unchecked).
  io::ConfigErrors& errors;
};

/// What a host factory gets besides its settings.
struct BuildContext {
  std::filesystem::path base_dir;  ///< relative data paths resolve against it (the config's folder)
  std::ostream* log = nullptr;     ///< messages while data is prepared (null: none)
};

// ---- optional capabilities ---------------------------------------------------------------

/// The trades of one trial, for `tpeopt backtest --trades-out`.
struct TradeExport {
  std::vector<std::string>
      columns;  ///< the fields' names, in order (one of them "return": the trade's return, a fraction)
  std::string count_metric = "trades";  ///< the metric that counts a trial's trades
  /// The CPU reference.
  std::function<ExportedTrades(const Strategy&, const double* params)> cpu;
  /// The same trades computed on CUDA device 0 (TPEOPT_DEVICE: null without CUDA).
  ExportedTrades (*device)(const Strategy&, const double* params, int block_size) = nullptr;
  bool available() const { return static_cast<bool>(cpu); }
};

/// Per-symbol results computed on the GPU, for `tpeopt backtest --executor cuda` (the CPU
/// side is SymbolStrategy::evaluate_symbols).
struct SymbolExport {
  SymbolResults (*device)(const Strategy&, const double* params, int block_size) = nullptr;
};

/// Samples of a strategy's config over the repository's bundled data, for the conformance
/// harness (tests/strategies/test_conformance.cpp) and examples.
struct SampleData {
  std::filesystem::path candles_csv;  ///< one real series (data/backtesting-py/EURUSD.csv)
  std::filesystem::path candles_dir;  ///< several real symbols of different spans (a folder of CSVs)
  std::filesystem::path scratch;      ///< a folder the sample may write generated data to
};
struct Sample {
  std::string label;  ///< e.g. "one series", "three symbols"
  /// The strategy's part of a config (`data`, root keys of its own, maybe `objective` and
  /// `params`); without `params` the harness draws every slot from its typical range.
  io::Json config;
};

// ---- the registration --------------------------------------------------------------------

using DeviceFactory = std::unique_ptr<gpu::DeviceStrategy> (*)(const Strategy&, CUstream_st* stream);

struct StrategyEntry {
  std::string name;     ///< the config's "strategy"
  std::string summary;  ///< one line: what it trades and how
  /// The parameter slots; empty, with params_from_config set, for a strategy whose slots are
  /// the config's parameters (each any finite number, in the order written).
  ParamList params;
  bool params_from_config = false;
  /// Root keys of the strategy's own besides the common ones ("function").
  std::vector<std::string> root_keys;
  /// Keys of `objective` of the strategy's own besides the common ones (name, direction,
  /// min_trades, aggregate); its parser reads them from the root's `objective`.
  std::vector<std::string> objective_keys;
  bool reads_data = true;  ///< the config must (true) or must not (false) have `data`
  std::string default_objective = "total_return";
  bool default_maximize = true;
  bool symbols = false;  ///< may read several symbols: objective.aggregate applies
  bool subsets = false;  ///< declares data subsets (Strategy::n_atoms() > 0): hold-out, walk-forward, halving

  /// Parses and validates the strategy's part of a config; errors name the key and go to
  /// SettingsInput::errors (the settings returned are used only when there are none).
  std::function<std::shared_ptr<const StrategySettings>(const SettingsInput&)> parse;
  /// Loads the data and builds the host strategy (the CPU reference).
  std::function<std::unique_ptr<Strategy>(const StrategySettings&, const BuildContext&)> make;
  /// Builds the device twin of a strategy `make` built (TPEOPT_DEVICE: null without CUDA).
  DeviceFactory make_device = nullptr;

  /// Non-empty for a strategy whose trials tpeopt's executors cannot score: a function the
  /// caller hands over scores them (a Python function: RunOptions::external_executor). The
  /// words say where such a study runs; every command that would evaluate its trials
  /// refuses it with them, before anything is written. Such a strategy has no device twin,
  /// no capability below and no samples: the conformance harness evaluates every strategy's
  /// trials with tpeopt's own executors, which cannot score these.
  std::string scored_by_caller;

  TradeExport trades;
  SymbolExport symbol_results;
  ExactGrid exact_grid;
  /// Adds subcommands of `tpeopt data` (null: none).
  void (*add_data_commands)(CLI::App& data, int& exit_code) = nullptr;
  std::vector<Sample> (*samples)(const SampleData&) = nullptr;
};

class Registry {
 public:
  /// Throws std::logic_error when the name is taken or the entry misses parse or make.
  void add(StrategyEntry entry);
  /// The entry named `name`, or null.
  const StrategyEntry* find(std::string_view name) const;
  /// Throws tpeopt::Error "strategy: \"x\" is not one of: a, b, ..." for an unknown name.
  const StrategyEntry& at(std::string_view name) const;
  const std::vector<StrategyEntry>& entries() const { return entries_; }
  std::vector<std::string> names() const;

 private:
  std::vector<StrategyEntry> entries_;
};

/// Every strategy of this build, in the order of strategies/CMakeLists.txt (built on first use;
/// thread-safe).
const Registry& registry();

/// Registers every strategy of strategies/CMakeLists.txt's list (generated by CMake).
void register_strategies(Registry& registry);

// ---- helpers for parsers -----------------------------------------------------------------

/// min_trades from the config, else `fallback`, capped at 2^30 (the kernels count in int).
int min_trades_or(const ObjectiveInput& objective, int fallback);

}  // namespace tpeopt::strategies
