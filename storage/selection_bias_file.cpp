#include "storage/selection_bias_file.hpp"

#include <cmath>

#include "common/atomic_file.hpp"

namespace tpeopt::engine {

namespace {
io::Json number(double x) { return std::isfinite(x) ? io::Json(x) : io::Json(nullptr); }

io::Json numbers(const std::vector<double>& xs) {
  io::Json a = io::Json::array();
  for (double x : xs) a.push_back(number(x));
  return a;
}
}  // namespace

io::Json selection_bias_summary(const SelectionBias& s) {
  io::Json j = {{"available", s.unavailable.empty()},
                {"verdict", s.verdict},
                {"trials", s.n_trials},
                {"trials_told", s.n_told},
                {"seconds", s.seconds}};
  if (!s.unavailable.empty()) {
    j["why_not"] = s.unavailable;
    return j;
  }
  j["top"] = s.top;
  j["sample"] = s.sample;
  j["sub_periods"] = s.sub_periods;
  j["in_sample"] = s.in_sample_atoms;
  j["unit"] = s.unit;
  j["best_trial"] = s.best_trial;
  j["sharpe"] = "per observation (each return the strategy's Sharpe ratio counts), not annualized; mean / sample sd";
  if (s.dsr) {
    const auto& d = *s.dsr;
    j["dsr"] = {{"dsr", number(d.dsr)},
                {"method",
                 "standardized: each trial's t statistic SR sqrt(T) mapped to a normal z through Student's t"},
                {"sharpe", number(d.sharpe)},
                {"observations", d.n_observations},
                {"z", number(d.z)},
                {"expected_max_z", number(d.expected_max_z)},
                {"z_variance", number(d.sharpe_variance)},
                {"null_z_variance", number(d.null_z_variance)},
                {"expected_max_sharpe", number(d.expected_max_sharpe)},
                {"n_trials", d.n_trials},
                {"variance_from", s.variance_from},
                {"skewness", number(d.skewness)},
                {"kurtosis", number(d.kurtosis)},
                {"moments_from", s.higher_moments_from}};
  } else {
    j["dsr"] = nullptr;
  }
  if (s.dsr_paper) {
    const auto& d = *s.dsr_paper;
    j["dsr_paper"] = {{"dsr", number(d.dsr)},
                      {"expected_max_sharpe", number(d.expected_max_sharpe)},
                      {"sharpe_variance", number(d.sharpe_variance)}};
  } else {
    j["dsr_paper"] = nullptr;
  }
  if (s.cscv) {
    const auto& c = *s.cscv;
    std::size_t overfit = 0;
    for (double l : c.logits) overfit += !(l > 0.0);
    j["pbo"] = {{"pbo", c.pbo},
                {"splits", c.in_sample_sets.size()},
                {"all_splits", c.all_splits},
                {"sampled", c.sampled},
                {"overfit_splits", overfit},
                {"trials", c.n_trials},
                {"probability_of_loss", c.probability_of_loss},
                {"degradation_slope", number(c.degradation_slope)},
                {"degradation_intercept", number(c.degradation_intercept)}};
  }
  return j;
}

void write_selection_bias(const std::filesystem::path& dir, const SelectionBias& s) {
  io::Json j = {{"summary", selection_bias_summary(s)}};
  if (s.cscv) {
    const auto& c = *s.cscv;
    io::Json sets = io::Json::array();
    for (auto bits : c.in_sample_sets) sets.push_back(bits);
    j["splits"] = {{"in_sample_sets", sets},
                   {"in_sample_sharpe", numbers(c.in_sample_sharpe)},
                   {"out_of_sample_sharpe", numbers(c.out_of_sample_sharpe)},
                   {"relative_rank", numbers(c.relative_rank)},
                   {"logits", numbers(c.logits)}};
  }
  write_file_atomically(dir / "selection_bias.json", j.dump() + "\n", true);
}

}  // namespace tpeopt::engine
