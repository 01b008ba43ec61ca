#include "config/ga_config.hpp"

#include "common/error.hpp"

namespace tpeopt::io {

namespace {

// A number in [low, high] under `key`, naming the key when it is not.
double get_in_range(const JsonFields& fields, const char* key, double fallback, double low, double high,
                    const char* what) {
  const double v = fields.get_number(key, fallback);
  if (!(v >= low && v <= high)) throw make_error("{}: expected {}, got {}", fields.key_path(key), what, v);
  return v;
}

}  // namespace

tpe::GaConfig parse_ga_config(const Json& object) {
  JsonFields g(object, "search.ga");
  g.reject_unknown({"population", "elite", "tournament", "crossover", "crossover_rate", "blend_alpha", "mutation_rate",
                    "mutation_scale"});
  tpe::GaConfig c;
  const auto count = [&](const char* key, std::uint64_t fallback, std::int64_t low, std::int64_t high) {
    return static_cast<std::uint64_t>(g.get_int(key, static_cast<std::int64_t>(fallback), low, high));
  };
  c.population = count("population", c.population, 1, std::int64_t{1} << 20);
  c.elite = count("elite", c.elite, 0, std::int64_t{1} << 20);
  if (c.elite > c.population)
    throw make_error("search.ga.elite: expected at most search.ga.population ({}), got {}", c.population, c.elite);
  c.tournament = count("tournament", c.tournament, 1, 1024);
  const std::string default_crossover = c.crossover == tpe::Crossover::Blend ? "blend" : "uniform";
  c.crossover = g.get_choice("crossover", {"uniform", "blend"}, default_crossover) == "blend" ? tpe::Crossover::Blend
                                                                                              : tpe::Crossover::Uniform;
  c.crossover_rate = get_in_range(g, "crossover_rate", c.crossover_rate, 0.0, 1.0, "a probability in [0, 1]");
  c.blend_alpha = get_in_range(g, "blend_alpha", c.blend_alpha, 0.0, 10.0, "a number in [0, 10]");
  if (g.has("mutation_rate"))
    c.mutation_rate = get_in_range(g, "mutation_rate", 0.0, 0.0, 1.0, "a probability in [0, 1]");
  c.mutation_scale = get_in_range(g, "mutation_scale", c.mutation_scale, 0.0, 10.0, "a number in (0, 10]");
  if (c.mutation_scale == 0.0) throw make_error("search.ga.mutation_scale: expected a number in (0, 10], got 0");
  tpe::validate(c);  // the sampler's own checks, so that the two can never disagree
  return c;
}

Json ga_config_json(const tpe::GaConfig& c, const tpe::SearchSpace& space) {
  return {{"population", c.population},
          {"elite", c.elite},
          {"tournament", c.tournament},
          {"crossover", c.crossover == tpe::Crossover::Blend ? "blend" : "uniform"},
          {"crossover_rate", c.crossover_rate},
          {"blend_alpha", c.blend_alpha},
          {"mutation_rate", tpe::effective_mutation_rate(c, space)},
          {"mutation_scale", c.mutation_scale}};
}

}  // namespace tpeopt::io
