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

std::string verdict(const std::optional<DeflatedSharpe>& dsr, const std::optional<double>& pbo,
                    const std::optional<double>& probability_of_loss) {
  std::string line;
  bool significant = true;
  if (dsr) {
    line = fmt::format(
        "best Sharpe {:.3g} (per observation, T {}); {:.3g} expected from {} trials by chance{}; DSR {:.2f}",
        dsr->sharpe, grouped(dsr->n_observations), dsr->expected_max_sharpe, grouped(dsr->n_trials),
        dsr->method == Deflation::Standardized ? " at that T" : "", dsr->dsr);
    significant = dsr->dsr >= kDsrSignificant;  // NaN is not significant
  }
  const auto add = [&](const std::string& part) { line += (line.empty() ? "" : "; ") + part; };
  if (pbo) add(fmt::format("PBO {:.2f}", *pbo));
  if (probability_of_loss) add(fmt::format("P(loss) {:.2f}", *probability_of_loss));
  if (line.empty()) return "not available";
  // PBO >= 0.5 alone does not make an edge luck: near-equal parameters of one real edge tie for
  // the lead by chance, while the one chosen in sample still gains out of sample (below 0.5: a
  // gain more often than a loss; without an edge the out-of-sample Sharpe ratio of the
  // in-sample best centres on 0 or below, a loss in half the splits or more).
  const char* reading = kReadingLuck;
  if (significant && (!pbo || *pbo < 0.5)) reading = kReadingNotLuck;
  else if (significant && probability_of_loss && *probability_of_loss < 0.5) reading = kReadingEdgeNotRanking;
  return line + ": " + reading;
}

}  // namespace tpeopt::selection
