#include "tpe/search_distribution.hpp"

#include <algorithm>
#include <cmath>

#include <boost/random/normal_distribution.hpp>

#include "tpe/cholesky.hpp"
#include "tpe/ga_genes.hpp"

namespace tpeopt::tpe {

namespace {

constexpr double kMinSpread = 1e-12;    // sigma * sqrt(max C_ii) below it: collapsed
constexpr double kMaxCondition = 1e14;  // max C_ii / min C_ii above it: degenerate
constexpr double kMaxSpread = 1.0;      // sigma * sqrt(max C_ii) kept at most the unit range

// E||N(0, I_n)||.
double expected_norm(double n) { return std::sqrt(n) * (1.0 - 1.0 / (4.0 * n) + 1.0 / (21.0 * n * n)); }

}  // namespace

SearchDistribution::SearchDistribution(std::size_t n, std::span<const double> mean, double sigma0) : n_(n) {
  reset(mean, sigma0);
}

void SearchDistribution::restart(std::span<const double> mean, double sigma0) {
  ++restarts_;
  reset(mean, sigma0);
}

void SearchDistribution::reset(std::span<const double> mean, double sigma0) {
  cov_.assign(n_ * n_, 0.0);
  for (std::size_t i = 0; i < n_; ++i) cov_[i * n_ + i] = 1.0;
  path_sigma_.assign(n_, 0.0);
  path_c_.assign(n_, 0.0);
  generation_ = 0;
  stalled_ = 0;
  degenerate_ = false;
  refresh_frame(std::vector<double>(mean.begin(), mean.end()), sigma0);
}

void SearchDistribution::refresh_frame(std::vector<double> mean, double sigma) {
  // C stays symmetric positive definite in exact arithmetic; a ridge covers rounding. A C that
  // is not finite, or that no ridge of up to 1e16 times its scale makes positive definite, is
  // replaced by I and marked degenerate: should_restart() then says so.
  bool finite = std::isfinite(sigma);
  for (double v : cov_) finite = finite && std::isfinite(v);
  auto frame = std::make_shared<Frame>(Frame{std::move(mean), sigma, cov_, restarts_});
  double trace = 0.0;
  for (std::size_t i = 0; i < n_; ++i) trace += cov_[i * n_ + i];
  const double scale = std::max(trace / static_cast<double>(std::max<std::size_t>(n_, 1)), 1e-300);
  bool factored = finite && cholesky(frame->chol, n_);
  for (double ridge = 1e-14 * scale; finite && !factored && ridge <= 1e2 * scale; ridge *= 10.0) {
    for (std::size_t i = 0; i < n_; ++i) cov_[i * n_ + i] += ridge;
    frame->chol = cov_;
    factored = cholesky(frame->chol, n_);
  }
  if (!factored) {
    cov_.assign(n_ * n_, 0.0);
    for (std::size_t i = 0; i < n_; ++i) cov_[i * n_ + i] = 1.0;
    frame->chol = cov_;
    if (!std::isfinite(frame->sigma)) frame->sigma = kSigma0;
    degenerate_ = true;
  }
  frame_ = std::move(frame);
}

void SearchDistribution::draw(const Frame& frame, TrialEngine& engine, double* out) {
  const std::size_t n = frame.mean.size();
  thread_local std::vector<double> z;
  z.resize(n);
  boost::random::normal_distribution<double> normal;
  for (double& v : z) v = normal(engine);
  multiply_lower(frame.chol, n, z.data(), out);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = frame.mean[i] + frame.sigma * out[i];
    out[i] = x >= 0.0 && x <= 1.0 ? x : ga::reflect_into(x, 0.0, 1.0);
  }
}

void SearchDistribution::update(const Frame& drawn_from, std::span<const double* const> selected, std::size_t lambda,
                                bool improved) {
  const std::size_t mu = selected.size();
  // A block drawn before the last restart (pipelining) says nothing of the new distribution.
  if (mu == 0 || drawn_from.start != restarts_) return;
  const double n = static_cast<double>(n_);
  // Recombination weights of the best mu, w_i proportional to ln(mu + 1/2) - ln(i).
  std::vector<double> w(mu);
  double total = 0.0, sum_sq = 0.0;
  for (std::size_t i = 0; i < mu; ++i) {
    w[i] = std::log(static_cast<double>(mu) + 0.5) - std::log(static_cast<double>(i) + 1.0);
    total += w[i];
  }
  for (double& v : w) {
    v /= total;
    sum_sq += v * v;
  }
  const double mu_eff = 1.0 / sum_sq;
  // The tutorial's default learning rates for this n and mu_eff.
  const double c_sigma = (mu_eff + 2.0) / (n + mu_eff + 5.0);
  const double d_sigma = 1.0 + 2.0 * std::max(0.0, std::sqrt((mu_eff - 1.0) / (n + 1.0)) - 1.0) + c_sigma;
  const double c_c = (4.0 + mu_eff / n) / (n + 4.0 + 2.0 * mu_eff / n);
  const double c_1 = 2.0 / ((n + 1.3) * (n + 1.3) + mu_eff);
  const double c_mu = std::min(1.0 - c_1, 2.0 * (mu_eff - 2.0 + 1.0 / mu_eff) / ((n + 2.0) * (n + 2.0) + mu_eff));

  const Frame& now = *frame_;
  // The paths take the block's own step, sum w_i y_i with y_i = (x_i - m') / sigma' in the
  // frame (m', sigma', L') the block was drawn from, and its whitened form L'^-1 sum w_i y_i:
  // under random selection that is N(0, I / mu_eff) whatever happened between ask and tell.
  // (With pipelining the current mean is a later block's; a step measured from it would
  // repeat the previous block's move, lengthen the path and inflate sigma.)
  // A selected trial not drawn from the frame (another operator's) can lie far out in it:
  // its step is shortened to a Mahalanobis length of at most sqrt(n) + 2n / (n + 2) (Hansen,
  // "Injecting External Solutions Into CMA-ES", 2011), which a draw of the frame rarely exceeds.
  const double max_length = std::sqrt(n) + 2.0 * n / (n + 2.0);
  // A block drawn from an older frame (pipelining) teaches C its selection in that frame: its
  // whitened steps z = L'^-1 y. The rank-mu term takes them carried into the current frame,
  // L z: under random selection that averages to the current C, where the steps y themselves
  // would pull C back to the older one, and C would learn from every other block only.
  const bool stale = &drawn_from != &now;
  std::vector<double> y(mu * n_), step(n_, 0.0), z(n_), carried(stale ? mu * n_ : 0);
  for (std::size_t i = 0; i < mu; ++i) {
    for (std::size_t j = 0; j < n_; ++j)
      z[j] = y[i * n_ + j] = (selected[i][j] - drawn_from.mean[j]) / drawn_from.sigma;
    solve_lower(drawn_from.chol, n_, z.data());
    double length = 0.0;
    for (double v : z) length += v * v;
    length = std::sqrt(length);
    const double shorten = length > max_length ? max_length / length : 1.0;
    for (std::size_t j = 0; j < n_; ++j) {
      y[i * n_ + j] *= shorten;
      step[j] += w[i] * y[i * n_ + j];
    }
    if (stale) {
      for (double& v : z) v *= shorten;
      multiply_lower(now.chol, n_, z.data(), &carried[i * n_]);
    }
  }
  const std::vector<double>& rank_mu_steps = stale ? carried : y;
  // The mean moves by the shortened steps from the block's frame (Hansen 2011: an injected
  // trial moves the mean no more than a draw of the frame could), kept in the unit box.
  std::vector<double> mean(n_);
  for (std::size_t j = 0; j < n_; ++j) mean[j] = std::clamp(drawn_from.mean[j] + drawn_from.sigma * step[j], 0.0, 1.0);
  std::vector<double> white = step;
  solve_lower(drawn_from.chol, n_, white.data());
  const double ps_rate = std::sqrt(c_sigma * (2.0 - c_sigma) * mu_eff);
  double ps_norm_sq = 0.0;
  for (std::size_t j = 0; j < n_; ++j) {
    path_sigma_[j] = (1.0 - c_sigma) * path_sigma_[j] + ps_rate * white[j];
    ps_norm_sq += path_sigma_[j] * path_sigma_[j];
  }
  const double ps_norm = std::sqrt(ps_norm_sq);
  const double chi = expected_norm(n);
  const double fade = 1.0 - std::pow(1.0 - c_sigma, 2.0 * static_cast<double>(generation_ + 1));
  const bool h_sigma = ps_norm / std::sqrt(std::max(fade, 1e-300)) < (1.4 + 2.0 / (n + 1.0)) * chi;
  const double pc_rate = h_sigma ? std::sqrt(c_c * (2.0 - c_c) * mu_eff) : 0.0;
  for (std::size_t j = 0; j < n_; ++j) path_c_[j] = (1.0 - c_c) * path_c_[j] + pc_rate * step[j];

  // C: the old C faded, the rank-one term of the path, the rank-mu term of the selected
  // trials' steps (carried into the current frame when the block's frame is older).
  const double keep = 1.0 - c_1 - c_mu + (h_sigma ? 0.0 : c_1 * c_c * (2.0 - c_c));
  for (std::size_t a = 0; a < n_; ++a)
    for (std::size_t b = 0; b <= a; ++b) {
      double rank_mu = 0.0;
      for (std::size_t i = 0; i < mu; ++i) rank_mu += w[i] * rank_mu_steps[i * n_ + a] * rank_mu_steps[i * n_ + b];
      const double v = keep * cov_[a * n_ + b] + c_1 * path_c_[a] * path_c_[b] + c_mu * rank_mu;
      cov_[a * n_ + b] = cov_[b * n_ + a] = v;
    }
  double sigma = now.sigma * std::exp(std::min(1.0, c_sigma / d_sigma * (ps_norm / chi - 1.0)));
  double max_var = 0.0;
  for (std::size_t j = 0; j < n_; ++j) max_var = std::max(max_var, cov_[j * n_ + j]);
  sigma = std::min(sigma, kMaxSpread / std::sqrt(max_var));
  ++generation_;
  stalled_ = improved ? 0 : stalled_ + 1;
  last_lambda_ = std::max<std::size_t>(lambda, 1);
  refresh_frame(std::move(mean), sigma);
}

bool SearchDistribution::should_restart() const {
  double max_var = 0.0, min_var = INFINITY;
  for (std::size_t j = 0; j < n_; ++j) {
    max_var = std::max(max_var, cov_[j * n_ + j]);
    min_var = std::min(min_var, cov_[j * n_ + j]);
  }
  const auto patience = 10 + static_cast<std::size_t>(std::ceil(30.0 * static_cast<double>(n_) / last_lambda_));
  return degenerate_ || frame_->sigma * std::sqrt(max_var) < kMinSpread || max_var > kMaxCondition * min_var ||
         stalled_ >= patience;
}

}  // namespace tpeopt::tpe
