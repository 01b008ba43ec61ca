#include "engine/halving_executor.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "engine/trial_ranking.hpp"

namespace tpeopt::engine {

HalvingExecutor::HalvingExecutor(std::vector<std::unique_ptr<Executor>> rungs, std::uint64_t eta,
                                 tpe::Direction direction, KeepAlive keep_alive)
    : keep_alive_(std::move(keep_alive)), rungs_(std::move(rungs)), eta_(eta), direction_(direction) {
  TPEOPT_ASSERT(!rungs_.empty() && rungs_.size() <= 63, "halving: 1 to 63 rungs");
  TPEOPT_ASSERT(eta_ >= 2, "halving: eta must be at least 2");
}

HalvingExecutor::~HalvingExecutor() {
  rungs_.clear();  // the executors before the strategies they read
}

BatchResult HalvingExecutor::evaluate(const BatchRequest& request) {
  const std::size_t n = request.n_trials, d = request.n_axes;
  BatchResult out;
  out.batch_index = request.batch_index;
  out.first_trial = request.first_trial;
  out.n_trials = n;
  out.scores.assign(n, NAN);
  out.violations.assign(n, 0.0);
  out.rung.assign(n, 0);
  out.n_rungs = static_cast<std::int32_t>(rungs_.size());
  out.timings.begin = Clock::now();

  std::vector<std::size_t> alive(n);
  for (std::size_t i = 0; i < n; ++i) alive[i] = i;
  bool have_metrics = false;
  for (std::size_t r = 0; r < rungs_.size() && !alive.empty(); ++r) {
    BatchRequest sub;
    sub.batch_index = request.batch_index;
    sub.first_trial = request.first_trial;
    sub.n_trials = alive.size();
    sub.n_axes = d;
    sub.values.resize(alive.size() * d);
    for (std::size_t j = 0; j < alive.size(); ++j)
      std::copy_n(request.values.begin() + static_cast<std::ptrdiff_t>(alive[j] * d), d,
                  sub.values.begin() + static_cast<std::ptrdiff_t>(j * d));
    rungs_[r]->submit(std::move(sub));
    BatchResult res = rungs_[r]->complete();
    TPEOPT_ASSERT(res.n_trials == alive.size(), "halving: a rung returned another number of trials");
    if (!have_metrics) {
      out.n_metrics = res.n_metrics;
      out.metrics.assign(n * res.n_metrics, NAN);
      have_metrics = true;
    }
    if (r == 0) out.timings.begin = res.timings.begin;
    out.timings.end = res.timings.end;
    out.timings.busy_ms += res.timings.busy_ms;
    out.timings.sm_busy_ms += res.timings.sm_busy_ms;
    out.timings.sm_span_ms += res.timings.sm_span_ms;
    out.timings.sm_new_span_ms += res.timings.sm_new_span_ms;
    out.timings.sm_union_busy_ms += res.timings.sm_union_busy_ms;
    for (std::size_t j = 0; j < alive.size(); ++j) {
      const std::size_t i = alive[j];
      out.scores[i] = res.scores[j];
      out.violations[i] = res.violations[j];
      out.rung[i] = static_cast<std::int32_t>(r);
      std::copy_n(res.metrics.begin() + static_cast<std::ptrdiff_t>(j * out.n_metrics), out.n_metrics,
                  out.metrics.begin() + static_cast<std::ptrdiff_t>(i * out.n_metrics));
    }
    if (r + 1 == rungs_.size()) break;
    // The best ceil(n / eta) go on, back in trial order.
    const std::size_t keep = (alive.size() + eta_ - 1) / eta_;
    auto key = [&](std::size_t i) { return RankKey{request.first_trial + i, out.scores[i], out.violations[i]}; };
    std::sort(alive.begin(), alive.end(),
              [&](std::size_t a, std::size_t b) { return ranks_before(key(a), key(b), direction_); });
    alive.resize(keep);
    std::sort(alive.begin(), alive.end());
  }
  if (n == 0) out.timings.end = out.timings.begin;
  return out;
}

}  // namespace tpeopt::engine
