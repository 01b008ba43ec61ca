#include "support/trial_order.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/bits.hpp"

namespace tpeopt::testing {

engine::BatchRequest reversed(const engine::BatchRequest& batch) {
  engine::BatchRequest r = batch;
  for (std::size_t i = 0; i < batch.n_trials; ++i) {
    const std::size_t from = (batch.n_trials - 1 - i) * batch.n_axes;
    std::copy_n(batch.values.begin() + static_cast<std::ptrdiff_t>(from), batch.n_axes,
                r.values.begin() + static_cast<std::ptrdiff_t>(i * batch.n_axes));
  }
  return r;
}

engine::BatchRequest one_trial(const engine::BatchRequest& batch, std::size_t i) {
  engine::BatchRequest r = batch;
  r.first_trial = batch.first_trial + i;
  r.n_trials = 1;
  const auto begin = batch.values.begin() + static_cast<std::ptrdiff_t>(i * batch.n_axes);
  r.values.assign(begin, begin + static_cast<std::ptrdiff_t>(batch.n_axes));
  if (r.values.empty()) r.values.resize(1);  // a space without axes still passes one value
  return r;
}

std::string order_difference(const engine::BatchResult& ref, const engine::BatchResult& got,
                             const std::vector<std::size_t>& order, const std::string& what) {
  if (got.n_trials != order.size() || got.n_metrics != ref.n_metrics)
    return fmt::format("{}: {} trials of {} metrics, expected {} of {}", what, got.n_trials, got.n_metrics,
                       order.size(), ref.n_metrics);
  const std::size_t M = ref.n_metrics;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::size_t i = order[k];
    const std::vector<double> a(ref.metrics.begin() + static_cast<std::ptrdiff_t>(i * M),
                                ref.metrics.begin() + static_cast<std::ptrdiff_t>((i + 1) * M));
    const std::vector<double> b(got.metrics.begin() + static_cast<std::ptrdiff_t>(k * M),
                                got.metrics.begin() + static_cast<std::ptrdiff_t>((k + 1) * M));
    if (same_bits(ref.scores[i], got.scores[k]) && same_bits(ref.violations[i], got.violations[k]) && same_bits(a, b))
      continue;
    return fmt::format(
        "{}: trial {} differs from the same trial in the reference batch: score {} vs {}, violation {} vs {}, "
        "metrics [{}] vs [{}]",
        what, i, got.scores[k], ref.scores[i], got.violations[k], ref.violations[i], fmt::join(b, ", "),
        fmt::join(a, ", "));
  }
  return "";
}

std::vector<std::size_t> forward_order(std::size_t n) {
  std::vector<std::size_t> o(n);
  for (std::size_t i = 0; i < n; ++i) o[i] = i;
  return o;
}

std::vector<std::size_t> reverse_order(std::size_t n) {
  std::vector<std::size_t> o(n);
  for (std::size_t i = 0; i < n; ++i) o[i] = n - 1 - i;
  return o;
}

}  // namespace tpeopt::testing
