#include "tpe/search_space.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"

namespace tpeopt::tpe {

std::uint64_t Axis::n_steps() const {
  if (kind == Kind::Categorical || step <= 0.0) return 0;
  return static_cast<std::uint64_t>(std::llround((high - low) / step)) + 1;
}

double Axis::snap(double x) const {
  if (kind == Kind::Categorical) return x;
  if (step > 0.0) {
    const double k = std::round((x - low) / step);
    const double max_k = static_cast<double>(n_steps() - 1);
    x = low + std::clamp(k, 0.0, max_k) * step;
  } else if (kind == Kind::Int) {
    x = std::round(x);
  }
  return std::clamp(x, low, high);
}

std::size_t Axis::choice_index(double v) const {
  for (std::size_t i = 0; i < choices.size(); ++i)
    if (choices[i] == v) return i;
  return npos;
}

std::size_t SearchSpace::find(const std::string& name) const {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == name) return i;
  return Axis::npos;
}

void SearchSpace::validate() const {
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const Axis& a = axes[i];
    const std::string key = "params." + a.name;
    for (std::size_t j = 0; j < i; ++j)
      if (axes[j].name == a.name) throw make_error("{}: parameter defined twice", key);
    if (a.kind == Axis::Kind::Categorical) {
      if (a.choices.empty()) throw make_error("{}: a categorical parameter needs at least one choice", key);
      if (!a.choice_labels.empty() && a.choice_labels.size() != a.choices.size())
        throw make_error("{}: internal: labels and choices differ in count", key);
      continue;
    }
    if (!std::isfinite(a.low) || !std::isfinite(a.high))
      throw make_error("{}: low and high must be finite numbers", key);
    if (a.low > a.high) throw make_error("{}: low ({}) is greater than high ({})", key, a.low, a.high);
    if (a.log && a.low <= 0.0) throw make_error("{}: a log-scale range needs low > 0 (got low = {})", key, a.low);
    if (a.step < 0.0 || !std::isfinite(a.step))
      throw make_error("{}: step must be a positive number (got {})", key, a.step);
    if (a.log && a.step > 0.0 && !(a.kind == Axis::Kind::Int && a.step == 1.0))
      throw make_error("{}: log scale cannot be combined with a step", key);
    if (a.kind == Axis::Kind::Int) {
      if (a.low != std::floor(a.low) || a.high != std::floor(a.high))
        throw make_error("{}: an int parameter needs integer low and high (got {} and {})", key, a.low, a.high);
      if (a.step != std::floor(a.step) || a.step < 1.0)
        throw make_error("{}: an int parameter needs an integer step >= 1 (got {})", key, a.step);
    }
    if (a.step > 0.0) {
      const double k = (a.high - a.low) / a.step;
      if (std::fabs(k - std::round(k)) > 1e-9 * std::max(1.0, std::fabs(k)))
        throw make_error("{}: step {} does not divide the range [{}, {}] (high - low = {} steps)", key, a.step, a.low,
                         a.high, k);
    }
  }
}

void SearchSpace::check_rows(const char* who, std::uint64_t first_trial, std::size_t n, const double* values) const {
  const std::size_t d = size();
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t a = 0; a < d; ++a)
      if (!axes[a].contains(values[i * d + a]))
        throw make_error("{} of trial {}: params.{} = {} is not a value of that parameter", who, first_trial + i,
                         axes[a].name, values[i * d + a]);
}

}  // namespace tpeopt::tpe
