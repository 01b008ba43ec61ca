#include "engine/trial_params.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/error.hpp"

namespace tpeopt::engine {

std::vector<double> full_params(const strategies::Strategy& strategy, const io::StudyConfig& config,
                                const std::vector<std::pair<std::string, double>>& given, const std::string& source) {
  const auto& names = strategy.param_names();
  const auto defaults = strategy.param_defaults();
  std::vector<double> values(names.size(), NAN);
  for (const auto& [key, value] : given) {
    const auto it = std::find(names.begin(), names.end(), key);
    if (it == names.end())
      throw make_error("{}: {}: not a parameter of strategy {} (its parameters: {})", source, key, strategy.name(),
                       fmt::join(names, ", "));
    if (!std::isfinite(value)) throw make_error("{}: {}: expected a finite number, got {}", source, key, value);
    values[static_cast<std::size_t>(it - names.begin())] = value;
  }
  std::vector<std::string> missing;
  for (std::size_t s = 0; s < names.size(); ++s) {
    if (!std::isnan(values[s])) continue;
    if (auto f = config.fixed.find(names[s]); f != config.fixed.end()) values[s] = f->second;
    else if (s < defaults.size() && !std::isnan(defaults[s])) values[s] = defaults[s];
    else missing.push_back(names[s]);
  }
  if (!missing.empty())
    throw make_error("{}: missing parameter(s) {} (not fixed by the config and without a default)", source,
                     fmt::join(missing, ", "));
  for (std::size_t s = 0; s < names.size(); ++s) {
    try {
      strategy.check_param_range(s, values[s], values[s]);
    } catch (const Error& e) {
      throw make_error("{}: {}", source, e.what());
    }
  }
  return values;
}

}  // namespace tpeopt::engine
