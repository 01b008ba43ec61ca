// `tpeopt verify`: the same study pipelined and serial; they must agree bit for bit.
#include <cmath>
#include <cstring>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "apps/study_flags.hpp"
#include "study/study.hpp"

namespace tpeopt::app {

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// Describes the first difference between two runs' trials, or "" when identical.
std::string first_difference(const engine::StudyResult& a, const engine::StudyResult& b, const io::StudyConfig& c) {
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

struct VerifyCommand {
  StudyFlags flags;

  int operator()() const {
    const io::StudyConfig config = flags.load();
    engine::RunOptions options = flags.run_options(config);
    options.keep_trials = true;
    options.executor = engine::resolve_executor(options.executor);
    std::cerr << fmt::format("tpeopt verify: {} trials, batch {}, depth {}, executor {}: pipelined, then serial\n",
                             engine::study_trial_count(config), config.search.batch, config.search.depth,
                             options.executor);
    std::uint64_t data_bytes = 0;
    const auto strategy = load_strategy(config, &data_bytes);  // the data, loaded once for both runs
    check_study_memory(config, *strategy, options, data_bytes);
    options.serial = false;
    const engine::StudyRun pipelined = engine::run_study(config, *strategy, options);
    options.serial = true;
    const engine::StudyRun serial = engine::run_study(config, *strategy, options);
    const std::string diff = first_difference(pipelined.result, serial.result, config);
    if (!diff.empty() || pipelined.result.digest_hex() != serial.result.digest_hex()) {
      std::cout << "different: " << (diff.empty() ? "digests differ" : diff) << '\n';
      return 1;
    }
    std::cout << fmt::format("identical: {} trials, digest {}\n", pipelined.result.n_trials(),
                             pipelined.result.digest_hex());
    return 0;
  }
};

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<VerifyCommand>();
  CLI::App* sub = app.add_subcommand(
      "verify", "Run a study pipelined and serial with the same settings and check they agree bit for bit");
  cmd->flags.add_to(*sub);
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
