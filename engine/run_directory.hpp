#pragma once
// A run's own directory (DESIGN.md section 7): the resolved config, trials.csv,
// timings.csv and top.json.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/pipeline.hpp"
#include "engine/study_result.hpp"
#include "io/study_config.hpp"

namespace tpeopt::engine {

/// Default run directory: runs/YYYYmmdd-HHMMSS-<strategy> under the current directory.
std::filesystem::path default_run_dir(const io::StudyConfig& config);

/// Streams told batches into the run directory. Created before the run; `dir` must
/// not exist or be empty.
class RunDirectoryWriter final : public BatchObserver {
 public:
  RunDirectoryWriter(std::filesystem::path dir, const io::StudyConfig& config, std::vector<std::string> metric_names,
                     const std::string& executor);
  ~RunDirectoryWriter() override;

  void on_batch(const BatchRequest& request, const BatchResult& result, const BatchTimings& timings) override;
  /// Writes top.json and a summary once the run is over.
  void finish(const StudyResult& result, const PipelineSummary& summary);

  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  const io::StudyConfig& config_;
  std::vector<std::string> metric_names_;
  std::FILE* trials_ = nullptr;
  std::FILE* timings_ = nullptr;
  Clock::time_point origin_{};
  bool have_origin_ = false;
};

/// top.json's shape: [{"rank", "trial", "params", "score", "violation", "metrics"}, ...]
io::Json top_to_json(const StudyResult& result, const io::StudyConfig& config,
                     const std::vector<std::string>& metric_names);

/// A parameter value as written in outputs: the label for string categoricals, else the number.
io::Json param_value_json(const tpe::Axis& axis, double value);

}  // namespace tpeopt::engine
