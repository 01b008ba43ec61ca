// `tpeopt verify`: the same study pipelined and serial; they must agree bit for bit.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "apps/commands.hpp"
#include "apps/study_flags.hpp"
#include "study/study.hpp"
#include "study/verify.hpp"

namespace tpeopt::app {

namespace {

struct VerifyCommand {
  StudyFlags flags;

  int operator()() const {
    const io::StudyConfig config = flags.load();
    engine::RunOptions options = flags.run_options(config);
    options.keep_trials = true;  // what verify_study keeps: the memory check counts it
    options.executor = engine::resolve_executor(options.executor);
    std::cerr << fmt::format("tpeopt verify: {} trials, batch {}, depth {}, executor {}: pipelined, then serial\n",
                             engine::study_trial_count(config), config.search.batch, config.search.depth,
                             options.executor);
    std::uint64_t data_bytes = 0;
    const auto strategy = load_strategy(config, &data_bytes);  // the data, loaded once for both runs
    check_study_memory(config, *strategy, options, data_bytes);
    const engine::Verification v = engine::verify_study(config, *strategy, options);
    if (!v.identical) {
      std::cout << "different: " << v.difference << '\n';
      return 1;
    }
    std::cout << fmt::format("identical: {} trials, digest {}\n", v.n_trials, v.digest);
    return 0;
  }
};

}  // namespace

void add_verify_command(CLI::App& app, int& exit_code) {
  auto cmd = std::make_shared<VerifyCommand>();
  CLI::App* sub =
      app.add_subcommand("verify",
                         "Run a study pipelined and serial with the same settings and check they agree bit for bit");
  cmd->flags.add_to(*sub);
  sub->callback([cmd, &exit_code] { exit_code = (*cmd)(); });
}

}  // namespace tpeopt::app
