#pragma once
// One trial's full parameter vector from named values (`tpeopt backtest --params P.json`,
// tpeopt.backtest in Python).
#include <string>
#include <utility>
#include <vector>

#include "io/study_config.hpp"
#include "strategies/strategy.hpp"

namespace tpeopt::engine {

/// The strategy's slot vector (one value per param_names() entry) from `given` name/value
/// pairs; names left out take the config's fixed value, else the strategy's default. Errors
/// (an unknown name, a value that is not a finite number or outside the slot's range, a
/// missing slot) start with `source`.
std::vector<double> full_params(const strategies::Strategy& strategy, const io::StudyConfig& config,
                                const std::vector<std::pair<std::string, double>>& given, const std::string& source);

}  // namespace tpeopt::engine
