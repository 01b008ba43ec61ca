#include "study/verify.hpp"

#include <cstring>

#include <fmt/format.h>

namespace tpeopt::engine {

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Describes the first difference between two runs' trials, or "" when identical.
std::string first_difference(const StudyResult& a, const StudyResult& b, const io::StudyConfig& c) {
  if (a.trials().size() != b.trials().size())
    return fmt::format("trial counts differ: pipelined {} vs serial {}", a.trials().size(), b.trials().size());
  for (std::size_t i = 0; i < a.trials().size(); ++i) {
    const auto& x = a.trials()[i];
    const auto& y = b.trials()[i];
    for (std::size_t p = 0; p < x.params.size(); ++p)
      if (!same_bits(x.params[p], y.params[p]))
        return fmt::format("trial {}: parameter {} differs: pipelined {} vs serial {}", x.trial, c.space.axes[p].name,
                           x.params[p], y.params[p]);
    if (!same_bits(x.score, y.score))
      return fmt::format("trial {}: score differs: pipelined {} vs serial {}", x.trial, x.score, y.score);
    if (!same_bits(x.violation, y.violation))
      return fmt::format("trial {}: violation differs: pipelined {} vs serial {}", x.trial, x.violation, y.violation);
    for (std::size_t m = 0; m < x.metrics.size(); ++m)
      if (!same_bits(x.metrics[m], y.metrics[m]))
        return fmt::format("trial {}: metric {} differs: pipelined {} vs serial {}", x.trial, m, x.metrics[m],
                           y.metrics[m]);
  }
  return "";
}

}  // namespace

Verification verify_study(const io::StudyConfig& config, const strategies::Strategy& strategy, RunOptions options) {
  options.keep_trials = true;
  options.serial = false;
  const StudyRun pipelined = run_study(config, strategy, options);
  options.serial = true;
  const StudyRun serial = run_study(config, strategy, options);
  Verification v;
  v.n_trials = pipelined.result.n_trials();
  v.digest = pipelined.result.digest_hex();
  v.serial_digest = serial.result.digest_hex();
  v.difference = first_difference(pipelined.result, serial.result, config);
  if (v.difference.empty() && v.digest != v.serial_digest) v.difference = "digests differ";
  v.identical = v.difference.empty();
  return v;
}

}  // namespace tpeopt::engine
