#include "support/random_config.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "support/conformance.hpp"
#include "support/test_rng.hpp"

namespace tpeopt::testing {

namespace {

using io::Json;

// One parameter the config may search: its name and the range its values are drawn from.
struct Slot {
  std::string name;
  double low = 0.0, high = 0.0;
  bool integer = false;
};

// The slots of a case: the strategy's own (their typical ranges), or, for a strategy whose
// parameters are the config's (functions), the sample's parameters.
std::vector<Slot> slots_of(const ConformanceCase& c, Rng& rng) {
  std::vector<Slot> out;
  for (const auto& p : c.entry->params.specs()) out.push_back({p.name, p.typical_low, p.typical_high, p.integer});
  if (!out.empty()) return out;
  std::vector<Slot> given;
  for (const auto& item : c.config.at("params").items()) {
    const Json& spec = item.value();
    Slot s{item.key(), -5.0, 5.0, false};
    if (spec.is_number()) s.low = s.high = spec.get<double>();
    if (spec.is_object() && spec.contains("low")) {
      s.low = spec.at("low").get<double>();
      s.high = spec.at("high").get<double>();
    }
    given.push_back(s);
  }
  // A function of any dimension (the config names them): 1 to 4 of the sample's parameters,
  // or the sample's own count (hartmann6 takes six).
  if (rng.u01() < 0.5) given.resize(1 + rng.below(std::min<std::size_t>(4, given.size())));
  return given;
}

double draw(Rng& rng, double low, double high, bool integer) {
  const double v = low + rng.u01() * (high - low);
  return integer ? std::round(v) : v;
}

// A few distinct values of the slot's range (integers for an integer slot).
Json value_list(Rng& rng, const Slot& s, std::size_t n) {
  std::vector<double> values;
  for (std::size_t i = 0; i < n; ++i) {
    const double v = draw(rng, s.low, s.high, s.integer);
    if (std::find(values.begin(), values.end(), v) == values.end()) values.push_back(v);
  }
  return values;
}

enum Shape { kFixed, kLowEqHigh, kRange, kStepped, kLog, kList, kOneChoice, kShapes };

// One parameter's spec. `grid`: only shapes a grid enumerates, with at most 4 points.
Json param_spec(Rng& rng, Slot s, bool grid) {
  // Now and then a range wider than the typical one: the strategy's domain check may refuse it.
  if (rng.u01() < 0.05 && s.high > s.low) {
    const double w = s.high - s.low;
    s.low -= 0.5 * w;
    s.high += 0.5 * w;
    if (s.integer) s.low = std::floor(s.low), s.high = std::ceil(s.high);
  }
  const bool wide = s.high > s.low + (s.integer ? 1.0 : 0.0);
  Shape shape = static_cast<Shape>(rng.below(kShapes));
  if (grid && (shape == kRange || shape == kLog)) shape = kList;
  if (!wide && (shape == kRange || shape == kStepped || shape == kLog)) shape = kLowEqHigh;
  const char* type = s.integer ? "int" : "float";
  const double a = draw(rng, s.low, s.high, s.integer);
  switch (shape) {
    case kFixed:
      return a;
    case kLowEqHigh:
      return {{"type", type}, {"low", a}, {"high", a}};
    case kRange: {
      double b = draw(rng, s.low, s.high, s.integer);
      if (b == a) b = s.high;
      if (b == a) b = s.low;
      return {{"type", type}, {"low", std::min(a, b)}, {"high", std::max(a, b)}};
    }
    case kStepped: {
      const std::size_t k = 1 + rng.below(grid ? 3 : 8);  // points - 1
      double step = (s.high - s.low) / static_cast<double>(k);
      if (s.integer) step = std::max(1.0, std::floor(step));
      return {{"type", type}, {"low", s.low}, {"high", s.low + static_cast<double>(k) * step}, {"step", step}};
    }
    case kLog: {
      const double low = s.integer ? std::max(1.0, s.low) : (s.low > 0.0 ? s.low : 1e-3 * std::max(s.high, 1.0));
      if (!(s.high > low)) return {{"type", type}, {"low", a}, {"high", a}};
      double high = draw(rng, low, s.high, s.integer);
      if (!(high > low)) high = s.high;
      return {{"type", type}, {"low", low}, {"high", high}, {"log", true}};
    }
    case kList:
      return {{"values", value_list(rng, s, 1 + rng.below(4))}};
    case kOneChoice:
    case kShapes:
      break;
  }
  return {{"type", "categorical"}, {"choices", Json::array({a})}};
}

Json search_of(Rng& rng, const std::string& sampler) {
  static const std::size_t kBatches[] = {1, 2, 3, 5, 7, 16, 31, 64, 100};
  Json s = {{"trials", 1 + rng.below(48)},
            {"batch", kBatches[rng.below(std::size(kBatches))]},
            {"depth", 1 + rng.below(3)},
            {"seed", rng.below(1000)}};
  if (rng.u01() < 0.3) s["top_k"] = rng.below(6);
  if (sampler == "tpe-batch" || sampler == "tpe-optuna") {
    s["sampler"] = "tpe";
    Json tpe = Json::object();
    if (sampler == "tpe-optuna") tpe["preset"] = "optuna";
    if (sampler == "tpe-optuna" && rng.u01() < 0.5) {
      const Json modes[] = {false, true, "auto"};
      tpe["multivariate"] = modes[rng.below(3)];
    }
    // Few startup trials, so that small runs reach the model.
    if (rng.u01() < 0.7) tpe["n_startup_trials"] = rng.below(8);
    if (!tpe.empty()) s["tpe"] = tpe;
  } else {
    s["sampler"] = sampler;
  }
  if (sampler == "ga" && rng.u01() < 0.7) {
    const std::size_t population = 1 + rng.below(16);
    s["ga"] = {{"population", population}, {"elite", rng.below(std::min<std::size_t>(population, 3) + 1)}};
  }
  return s;
}

}  // namespace

RandomConfig random_study_config(std::uint64_t seed) {
  static const std::vector<ConformanceCase> cases = conformance_cases();
  static const char* const kSamplers[] = {"random", "grid", "ga", "tpe-batch", "tpe-optuna"};
  Rng rng(seed);
  const ConformanceCase& c = cases[rng.below(cases.size())];
  const std::string sampler = kSamplers[rng.below(std::size(kSamplers))];
  const bool grid = sampler == "grid";

  Json config = c.config;
  config["search"] = search_of(rng, sampler);
  // Params: each slot a random shape; a grid searches at most 3 of them, the rest fixed.
  Json params = Json::object();
  std::size_t searched = 0;
  for (const Slot& s : slots_of(c, rng)) {
    Json spec = param_spec(rng, s, grid);
    if (grid && !spec.is_number() && ++searched > 3) spec = draw(rng, s.low, s.high, s.integer);
    params[s.name] = spec;
  }
  config["params"] = params;
  if (c.entry->subsets && config.contains("data") && rng.u01() < 0.15) config["data"]["holdout"] = 0.2;
  return {c.label + " | " + sampler, config};
}

}  // namespace tpeopt::testing
