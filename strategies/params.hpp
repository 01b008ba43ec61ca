#pragma once
// A strategy's parameters as data: each slot's name, default, domain (the values the
// strategy accepts) and a typical range. The registry (strategies/registry.hpp) holds one
// list per strategy; the config loader refuses a range outside the domain, naming the key,
// the engine fills defaults from it, and the conformance harness draws random trials from
// the typical ranges. Host-only.
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tpeopt::io {
class ConfigErrors;
}

namespace tpeopt::strategies {

/// The values one parameter slot accepts: finite numbers in [low, high], either end open
/// when marked so, and (optionally) an extra test of the whole range (e.g. that a value
/// keeps its sign as float32). `rule` says it in words for errors: "must be an integer >= 1 (and < 1e8)".
struct Domain {
  double low = -HUGE_VAL, high = HUGE_VAL;
  bool low_open = false, high_open = false;
  /// An extra condition on a range [lo, hi] (both ends inside the interval); null = none.
  bool (*extra)(double lo, double hi) = nullptr;
  const char* rule = "must be a finite number";

  /// Whether every value of [lo, hi] is accepted (a range is accepted when both ends are).
  bool accepts(double lo, double hi) const;
  /// A value just outside the domain, below it or above it (NaN when that side is open-ended:
  /// -inf / +inf are refused by the finiteness rule, not by the interval).
  double just_below() const;
  double just_above() const;
  /// The interval in words for errors: "[0, 100)", "(0, inf)"; for an integer slot the
  /// integers it accepts, "[1, 99999999]".
  std::string interval_text(bool integer) const;
};

/// [low, high] (closed ends by default): the helpers name each end's openness.
Domain any_finite();
Domain at_least(double low, const char* rule);
Domain above(double low, const char* rule);
/// [low, high) / [low, high] / (low, high]. An interval open at both ends, (low, high), has no
/// helper: write `Domain{low, high, true, true, nullptr, rule}`.
Domain closed_open(double low, double high, const char* rule);
Domain closed(double low, double high, const char* rule);
Domain open_closed(double low, double high, const char* rule);

/// One parameter slot.
struct ParamSpec {
  std::string name;
  double fallback = NAN;  ///< used when the config leaves the slot out; NaN = required
  Domain domain;
  /// The strategy rounds the value to an integer (floor(v + 0.5)); the harness draws integers.
  bool integer = false;
  /// A typical range inside the domain: examples use it and the conformance harness draws
  /// random trials from it (tests/strategies/test_conformance.cpp).
  double typical_low = 0.0, typical_high = 0.0;
};

/// A strategy's slots, in the order of its parameter vector.
class ParamList {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  ParamList() = default;
  explicit ParamList(std::vector<ParamSpec> specs);

  std::size_t size() const { return specs_.size(); }
  const std::vector<ParamSpec>& specs() const { return specs_; }
  const ParamSpec& operator[](std::size_t slot) const { return specs_[slot]; }
  const std::vector<std::string>& names() const { return names_; }
  /// Each slot's fallback (NaN = required).
  std::vector<double> defaults() const;
  /// The slot named `name`, or npos.
  std::size_t find(std::string_view name) const;
  /// Throws tpeopt::Error naming params.<name> (and .low / .high for a range) when the slot's
  /// domain does not accept every value of [lo, hi] (an integer slot's as it rounds them).
  void check(std::size_t slot, double lo, double hi) const;

 private:
  std::vector<ParamSpec> specs_;
  std::vector<std::string> names_;
};

/// One value a config writes for a parameter, with the key that writes it: an end of a
/// range ("params.ema_fast.low"), a listed value ("params.x.values[2]") or a fixed number
/// ("params.fee_bp").
struct GivenValue {
  std::string key;
  double value = 0.0;
};

/// A parameter as a config gives it: its name, the range of values a sampler can propose
/// for it (samplers propose only values in [low, high]: the ends of a range, stepped or
/// not, log or not, or the listed values; a single value when it is fixed), and the values
/// written. A parameter whose definition was refused already has no values: it counts as
/// given, and its domain is not checked.
struct GivenParam {
  std::string name;
  double low = 0.0, high = 0.0;
  std::vector<GivenValue> values;
};

/// Checks a config's parameters against a strategy's slots and records every error in
/// `errors`, each naming its key: a name that is not a slot (params.<name>), a value outside
/// its slot's domain (params.<name>.low: "0 is below ema_fast's domain [1, 99999999]: ..."; an
/// integer slot's values as the strategy rounds them), and in one message the slots without
/// a default that are not given ("params: missing ...").
void check_given_params(const ParamList& slots, const std::vector<GivenParam>& given, const std::string& strategy,
                        io::ConfigErrors& errors);
/// The same, throwing one tpeopt::Error with every error found.
void check_given_params(const ParamList& slots, const std::vector<GivenParam>& given, const std::string& strategy);

}  // namespace tpeopt::strategies
