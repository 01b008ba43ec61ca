#include "strategies/params.hpp"

#include <algorithm>

#include <fmt/ranges.h>

#include "common/error.hpp"
#include "io/config_errors.hpp"

namespace tpeopt::strategies {

bool Domain::accepts(double lo, double hi) const {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return false;
  const bool low_ok = low_open ? lo > low : lo >= low;
  const bool high_ok = high_open ? hi < high : hi <= high;
  return low_ok && high_ok && (!extra || extra(lo, hi));
}

double Domain::just_below() const {
  if (!std::isfinite(low)) return NAN;
  return low_open ? low : std::nextafter(low, -HUGE_VAL);
}

double Domain::just_above() const {
  if (!std::isfinite(high)) return NAN;
  return high_open ? high : std::nextafter(high, HUGE_VAL);
}

namespace {

/// Numbers in messages: integers without an exponent ("100000000", not "1e+08").
std::string number_text(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  if (v == 0.0) v = 0.0;  // no "-0" (ceil(-0.5) is -0)
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{}", v);
}

/// The value an integer slot reads: floor(v + 0.5), as the strategies round.
double as_read(double v, bool integer) { return integer ? std::floor(v + 0.5) : v; }

}  // namespace

std::string Domain::interval_text(bool integer) const {
  if (!integer)
    return fmt::format("{}{}, {}{}", low_open || !std::isfinite(low) ? '(' : '[', number_text(low), number_text(high),
                       high_open || !std::isfinite(high) ? ')' : ']');
  // The integers inside: the smallest and the largest.
  double lo = std::ceil(low), hi = std::floor(high);
  if (low_open && lo == low) lo += 1.0;
  if (high_open && hi == high) hi -= 1.0;
  return fmt::format("{}{}, {}{}", std::isfinite(lo) ? '[' : '(', number_text(lo), number_text(hi),
                     std::isfinite(hi) ? ']' : ')');
}

Domain any_finite() { return Domain{}; }

Domain at_least(double low, const char* rule) { return Domain{low, HUGE_VAL, false, false, nullptr, rule}; }

Domain above(double low, const char* rule) { return Domain{low, HUGE_VAL, true, false, nullptr, rule}; }

Domain closed_open(double low, double high, const char* rule) { return Domain{low, high, false, true, nullptr, rule}; }

Domain closed(double low, double high, const char* rule) { return Domain{low, high, false, false, nullptr, rule}; }

Domain open_closed(double low, double high, const char* rule) { return Domain{low, high, true, false, nullptr, rule}; }

ParamList::ParamList(std::vector<ParamSpec> specs) : specs_(std::move(specs)) {
  for (const auto& s : specs_) {
    TPEOPT_ASSERT(find(s.name) == npos, "a strategy lists a parameter twice");
    names_.push_back(s.name);
  }
}

std::vector<double> ParamList::defaults() const {
  std::vector<double> d;
  for (const auto& s : specs_) d.push_back(s.fallback);
  return d;
}

std::size_t ParamList::find(std::string_view name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? npos : static_cast<std::size_t>(it - names_.begin());
}

namespace {

/// Records an error for each value of `g` outside the domain of its slot `spec`.
void check_values(const ParamSpec& spec, const GivenParam& g, io::ConfigErrors& errors) {
  const Domain& d = spec.domain;
  bool refused = false;
  for (const GivenValue& v : g.values) {
    const double x = as_read(v.value, spec.integer);
    const std::string shown =
        x == v.value ? number_text(v.value) : fmt::format("{} (read as {})", number_text(v.value), number_text(x));
    if (!std::isfinite(x)) {
      errors.add(fmt::format("{}: {} is not a finite number", v.key, shown));
      refused = true;
      continue;
    }
    const char* where = nullptr;
    if (d.low_open ? !(x > d.low) : !(x >= d.low)) where = "below";
    else if (d.high_open ? !(x < d.high) : !(x <= d.high)) where = "above";
    if (where) {
      errors.add(fmt::format("{}: {} is {} {}'s domain {}: {}", v.key, shown, where, spec.name,
                             d.interval_text(spec.integer), d.rule));
      refused = true;
    } else if (!d.accepts(x, x)) {
      errors.add(fmt::format("{}: {} is not a value of {}: {}", v.key, shown, spec.name, d.rule));
      refused = true;
    }
  }
  // Each value alone is accepted; a condition on the whole range (none of the strategies' has
  // one that its ends do not decide) is checked as well, so that no range slips through.
  if (!refused && !g.values.empty() && !d.accepts(as_read(g.low, spec.integer), as_read(g.high, spec.integer)))
    errors.add(fmt::format("params.{}: values in [{}, {}] are not all valid: {}", spec.name, number_text(g.low),
                           number_text(g.high), d.rule));
}

void throw_errors(const io::ConfigErrors& errors) {
  if (errors.empty()) return;
  throw Error(errors.message(""));
}

}  // namespace

void ParamList::check(std::size_t slot, double lo, double hi) const {
  const ParamSpec& s = specs_.at(slot);
  GivenParam g{s.name, lo, hi, {}};
  if (lo == hi) g.values = {{"params." + s.name, lo}};
  else g.values = {{"params." + s.name + ".low", lo}, {"params." + s.name + ".high", hi}};
  io::ConfigErrors errors;
  check_values(s, g, errors);
  throw_errors(errors);
}

void check_given_params(const ParamList& slots, const std::vector<GivenParam>& given, const std::string& strategy,
                        io::ConfigErrors& errors) {
  for (const auto& g : given) {
    const std::size_t s = slots.find(g.name);
    if (s == ParamList::npos)
      errors.add(fmt::format("params.{}: not a parameter of strategy {} (its parameters: {})", g.name, strategy,
                             fmt::join(slots.names(), ", ")));
    else check_values(slots[s], g, errors);
  }
  std::vector<std::string> missing;
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const bool is_given =
        std::any_of(given.begin(), given.end(), [&](const GivenParam& g) { return g.name == slots[s].name; });
    if (!is_given && std::isnan(slots[s].fallback)) missing.push_back(slots[s].name);
  }
  if (!missing.empty())
    errors.add(
        fmt::format("params: missing {} (required by strategy {}: give {} a range, a list of values or a number)",
                    fmt::join(missing, ", "), strategy, missing.size() == 1 ? "it" : "each"));
}

void check_given_params(const ParamList& slots, const std::vector<GivenParam>& given, const std::string& strategy) {
  io::ConfigErrors errors;
  check_given_params(slots, given, strategy, errors);
  throw_errors(errors);
}

}  // namespace tpeopt::strategies
