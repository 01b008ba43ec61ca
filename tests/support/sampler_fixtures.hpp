#pragma once
// Helpers shared by the sampler tests: axes, a space with every kind of axis and an objective
// over it, the pipeline's ask/tell schedule, domain checks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "tpe/sampler.hpp"
#include "tpe/search_space.hpp"

namespace tpeopt::testing {

using tpe::Axis;
using tpe::SearchSpace;
using tpe::TrialOutcome;

inline Axis float_axis(const char* name, double low, double high, double step = 0.0, bool log = false) {
  Axis a;
  a.name = name;
  a.low = low;
  a.high = high;
  a.step = step;
  a.log = log;
  return a;
}

inline Axis int_axis(const char* name, double low, double high, double step = 1.0, bool log = false) {
  Axis a = float_axis(name, low, high, step, log);
  a.kind = Axis::Kind::Int;
  return a;
}

inline Axis categorical_axis(const char* name, std::vector<double> choices) {
  Axis a;
  a.name = name;
  a.kind = Axis::Kind::Categorical;
  a.choices = std::move(choices);
  return a;
}

// Every kind of axis, including two with a single value (they must never move).
inline SearchSpace mixed_space() {
  SearchSpace s;
  s.axes = {float_axis("x", -5.0, 5.0),        int_axis("n", -3, 12),
            float_axis("s", 0.0, 10.0, 0.5),   float_axis("lr", 1e-4, 1.0, 0.0, true),
            int_axis("k", 1, 1000, 1.0, true), categorical_axis("c", {10.0, 20.0, 30.0, 40.0}),
            int_axis("m", 0, 30, 3),           float_axis("fixed", 2.5, 2.5),
            categorical_axis("one", {7.0}),    int_axis("bit", 0, 1)};
  return s;
}

// A deterministic objective over mixed_space() rows (minimize) with failed and infeasible trials.
inline TrialOutcome mixed_objective(const double* p, std::uint64_t trial) {
  TrialOutcome o;
  o.score = (p[0] - 1.0) * (p[0] - 1.0) + 0.1 * std::fabs(p[1] - 4) + 0.2 * std::fabs(p[2] - 7.5) +
            std::fabs(std::log10(p[3]) + 2.0) + 0.3 * std::fabs(std::log10(p[4]) - 1.5) + (p[5] == 30.0 ? 0.0 : 1.0) +
            0.05 * std::fabs(p[6] - 12) + p[9];
  if (trial % 13 == 5) o.score = std::numeric_limits<double>::quiet_NaN();
  if (p[0] > 3.5) o.violation = p[0] - 3.5;
  return o;
}

// Drives a sampler through the pipeline's schedule (docs/design.md, "Pipeline protocol") with `depth` blocks
// in flight; after every tell, `after_tell(trials told so far)` runs. Returns all parameters.
template <typename Objective, typename AfterTell>
std::vector<double> run_schedule(tpe::Sampler& sampler, std::size_t d, std::size_t n_trials, std::size_t batch,
                                 std::size_t depth, Objective objective, AfterTell after_tell) {
  std::vector<double> params(n_trials * d);
  const std::size_t n_blocks = (n_trials + batch - 1) / batch;
  auto block_size = [&](std::size_t k) { return std::min(batch, n_trials - k * batch); };
  auto ask = [&](std::size_t k) { sampler.ask(k * batch, block_size(k), &params[k * batch * d]); };
  for (std::size_t k = 0; k < std::min(depth, n_blocks); ++k) ask(k);
  std::vector<TrialOutcome> outcomes;
  for (std::size_t k = 0; k < n_blocks; ++k) {
    outcomes.resize(block_size(k));
    for (std::size_t i = 0; i < outcomes.size(); ++i)
      outcomes[i] = objective(&params[(k * batch + i) * d], k * batch + i);
    sampler.tell(k * batch, outcomes);
    after_tell(k * batch + outcomes.size());
    if (k + depth < n_blocks) ask(k + depth);
  }
  return params;
}

template <typename Objective>
std::vector<double> run_schedule(tpe::Sampler& sampler, std::size_t d, std::size_t n_trials, std::size_t batch,
                                 std::size_t depth, Objective objective) {
  return run_schedule(sampler, d, n_trials, batch, depth, objective, [](std::size_t) {});
}

// The same schedule as a resumed run drives it: the first `adopted` blocks are adopted from
// `journal` (the uninterrupted run's parameters, as a journal replays them), the rest asked.
// Full blocks only (n_trials a multiple of batch). Returns all parameters.
template <typename Objective>
std::vector<double> run_resumed_schedule(tpe::Sampler& sampler, const std::vector<double>& journal, std::size_t d,
                                         std::size_t n_trials, std::size_t batch, std::size_t depth,
                                         std::size_t adopted, Objective objective) {
  std::vector<double> params(n_trials * d);
  const std::size_t n_blocks = n_trials / batch;
  auto issue = [&](std::size_t k) {
    double* block = &params[k * batch * d];
    if (k < adopted) {
      std::copy(&journal[k * batch * d], &journal[(k + 1) * batch * d], block);
      sampler.adopt(k * batch, batch, block);
    } else {
      sampler.ask(k * batch, batch, block);
    }
  };
  for (std::size_t k = 0; k < std::min(depth, n_blocks); ++k) issue(k);
  std::vector<TrialOutcome> outcomes(batch);
  for (std::size_t k = 0; k < n_blocks; ++k) {
    for (std::size_t i = 0; i < batch; ++i) outcomes[i] = objective(&params[(k * batch + i) * d], k * batch + i);
    sampler.tell(k * batch, outcomes);
    if (k + depth < n_blocks) issue(k + depth);
  }
  return params;
}

inline bool in_domain(const Axis& axis, double v) {
  if (axis.kind == Axis::Kind::Categorical) return axis.choice_index(v) != Axis::npos;
  bool ok = v >= axis.low && v <= axis.high;
  if (axis.kind == Axis::Kind::Int) ok = ok && v == std::floor(v);
  if (axis.step > 0.0) ok = ok && axis.snap(v) == v;  // exactly a grid point, as snap writes them
  return ok;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace tpeopt::testing
