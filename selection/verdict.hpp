#pragma once
// The one line a user reads after a run: how the best compares with what chance gives.
#include <optional>
#include <string>

#include "selection/cscv.hpp"
#include "selection/deflated_sharpe.hpp"

namespace tpeopt::selection {

/// DSR at or above this is significant (the DSR paper's 95% confidence).
inline constexpr double kDsrSignificant = 0.95;

/// "best Sharpe 0.21 (per observation, T 412); 0.09 expected from 200,704 trials by chance;
/// DSR 0.97; PBO 0.12: unlikely to be selection luck alone" (docs/will-it-hold-up.md, "The
/// verdict"). The reading is "unlikely to be selection luck alone" when DSR >= 0.95 and
/// PBO < 0.5, else "consistent with selection luck". Either statistic may be missing.
std::string verdict(const std::optional<DeflatedSharpe>& dsr, const std::optional<double>& pbo);

/// 200704 -> "200,704".
std::string grouped(double count);

}  // namespace tpeopt::selection
