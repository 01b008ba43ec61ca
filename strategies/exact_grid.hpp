#pragma once
// The "exact grid" capability of the registry (strategies/registry.hpp): a strategy that can
// score every combination of a grid faster than trial by trial (a trade log's cell method)
// provides a searcher; `tpeopt grid` then runs it segment by segment in a resumable run
// directory (storage/grid_run.hpp). Everything here is the strategy-independent shape of such
// a search: the grid over parameter slots, the settings, and the top K it returns. Host-only.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/json_fields.hpp"

namespace tpeopt::strategies {

class Strategy;

/// A grid over a strategy's parameter slots: slot s takes values[s] (one value when the
/// slot is fixed); combination c gives slot s its value (c / stride[s]) % values[s].size().
/// The combination order is tpe/grid_sampler.hpp's (the config's axes, last one fastest).
struct SlotGrid {
  std::vector<std::vector<double>> values;
  std::vector<std::uint64_t> stride;
  std::uint64_t size() const;
  /// The parameter slots of combination `combination` (values.size() of them).
  void slots_of(std::uint64_t combination, double* slots) const;
};

struct GridSearchSettings {
  std::size_t top_k = 10;
  std::int64_t min_trades = 1;
  bool maximize = true;
  std::size_t memory_budget = std::size_t{1} << 30;  ///< bytes for the searcher's tables
  unsigned threads = 0;                              ///< CPU worker threads (0 = all)
};

/// One combination of a top K: its rank key (smaller is better; ties go to the lower
/// combination) and the strategy's exact totals (ExactGrid::exact_words integers), which
/// the grid journal records and the grid's digest covers.
struct GridEntry {
  std::uint64_t key = 0, combination = 0;
  std::vector<std::int64_t> exact;
};

struct GridTop {
  std::vector<GridEntry> entries;  ///< best first
  const char* method = "";         ///< the searcher's words for how it searched
};

/// Searches grids over one strategy's data (which it may upload once).
class GridSearcher {
 public:
  virtual ~GridSearcher() = default;
  virtual GridTop search(const SlotGrid& grid, const GridSearchSettings& settings) = 0;
};

/// What a hit's exact totals mean.
struct GridScore {
  double score = 0.0, violation = 0.0;
  io::Json metrics = io::Json::object();  ///< name -> value, in the strategy's order
};

struct ExactGrid {
  std::size_t exact_words = 0;
  std::unique_ptr<GridSearcher> (*cpu)(const Strategy&) = nullptr;
  std::unique_ptr<GridSearcher> (*device)(const Strategy&) = nullptr;  ///< TPEOPT_DEVICE: null without CUDA
  GridScore (*score)(const std::int64_t* exact, std::int64_t min_trades) = nullptr;
  /// What the search runs over, for the log line ("100000 trades").
  std::string (*data_summary)(const Strategy&) = nullptr;
  bool available() const { return cpu != nullptr; }
};

}  // namespace tpeopt::strategies
