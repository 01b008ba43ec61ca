#include "strategies/params.hpp"

#include <algorithm>

#include <fmt/ranges.h>

#include "common/error.hpp"

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

void ParamList::check(std::size_t slot, double lo, double hi) const {
  const ParamSpec& s = specs_.at(slot);
  if (!std::isfinite(lo) || !std::isfinite(hi))
    throw make_error("params.{}: values in [{}, {}] are not all valid: must be finite numbers", s.name, lo, hi);
  if (!s.domain.accepts(lo, hi))
    throw make_error("params.{}: values in [{}, {}] are not all valid: {}", s.name, lo, hi, s.domain.rule);
}

void check_given_params(const ParamList& slots, const std::vector<GivenParam>& given, const std::string& strategy) {
  for (const auto& g : given)
    if (slots.find(g.name) == ParamList::npos)
      throw make_error("params.{}: not a parameter of strategy {} (its parameters: {})", g.name, strategy,
                       fmt::join(slots.names(), ", "));
  for (std::size_t s = 0; s < slots.size(); ++s) {
    const auto it = std::find_if(given.begin(), given.end(), [&](const GivenParam& g) { return g.name == slots[s].name; });
    if (it != given.end())
      slots.check(s, it->low, it->high);
    else if (std::isnan(slots[s].fallback))
      throw make_error("params.{}: required by strategy {} but not given (a range, a list of values or a number)",
                       slots[s].name, strategy);
  }
}

}  // namespace tpeopt::strategies
