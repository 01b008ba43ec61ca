#pragma once
// Batch TPE's proposal operators (good_set_model.hpp draws them; batch_tpe_config.hpp says
// which are in use; the config names them joint, marginal, recombine, evolve).
#include <cstddef>

namespace tpeopt::tpe {

/// The proposal operators, each a way of drawing from the good set's Parzen estimator.
///  - Joint: one good trial's kernel over all numeric axes at once, with the bandwidth matrix
///    h^2 C (C the good set's weighted covariance, h Scott's factor): moves along the
///    directions the good set is spread in (rotated and ill-conditioned problems).
///  - Marginal: each axis from l's marginal on that axis independently (univariate TPE's l:
///    each axis takes another good trial's value, with its neighbour-gap bandwidth):
///    recombines all good trials at once (separable problems).
///  - Recombine: two good trials' uniform crossover and a mutation of about one axis (a
///    genetic algorithm's child with the good set as its parents): coordinate moves that keep
///    most of a good trial (multimodal separable problems, discrete and categorical axes).
///  - Evolve: the numeric codes from the persistent search distribution's frame
///    (search_distribution.hpp: a CMA-ES mean, covariance and step size that move from batch
///    to batch), the categorical ones from l's choice probabilities.
enum class ProposalOperator { Joint = 0, Marginal = 1, Recombine = 2, Evolve = 3 };
inline constexpr std::size_t kOperators = 4;

}  // namespace tpeopt::tpe
