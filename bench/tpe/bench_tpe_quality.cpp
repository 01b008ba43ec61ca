// Best value found by tpeopt's TPE on a test function, per seed: the tpeopt half of
// compare_optuna.py's quality table.
//
//   bench_tpe_quality rastrigin|styblinski_tang|hartmann6 SEEDS TRIALS BATCH [fast|exact] [MODEL]
//
// MODEL: univariate (the default, here and in study configs), multivariate, or auto[=BUDGET]
// (`multivariate: "auto"` with `multivariate_budget` BUDGET; default 120,000).
//
// Runs SEEDS studies (seeds 0 .. SEEDS-1) of TRIALS trials, asking BATCH trials and then
// telling them (one batch in flight, like Optuna's ask BATCH / tell BATCH), and prints one
// JSON line per seed: {"function", "batch", "seed", "acquisition", "model", "best": {"200": .., "1000": .., "TRIALS": ..}}.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "strategies/functions/functions.hpp"
#include "tpe/tpe_sampler.hpp"

using namespace tpeopt::tpe;
using tpeopt::strategies::TestFunction;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(
        stderr,
        "usage: bench_tpe_quality FUNCTION SEEDS TRIALS BATCH [fast|exact] [univariate|multivariate|auto[=BUDGET]]\n");
    return 2;
  }
  const std::string fname = argv[1];
  TestFunction f;
  int d;
  double low, high;
  if (fname == "rastrigin") {
    f = TestFunction::Rastrigin, d = 10, low = -5.12, high = 5.12;
  } else if (fname == "styblinski_tang") {
    f = TestFunction::StyblinskiTang, d = 10, low = -5.0, high = 5.0;
  } else if (fname == "hartmann6") {
    f = TestFunction::Hartmann6, d = 6, low = 0.0, high = 1.0;
  } else {
    std::fprintf(stderr, "unknown function %s\n", fname.c_str());
    return 2;
  }
  const auto seeds = std::strtoull(argv[2], nullptr, 10), trials = std::strtoull(argv[3], nullptr, 10),
             batch = std::strtoull(argv[4], nullptr, 10);
  TpeConfig config;
  if (argc >= 6 && std::strcmp(argv[5], "exact") == 0) config.acquisition = Acquisition::Exact;
  const std::string model = argc >= 7 ? argv[6] : "univariate";
  if (model == "multivariate") {
    config.multivariate = Multivariate::On;
  } else if (model == "auto" || (model.rfind("auto=", 0) == 0 && model.size() > 5 &&
                                 model.find_first_not_of("0123456789", 5) == std::string::npos)) {
    config.multivariate = Multivariate::Auto;
    if (model != "auto") config.multivariate_budget = std::strtoull(model.c_str() + 5, nullptr, 10);
  } else if (model != "univariate") {
    std::fprintf(stderr, "bench_tpe_quality: MODEL must be univariate, multivariate or auto[=BUDGET], got %s\n",
                 model.c_str());
    return 2;
  }
  SearchSpace space;
  for (int i = 0; i < d; ++i) {
    Axis a;
    a.name = "x" + std::to_string(i);
    a.low = low;
    a.high = high;
    space.axes.push_back(a);
  }
  const auto du = static_cast<std::size_t>(d);
  for (std::uint64_t seed = 0; seed < seeds; ++seed) {
    TpeSampler sampler(space, Direction::Minimize, seed, config);
    std::vector<double> x(batch * du);
    std::vector<TrialOutcome> outcomes(batch);
    double best = std::numeric_limits<double>::infinity();
    std::string at;
    for (std::uint64_t t = 0; t < trials; t += batch) {
      const std::size_t n = std::min<std::uint64_t>(batch, trials - t);
      sampler.ask(t, n, x.data());
      for (std::size_t i = 0; i < n; ++i) {
        const double y = tpeopt::strategies::evaluate_test_function(f, &x[i * du], d);
        outcomes[i] = {y, 0.0};
        best = std::min(best, y);
        const std::uint64_t done = t + i + 1;
        if (done == 200 || done == 1000 || done == trials)
          at += (at.empty() ? "" : ", ") + std::string("\"") + std::to_string(done) + "\": " + std::to_string(best);
      }
      sampler.tell(t, std::span<const TrialOutcome>(outcomes.data(), n));
    }
    std::printf(
        "{\"function\": \"%s\", \"batch\": %llu, \"seed\": %llu, \"acquisition\": \"%s\", \"model\": \"%s\", "
        "\"best\": {%s}}\n",
        fname.c_str(), static_cast<unsigned long long>(batch), static_cast<unsigned long long>(seed),
        config.acquisition == Acquisition::Fast ? "fast" : "exact", model.c_str(), at.c_str());
  }
  return 0;
}
