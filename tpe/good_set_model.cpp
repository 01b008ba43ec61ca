#include "tpe/good_set_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "tpe/cholesky.hpp"
#include "tpe/ga_genes.hpp"

namespace tpeopt::tpe {

namespace {

double uniform01(TrialEngine& engine) { return boost::random::uniform_01<double>()(engine); }
double normal(TrialEngine& engine) { return boost::random::normal_distribution<double>()(engine); }

// The first index whose cumulative weight exceeds u * total (cumulative is non-decreasing).
std::size_t pick_cumulative(const std::vector<double>& cumulative, double u) {
  const auto it = std::upper_bound(cumulative.begin(), cumulative.end(), u * cumulative.back());
  return std::min<std::size_t>(static_cast<std::size_t>(it - cumulative.begin()), cumulative.size() - 1);
}

// The mutation a genetic algorithm's child gets (tpe/ga_genes.hpp): Gaussian of 0.1 of the
// internal range, truncated to it; a discrete value always moves; a categorical takes another
// choice.
constexpr double kMutationScale = 0.1;
constexpr double kCrossoverRate = 0.9;

}  // namespace

GoodSetModel::GoodSetModel(const UnitSpace& space, const GoodPool& pool, std::size_t size, double joint_step,
                           const SearchDistribution::Frame* evolve)
    : space_(&space), pool_(&pool), size_(size), evolve_(evolve) {
  const std::size_t nc = space.n_codes();
  // Rank weights (those of CMA-ES's recombination): the best trial weighs most.
  const double top = std::log(static_cast<double>(size) + 0.5);
  double total = 0.0;
  for (std::size_t r = 0; r < size; ++r) {
    weights_.push_back(top - std::log(static_cast<double>(r + 1)));
    total += weights_.back();
  }
  double sum_sq = 0.0;
  for (double& w : weights_) {
    w /= total;
    sum_sq += w * w;
  }
  effective_size_ = 1.0 / sum_sq;
  picker_.build(weights_);

  numeric_ = space.numeric_codes();
  const std::size_t dn = numeric_.size();

  // Weighted mean and covariance of the numeric codes.
  std::vector<double> mean(dn, 0.0);
  for (std::size_t r = 0; r < size; ++r)
    for (std::size_t j = 0; j < dn; ++j) mean[j] += weights_[r] * codes(r)[numeric_[j]];
  std::vector<double> cov(dn * dn, 0.0);
  std::vector<double> dev(dn);
  for (std::size_t r = 0; r < size; ++r) {
    for (std::size_t j = 0; j < dn; ++j) dev[j] = codes(r)[numeric_[j]] - mean[j];
    for (std::size_t i = 0; i < dn; ++i)
      for (std::size_t j = 0; j <= i; ++j) cov[i * dn + j] += weights_[r] * dev[i] * dev[j];
  }
  for (std::size_t i = 0; i < dn; ++i)
    for (std::size_t j = 0; j < i; ++j) cov[j * dn + i] = cov[i * dn + j];
  // A discrete axis on which every good trial agrees still gets half a grid step of spread,
  // so that the joint kernel can leave the value (rounding takes it back most of the time).
  double trace = 0.0;
  for (std::size_t j = 0; j < dn; ++j) {
    const double half_step = 0.5 * space.unit_step(numeric_[j]);
    cov[j * dn + j] = std::max(cov[j * dn + j], half_step * half_step);
    trace += cov[j * dn + j];
  }
  // Fewer good trials than axes (or equal ones) leave C singular: add a growing ridge.
  const double scale = std::max(trace / static_cast<double>(std::max<std::size_t>(dn, 1)), 1e-300);
  for (double ridge = 1e-12 * scale;; ridge *= 10.0) {
    chol_ = cov;
    if (cholesky(chol_, dn)) break;
    for (std::size_t j = 0; j < dn; ++j) cov[j * dn + j] += ridge;
  }
  cov_ = cov;
  joint_h_ = joint_step * std::pow(effective_size_, -1.0 / (static_cast<double>(dn) + 4.0));

  // Marginal bandwidths: univariate TPE's neighbour gaps among the good trials (the range's
  // ends as outer neighbours, the first and last taking their inner gap), floored at
  // 1 / (size + 2) of the range.
  marginal_sigma_.assign(size * nc, 0.0);
  scott_.assign(nc, 0.0);
  std::vector<std::size_t> order(size);
  const double floor = 1.0 / (static_cast<double>(size) + 2.0);
  for (std::size_t j = 0; j < dn; ++j) {
    const std::size_t c = numeric_[j];
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return codes(a)[c] < codes(b)[c]; });
    for (std::size_t k = 0; k < size; ++k) {
      const double x = codes(order[k])[c];
      const double left = k > 0 ? x - codes(order[k - 1])[c] : x;
      const double right = k + 1 < size ? codes(order[k + 1])[c] - x : 1.0 - x;
      double sigma = std::max(left, right);
      if (size >= 2 && k == 0) sigma = right;
      if (size >= 2 && k + 1 == size) sigma = left;
      marginal_sigma_[order[k] * nc + c] = std::clamp(sigma, floor, 1.0);
    }
    const double sd = std::sqrt(cov[j * dn + j]);
    scott_[c] = std::max({1.06 * sd * std::pow(effective_size_, -0.2), 0.5 * space.unit_step(c), 1e-9});
  }

  // Categorical codes: l's choice probabilities, the good trials' weights plus the prior's
  // share spread evenly.
  choice_p_.resize(nc);
  choice_cumulative_.resize(nc);
  const double prior = prior_weight();
  for (std::size_t c = 0; c < nc; ++c) {
    if (!space.categorical(c)) continue;
    const std::size_t k = space.n_choices(c);
    std::vector<double> p(k, prior / static_cast<double>(k));
    for (std::size_t r = 0; r < size; ++r) p[static_cast<std::size_t>(codes(r)[c])] += weights_[r];
    double run = 0.0;
    for (double& v : p) {
      v /= 1.0 + prior;
      run += v;
      choice_cumulative_[c].push_back(run);
    }
    choice_p_[c] = std::move(p);
  }
}

std::size_t GoodSetModel::pick(TrialEngine& engine) const { return picker_.draw(engine()); }

void GoodSetModel::propose(ProposalOperator op, TrialEngine& engine, double* out) const {
  switch (op) {
    case ProposalOperator::Joint:
      joint(engine, out);
      break;
    case ProposalOperator::Marginal:
      marginal(engine, out);
      break;
    case ProposalOperator::Recombine:
      recombine(engine, out);
      break;
    case ProposalOperator::Evolve:
      evolve(engine, out);
      break;
  }
  for (std::size_t j : numeric_) {
    const double u = out[j] >= 0.0 && out[j] <= 1.0 ? out[j] : ga::reflect_into(out[j], 0.0, 1.0);
    out[j] =
        space_->unit_step(j) > 0.0 || space_->gene(j).type == ga::Gene::Type::Discrete ? space_->snap_code(j, u) : u;
  }
}

void GoodSetModel::joint(TrialEngine& engine, double* out) const {
  const std::size_t nc = space_->n_codes(), dn = numeric_.size();
  const double* parent = codes(pick(engine));
  std::copy(parent, parent + nc, out);
  thread_local std::vector<double> z, step;
  z.resize(dn);
  step.resize(dn);
  for (double& v : z) v = normal(engine);
  multiply_lower(chol_, dn, z.data(), step.data());
  for (std::size_t i = 0; i < dn; ++i) out[numeric_[i]] += joint_h_ * step[i];
}

void GoodSetModel::marginal(TrialEngine& engine, double* out) const {
  const std::size_t nc = space_->n_codes();
  for (std::size_t c = 0; c < nc; ++c) {
    if (space_->categorical(c)) {
      out[c] = static_cast<double>(pick_cumulative(choice_cumulative_[c], uniform01(engine)));
      continue;
    }
    const std::size_t r = pick(engine);
    out[c] = codes(r)[c] + marginal_sigma_[r * nc + c] * normal(engine);
  }
}

void GoodSetModel::evolve(TrialEngine& engine, double* out) const {
  if (!evolve_ || evolve_->mean.size() != numeric_.size())
    throw std::logic_error("GoodSetModel: an Evolve proposal without a frame of its numeric codes");
  const std::size_t nc = space_->n_codes();
  for (std::size_t c = 0; c < nc; ++c)
    if (space_->categorical(c)) out[c] = static_cast<double>(pick_cumulative(choice_cumulative_[c], uniform01(engine)));
  thread_local std::vector<double> x;
  x.resize(numeric_.size());
  SearchDistribution::draw(*evolve_, engine, x.data());
  for (std::size_t i = 0; i < numeric_.size(); ++i) out[numeric_[i]] = x[i];
}

void GoodSetModel::recombine(TrialEngine& engine, double* out) const {
  const std::size_t nc = space_->n_codes();
  const double* a = codes(pick(engine));
  std::copy(a, a + nc, out);
  if (uniform01(engine) < kCrossoverRate) {
    const double* b = codes(pick(engine));
    for (std::size_t c = 0; c < nc; ++c)
      if (uniform01(engine) < 0.5) out[c] = b[c];
  }
  const double rate = 1.0 / static_cast<double>(nc);
  bool mutated = false;
  auto mutate = [&](std::size_t c) {
    const double v = ga::mutate(space_->gene(c), space_->axis_of(c), space_->value(c, out[c]), kMutationScale, engine);
    out[c] = space_->code(c, v);
  };
  for (std::size_t c = 0; c < nc; ++c)
    if (uniform01(engine) < rate) {
      mutate(c);
      mutated = true;
    }
  // A child that no draw mutated gets one code mutated; a space of single-valued axes has no
  // code (uniform_int_distribution(0, nc - 1) would then pick from the whole size_t range).
  if (!mutated && nc > 0) mutate(boost::random::uniform_int_distribution<std::size_t>(0, nc - 1)(engine));
}

}  // namespace tpeopt::tpe
