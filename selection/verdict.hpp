#pragma once
// The one line a user reads after a run: how the best compares with what chance gives.
#include <optional>
#include <string>

#include "selection/cscv.hpp"
#include "selection/deflated_sharpe.hpp"

namespace tpeopt::selection {

/// DSR at or above this is significant (the DSR paper's 95% confidence).
inline constexpr double kDsrSignificant = 0.95;

/// The readings of the verdict line.
inline constexpr const char* kReadingNotLuck = "unlikely to be selection luck alone";
inline constexpr const char* kReadingEdgeNotRanking =
    "an edge beyond selection luck, but the in-sample ranking of the parameters does not carry over";
inline constexpr const char* kReadingLuck = "consistent with selection luck";

/// "best Sharpe 0.21 (per observation, T 412); 0.09 expected from 200,704 trials by chance at
/// that T; DSR 0.97; PBO 0.12; P(loss) 0.03: unlikely to be selection luck alone"
/// (docs/will-it-hold-up.md, "The verdict"). The reading: with DSR >= 0.95 (or no DSR),
/// kReadingNotLuck when PBO < 0.5 (or no PBO), else kReadingEdgeNotRanking when the
/// probability of loss is below 0.5; kReadingLuck otherwise. Any statistic may be missing.
std::string verdict(const std::optional<DeflatedSharpe>& dsr, const std::optional<double>& pbo,
                    const std::optional<double>& probability_of_loss = std::nullopt);

/// 200704 -> "200,704".
std::string grouped(double count);

}  // namespace tpeopt::selection
