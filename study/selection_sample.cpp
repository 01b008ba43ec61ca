#include "study/selection_sample.hpp"

#include <algorithm>
#include <unordered_set>

#include <boost/random/uniform_int_distribution.hpp>

#include "engine/trial_ranking.hpp"
#include "tpe/recent_rows.hpp"

namespace tpeopt::engine {

namespace {
bool before(const SampledTrial& a, const SampledTrial& b, tpe::Direction d) {
  return ranks_before({a.trial, a.score, a.violation}, {b.trial, b.score, b.violation}, d);
}
}  // namespace

SelectionSample::SelectionSample(std::size_t top, std::size_t sample, std::uint64_t seed, tpe::Direction direction,
                                 BatchObserver* next)
    : top_n_(top), sample_n_(sample), rng_(tpe::trial_stream_seed(seed, 0, /*purpose: selection sample*/ 0x73656c)),
      direction_(direction), next_(next) {}

void SelectionSample::on_batch(const BatchRequest& request, const BatchResult& result, const BatchTimings& timings) {
  if (next_) next_->on_batch(request, result, timings);
  const auto heap_order = [this](const SampledTrial& a, const SampledTrial& b) { return before(a, b, direction_); };
  for (std::size_t i = 0; i < request.n_trials; ++i) {
    SampledTrial t;
    t.trial = request.first_trial + i;
    t.params.assign(request.values.begin() + static_cast<std::ptrdiff_t>(i * request.n_axes),
                    request.values.begin() + static_cast<std::ptrdiff_t>((i + 1) * request.n_axes));
    t.score = result.scores[i];
    t.violation = result.violations[i];
    ++told_;
    // Two different parameter sets share a key with a probability of about N^2 / 2^65 (1e-9
    // at 200,000 trials), which would drop one of them.
    if (!distinct_.insert(tpe::row_key(t.params.data(), t.params.size())).second) continue;
    ++seen_;
    // Algorithm R: trial number seen_ replaces a reservoir entry with probability sample_n / seen_.
    if (reservoir_.size() < sample_n_) {
      reservoir_.push_back(t);
    } else if (sample_n_ > 0) {
      boost::random::uniform_int_distribution<std::uint64_t> pick(0, seen_ - 1);
      const std::uint64_t j = pick(rng_);
      if (j < sample_n_) reservoir_[j] = t;
    }
    if (top_n_ == 0) continue;
    if (top_.size() < top_n_) {
      top_.push_back(std::move(t));
      std::push_heap(top_.begin(), top_.end(), heap_order);
    } else if (before(t, top_.front(), direction_)) {
      std::pop_heap(top_.begin(), top_.end(), heap_order);
      top_.back() = std::move(t);
      std::push_heap(top_.begin(), top_.end(), heap_order);
    }
  }
}

std::vector<SampledTrial> SelectionSample::top() const {
  std::vector<SampledTrial> out = top_;
  std::sort(out.begin(), out.end(),
            [this](const SampledTrial& a, const SampledTrial& b) { return before(a, b, direction_); });
  return out;
}

std::vector<SampledTrial> SelectionSample::rest() const {
  std::unordered_set<std::uint64_t> in_top;
  for (const auto& t : top_) in_top.insert(t.trial);
  std::vector<SampledTrial> out;
  for (const auto& t : reservoir_)
    if (!in_top.count(t.trial)) out.push_back(t);
  std::sort(out.begin(), out.end(), [](const SampledTrial& a, const SampledTrial& b) { return a.trial < b.trial; });
  return out;
}

}  // namespace tpeopt::engine
