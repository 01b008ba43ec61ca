#include "selection/verdict.hpp"

#include <cmath>

#include <fmt/format.h>

namespace tpeopt::selection {

std::string grouped(double count) {
  std::string digits = fmt::format("{:.0f}", count), out;
  const std::size_t sign = !digits.empty() && digits[0] == '-' ? 1 : 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string verdict(const std::optional<DeflatedSharpe>& dsr, const std::optional<double>& pbo) {
  std::string line;
  bool significant = true;
  if (dsr) {
    line =
        fmt::format("best Sharpe {:.3g} (per observation, T {}); {:.3g} expected from {} trials by chance; DSR {:.2f}",
                    dsr->sharpe, grouped(dsr->n_observations), dsr->expected_max_sharpe, grouped(dsr->n_trials),
                    dsr->dsr);
    significant = dsr->dsr >= kDsrSignificant;  // NaN is not significant
  }
  if (pbo) {
    line += fmt::format("{}PBO {:.2f}", line.empty() ? "" : "; ", *pbo);
    significant = significant && *pbo < 0.5;
  }
  if (line.empty()) return "not available";
  return line + (significant ? ": unlikely to be selection luck alone" : ": consistent with selection luck");
}

}  // namespace tpeopt::selection
