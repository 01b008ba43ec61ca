#include "tpe/screening.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tpeopt::tpe {

int candidates_for(ProposalOperator op, int candidates) {
  return op == ProposalOperator::Joint || op == ProposalOperator::Evolve ? 1 : candidates;
}

int screen(const GoodSetModel& model, const DensityRatio* ratio, ProposalOperator op, int candidates,
           TrialEngine& engine, double* best, double* scratch) {
  const std::size_t nc = model.n_codes();
  const int n = candidates_for(op, candidates);
  double best_score = -std::numeric_limits<double>::infinity();
  int chosen = 0;
  for (int k = 0; k < n; ++k) {
    model.propose(op, engine, scratch);
    const double score = ratio ? ratio->score(scratch) : 0.0;
    if (k == 0 || score > best_score) {
      best_score = k == 0 && std::isnan(score) ? -std::numeric_limits<double>::infinity() : score;
      std::copy(scratch, scratch + nc, best);
      chosen = k;
    }
  }
  return chosen;
}

}  // namespace tpeopt::tpe
