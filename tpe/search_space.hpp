#pragma once
// tpe/: search spaces and the samplers that propose trials over them (random, TPE, grid, GA).
// Knows nothing of strategies, threads beyond an optional worker pool, or CUDA.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tpe/trial_outcome.hpp"  // for TrialOutcome and Direction, which samplers take with their space

namespace tpeopt::tpe {

/// One searched parameter (an axis of the space).
///
/// Values handed to executors are always "external" doubles:
///  - Float/Int: the value itself (ints are exact integers stored in a double);
///  - Categorical with numeric choices: the chosen number;
///  - Categorical with string labels: the index of the chosen label.
struct Axis {
  enum class Kind { Float, Int, Categorical };

  std::string name;
  Kind kind = Kind::Float;
  double low = 0.0;                        ///< Float/Int: inclusive lower bound
  double high = 0.0;                       ///< Float/Int: inclusive upper bound
  double step = 0.0;                       ///< Float/Int: 0 means continuous (Int defaults to 1)
  bool log = false;                        ///< Float/Int: sampled and modelled in log space (low > 0, no step)
  std::vector<double> choices;             ///< Categorical: the numeric value of each choice
  std::vector<std::string> choice_labels;  ///< Categorical: labels when choices are strings (else empty)

  std::size_t n_choices() const { return choices.size(); }
  bool is_numeric() const { return kind != Kind::Categorical; }
  /// Number of grid points of a stepped range (Int or Float with step), else 0.
  std::uint64_t n_steps() const;
  /// Snaps x to this axis' domain: rounds to the step grid, clamps to [low, high].
  double snap(double x) const;
  /// The external value of categorical choice i.
  double choice_value(std::size_t i) const { return choices.at(i); }
  /// Index of external value v among the choices (exact match), or npos.
  std::size_t choice_index(double v) const;
  /// Whether v is a value the axis can take (in range, on its grid, an integer, one of the
  /// choices): what sampling it can give.
  bool contains(double v) const { return is_numeric() ? snap(v) == v : choice_index(v) != npos; }
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);
};

/// The ordered list of axes; parameter matrices have one column per axis in this order.
struct SearchSpace {
  std::vector<Axis> axes;

  std::size_t size() const { return axes.size(); }
  /// Index of the axis called name, or Axis::npos.
  std::size_t find(const std::string& name) const;
  /// Throws tpeopt::Error naming the axis when its definition is inconsistent
  /// (low > high, log with low <= 0, step not dividing the range, empty categorical...).
  void validate() const;
  /// Throws tpeopt::Error naming the trial and the axis when a row of `values` (n rows of
  /// size() values, trials first_trial ..) holds a value its axis cannot take. `who` starts
  /// the message ("tpe sampler: adopt").
  void check_rows(const char* who, std::uint64_t first_trial, std::size_t n, const double* values) const;
};

}  // namespace tpeopt::tpe
