#include "config/study_config.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>

#include "common/error.hpp"
#include "config/ga_config.hpp"
#include "config/given_params.hpp"
#include "io/config_errors.hpp"
#include "io/csv_rows.hpp"
#include "tpe/grid_sampler.hpp"

namespace tpeopt::io {

namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 53;  // exact in a double; far beyond any run

tpe::Axis parse_values_axis(const std::string& name, const Json& list, const std::string& path) {
  if (!list.is_array() || list.empty()) throw make_error("{}: expected a non-empty list of numbers", path);
  tpe::Axis axis;
  axis.name = name;
  axis.kind = tpe::Axis::Kind::Categorical;
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_number()) throw make_error("{}[{}]: expected a number, got {}", path, i, json_type_name(list[i]));
    const double v = list[i].get<double>();
    if (axis.choice_index(v) != tpe::Axis::npos) throw make_error("{}[{}]: value {} is listed twice", path, i, v);
    axis.choices.push_back(v);
  }
  return axis;
}

tpe::Axis parse_axis(const std::string& name, const Json& spec, const std::string& path) {
  if (spec.is_array()) return parse_values_axis(name, spec, path);
  JsonFields f(spec, path);
  if (f.has("values")) {
    f.reject_unknown({"values"});
    return parse_values_axis(name, f.at("values"), f.key_path("values"));
  }
  const std::string type = f.get_choice("type", {"int", "float", "categorical"});
  tpe::Axis axis;
  axis.name = name;
  if (type == "categorical") {
    f.reject_unknown({"type", "choices"});
    const Json& choices = f.at("choices");
    const std::string cpath = f.key_path("choices");
    if (!choices.is_array() || choices.empty())
      throw make_error("{}: expected a non-empty list of numbers or of strings", cpath);
    axis.kind = tpe::Axis::Kind::Categorical;
    const bool strings = choices[0].is_string();
    for (std::size_t i = 0; i < choices.size(); ++i) {
      const Json& c = choices[i];
      if (strings ? !c.is_string() : !c.is_number())
        throw make_error("{}[{}]: expected {} like the first choice, got {}", cpath, i,
                         strings ? "a string" : "a number", json_type_name(c));
      if (strings) {
        // Labels are written unquoted into trials.csv: keep them CSV-safe.
        if (c.get<std::string>().find_first_of(",\"\r\n") != std::string::npos)
          throw make_error("{}[{}]: a choice label may not contain a comma, a quote or a line break", cpath, i);
        for (const auto& l : axis.choice_labels)
          if (l == c.get<std::string>()) throw make_error("{}[{}]: choice \"{}\" is listed twice", cpath, i, l);
        axis.choice_labels.push_back(c.get<std::string>());
        axis.choices.push_back(static_cast<double>(i));
      } else {
        if (axis.choice_index(c.get<double>()) != tpe::Axis::npos)
          throw make_error("{}[{}]: choice {} is listed twice", cpath, i, c.get<double>());
        axis.choices.push_back(c.get<double>());
      }
    }
    return axis;
  }
  f.reject_unknown({"type", "low", "high", "step", "log"});
  axis.kind = type == "int" ? tpe::Axis::Kind::Int : tpe::Axis::Kind::Float;
  axis.low = f.get_number("low");
  axis.high = f.get_number("high");
  axis.log = f.get_bool("log", false);
  if (f.has("step")) {
    axis.step = f.get_number("step");
    if (!(axis.step > 0.0)) throw make_error("{}: expected a positive number, got {}", f.key_path("step"), axis.step);
  } else if (axis.kind == tpe::Axis::Kind::Int) {
    axis.step = 1.0;
  }
  return axis;
}

HoldoutConfig parse_holdout(const Json& spec) {
  const std::string path = "data.holdout";
  HoldoutConfig h;
  auto check_fraction = [&](double f, const std::string& where) {
    if (!(f > 0.0 && f < 1.0)) throw make_error("{}: expected a fraction in (0, 1), got {}", where, f);
    return f;
  };
  if (spec.is_number()) {
    h.fraction = check_fraction(spec.get<double>(), path);
    return h;
  }
  JsonFields f(spec, path);
  f.reject_unknown({"fraction", "ranges"});
  if (f.has("fraction") == f.has("ranges"))
    throw make_error("{}: give either \"fraction\" (the end of the time span) or \"ranges\" (date ranges)", path);
  if (f.has("fraction")) {
    h.fraction = check_fraction(f.get_number("fraction"), f.key_path("fraction"));
    return h;
  }
  const Json& list = f.at("ranges");
  const std::string lpath = f.key_path("ranges");
  if (!list.is_array() || list.empty())
    throw make_error("{}: expected a non-empty list of [\"YYYY-MM-DD\", \"YYYY-MM-DD\"] pairs", lpath);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string ipath = fmt::format("{}[{}]", lpath, i);
    const Json& r = list[i];
    if (!r.is_array() || r.size() != 2 || !r[0].is_string() || !r[1].is_string())
      throw make_error("{}: expected a pair of dates [\"YYYY-MM-DD\", \"YYYY-MM-DD\"]", ipath);
    const std::int64_t from = parse_date_days(r[0].get<std::string>(), ipath + "[0]");
    const std::int64_t to = parse_date_days(r[1].get<std::string>(), ipath + "[1]");
    if (to < from) throw make_error("{}: the range ends before it starts", ipath);
    h.ranges.emplace_back(from * 86400, (to + 1) * 86400);
    h.range_text.emplace_back(r[0].get<std::string>(), r[1].get<std::string>());
  }
  return h;
}

WalkForwardConfig parse_walk_forward(const Json& spec) {
  WalkForwardConfig w;
  if (spec.is_number_integer()) {
    const auto k = spec.get<std::int64_t>();
    if (k < 1 || k > 1000) throw make_error("data.walk_forward: expected a number of folds in [1, 1000], got {}", k);
    w.folds = static_cast<std::uint64_t>(k);
    return w;
  }
  JsonFields f(spec, "data.walk_forward");
  f.reject_unknown({"folds", "fold"});
  w.folds = static_cast<std::uint64_t>(f.get_int("folds", std::nullopt, 1, 1000));
  // "fold" is written by tpeopt into each fold's run directory.
  w.fold = f.get_int("fold", -1, -1, static_cast<std::int64_t>(w.folds) - 1);
  return w;
}

// objective.across_folds, with objective.q (quantile) and objective.lambda (mean_minus_std).
strategies::AcrossFolds parse_across_folds(const JsonFields& o, const FoldsConfig& folds) {
  using Rule = strategies::AcrossFolds::Rule;
  strategies::AcrossFolds a;
  const std::string rule = o.get_choice("across_folds", {"all", "mean", "min", "quantile", "mean_minus_std"}, "all");
  for (Rule r : {Rule::All, Rule::Mean, Rule::Min, Rule::Quantile, Rule::MeanMinusStd})
    if (rule == strategies::across_folds_name(r)) a.rule = r;
  if (a.rule != Rule::All && !folds.enabled())
    throw make_error("objective.across_folds: \"{}\" needs data.folds (the folds it scores over)", rule);
  if (o.has("q")) {
    if (a.rule != Rule::Quantile) throw make_error("objective.q: only with objective.across_folds \"quantile\"");
    a.q = o.get_number("q");
    if (!(a.q >= 0.0 && a.q <= 1.0)) throw make_error("objective.q: expected a number in [0, 1], got {}", a.q);
  }
  if (o.has("lambda")) {
    if (a.rule != Rule::MeanMinusStd)
      throw make_error("objective.lambda: only with objective.across_folds \"mean_minus_std\"");
    a.lambda = o.get_number("lambda");
    if (!(a.lambda >= 0.0 && std::isfinite(a.lambda)))
      throw make_error("objective.lambda: expected a finite number >= 0, got {}", a.lambda);
  }
  return a;
}

HalvingConfig parse_halving(const Json& spec) {
  HalvingConfig h;
  if (spec.is_boolean()) {
    h.enabled = spec.get<bool>();
    return h;
  }
  JsonFields f(spec, "search.halving");
  f.reject_unknown({"enabled", "eta", "min_slices", "slices"});
  h.enabled = f.get_bool("enabled", true);
  h.eta = static_cast<std::uint64_t>(f.get_int("eta", 3, 2, 1 << 20));
  h.min_slices = static_cast<std::uint64_t>(f.get_int("min_slices", 1, 1, 1 << 30));
  h.slices = static_cast<std::uint64_t>(f.get_int("slices", 0, 0, 1 << 30));
  return h;
}

// search.tpe.multivariate: true, false or "auto" (tpe::Multivariate).
tpe::Multivariate parse_multivariate(const JsonFields& t, tpe::Multivariate fallback) {
  if (!t.has("multivariate")) return fallback;
  const Json& v = t.at("multivariate");
  if (v.is_boolean()) return v.get<bool>() ? tpe::Multivariate::On : tpe::Multivariate::Off;
  if (v.is_string() && v.get<std::string>() == "auto") return tpe::Multivariate::Auto;
  throw make_error("{}: expected true, false or \"auto\", got {}", t.key_path("multivariate"),
                   v.is_string() ? "\"" + v.get<std::string>() + "\"" : json_type_name(v));
}

// The names of tpe::ProposalOperator's values, in their order.
const char* const kOperatorNames[] = {"joint", "marginal", "recombine", "evolve"};

Json operators_json(const std::array<bool, tpe::kOperators>& used) {
  const auto& names = kOperatorNames;
  Json out = Json::array();
  for (std::size_t o = 0; o < tpe::kOperators; ++o)
    if (used[o]) out.push_back(names[o]);
  return out;
}

// search.tpe.operators: a list of distinct names among joint, marginal, recombine, evolve.
std::array<bool, tpe::kOperators> parse_operators(const Json& list, const std::string& key) {
  const auto& names = kOperatorNames;
  if (!list.is_array() || list.empty())
    throw make_error("{}: expected a list of operators among \"joint\", \"marginal\", \"recombine\", \"evolve\"", key);
  std::array<bool, tpe::kOperators> used{};
  for (const auto& item : list) {
    const auto name = item.is_string() ? item.get<std::string>() : item.dump();
    const auto it = std::find(std::begin(names), std::end(names), name);
    if (it == std::end(names))
      throw make_error("{}: \"{}\" is not one of: joint, marginal, recombine, evolve", key, name);
    if (used[static_cast<std::size_t>(it - std::begin(names))])
      throw make_error("{}: \"{}\" is listed twice", key, name);
    used[static_cast<std::size_t>(it - std::begin(names))] = true;
  }
  return used;
}

// search.tpe: the preset picks the sampler (tpe/tpe_sampler.hpp); each preset takes its own
// keys, and a key of the other preset is an error that says which preset it belongs to.
tpe::TpeConfig parse_tpe_config(const Json& json) {
  JsonFields t(json, "search.tpe");
  const std::vector<std::string> batch_only = {"good_fraction",        "min_good", "min_share", "operators",
                                               "joint_success_target", "distinct"};
  const std::vector<std::string> optuna_only = {"multivariate",        "multivariate_budget", "prior_weight",
                                                "consider_magic_clip", "consider_endpoints",  "acquisition"};
  t.reject_unknown({"preset", "n_startup_trials", "n_ei_candidates", "threads", "good_fraction", "min_good",
                    "min_share", "operators", "multivariate", "multivariate_budget", "prior_weight",
                    "consider_magic_clip", "consider_endpoints", "acquisition", "joint_success_target", "distinct"});
  tpe::TpeConfig tpe;
  tpe.preset =
      t.get_choice("preset", {"batch", "optuna"}, "batch") == "optuna" ? tpe::Preset::Optuna : tpe::Preset::Batch;
  const bool optuna = tpe.preset == tpe::Preset::Optuna;
  tpe.threads_listed = t.has("threads");
  for (const auto& key : optuna ? batch_only : optuna_only)
    if (t.has(key))
      throw make_error("{}: only with \"preset\": \"{}\" (this study's preset is \"{}\")", t.key_path(key),
                       optuna ? "batch" : "optuna", optuna ? "optuna" : "batch");
  if (!optuna) {
    auto& b = tpe.batch;
    b.n_startup_trials = static_cast<int>(t.get_int("n_startup_trials", b.n_startup_trials, 0, 1 << 30));
    b.candidates = static_cast<int>(t.get_int("n_ei_candidates", b.candidates, 1, 1024));
    b.good_fraction = t.get_number("good_fraction", b.good_fraction);
    b.min_good = static_cast<int>(t.get_int("min_good", b.min_good, 2, 1 << 20));
    b.min_share = t.get_number("min_share", b.min_share);
    b.joint_success_target = t.get_number("joint_success_target", b.joint_success_target);
    b.distinct = t.get_bool("distinct", b.distinct);
    b.threads = static_cast<unsigned>(t.get_int("threads", b.threads, 0, 1024));
    if (t.has("operators")) {
      b.operators = parse_operators(json.at("operators"), t.key_path("operators"));
      b.operators_listed = true;
    }
    tpe::validate(b);
    return tpe;
  }
  tpe.n_startup_trials = static_cast<int>(t.get_int("n_startup_trials", tpe.n_startup_trials, 0, 1 << 30));
  tpe.n_ei_candidates = static_cast<int>(t.get_int("n_ei_candidates", tpe.n_ei_candidates, 1, 1 << 20));
  tpe.multivariate = parse_multivariate(t, tpe.multivariate);
  if (t.has("multivariate_budget")) {
    if (tpe.multivariate != tpe::Multivariate::Auto)
      throw make_error("search.tpe.multivariate_budget: only used with \"multivariate\": \"auto\" (it is {})",
                       tpe.multivariate == tpe::Multivariate::On ? "true" : "false");
    tpe.multivariate_budget =
        static_cast<std::uint64_t>(t.get_int("multivariate_budget", std::nullopt, 0, std::int64_t{1} << 50));
  }
  tpe.prior_weight = t.get_number("prior_weight", tpe.prior_weight);
  if (!(tpe.prior_weight > 0.0))
    throw make_error("search.tpe.prior_weight: expected a positive number, got {}", tpe.prior_weight);
  tpe.consider_magic_clip = t.get_bool("consider_magic_clip", tpe.consider_magic_clip);
  tpe.consider_endpoints = t.get_bool("consider_endpoints", tpe.consider_endpoints);
  tpe.threads = static_cast<unsigned>(t.get_int("threads", tpe.threads, 0, 1024));
  tpe.acquisition = t.get_choice("acquisition", {"fast", "exact"}, "fast") == "exact" ? tpe::Acquisition::Exact
                                                                                      : tpe::Acquisition::Fast;
  return tpe;
}

Json multivariate_json(tpe::Multivariate m) {
  switch (m) {
    case tpe::Multivariate::Off:
      return false;
    case tpe::Multivariate::On:
      return true;
    case tpe::Multivariate::Auto:
      break;
  }
  return "auto";
}

}  // namespace

std::int64_t parse_date_days(const std::string& text, const std::string& path) {
  // csv_rows' parse_date also reads MM/DD/YYYY: the config takes the ISO form only.
  const bool iso = text.size() == 10 && text[4] == '-' && text[7] == '-';
  std::int64_t days = 0;
  if (!iso || !parse_date(text, days)) {
    const bool digits_in_place =
        iso && std::all_of(text.begin(), text.end(), [](char c) { return c == '-' || (c >= '0' && c <= '9'); });
    if (!digits_in_place) throw make_error("{}: \"{}\" is not a date YYYY-MM-DD", path, text);
    throw make_error("{}: \"{}\" is not a date of the calendar (years 1900 to 2200)", path, text);
  }
  return days;
}

namespace {

struct TextPosition {
  std::size_t line = 1, column = 1;
};

/// Every key of `text` (valid JSON) that repeats a key of the same object, with where it and
/// the first one are. nlohmann keeps the last of equal keys silently; a config that says a
/// thing twice is ambiguous, so it is refused.
std::vector<std::string> duplicate_keys(const std::string& text, const std::string& source) {
  struct Frame {
    bool object = false, expect_key = false;
    std::map<std::string, TextPosition> keys;
  };
  std::vector<Frame> stack;
  std::vector<std::string> found;
  TextPosition at;
  auto advance = [&](char c) {
    if (c == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '"') {
      const TextPosition start = at;
      std::size_t end = i + 1;
      while (end < text.size() && text[end] != '"') end += text[end] == '\\' ? 2 : 1;
      end = std::min(end + 1, text.size());
      if (!stack.empty() && stack.back().object && stack.back().expect_key) {
        // The key as decoded (escapes resolved), as nlohmann compares keys; most have none.
        const std::string raw = text.substr(i + 1, end - i - 2);
        const std::string key =
            raw.find('\\') == std::string::npos ? raw : Json::parse(text.substr(i, end - i)).get<std::string>();
        auto [it, inserted] = stack.back().keys.emplace(key, start);
        if (!inserted)
          found.push_back(
              fmt::format("{}:{}:{}: duplicate key \"{}\" (first at line {}, column {}); a key may appear "
                          "once in an object",
                          source, start.line, start.column, key, it->second.line, it->second.column));
        stack.back().expect_key = false;
      }
      for (; i < end; ++i) advance(text[i]);
      continue;
    }
    if (c == '{') stack.push_back({true, true, {}});
    else if (c == '[') stack.push_back({false, false, {}});
    else if ((c == '}' || c == ']') && !stack.empty()) stack.pop_back();
    else if (c == ',' && !stack.empty() && stack.back().object) stack.back().expect_key = true;
    advance(c);
    ++i;
  }
  return found;
}

}  // namespace

Json parse_json_text(const std::string& text, const std::string& source) {
  try {
    Json json = Json::parse(text);
    if (const auto duplicates = duplicate_keys(text, source); !duplicates.empty()) {
      if (duplicates.size() == 1) throw Error(duplicates.front());
      std::string message = fmt::format("{}: {} duplicate keys:", source, duplicates.size());
      for (const auto& d : duplicates) message += "\n  " + d;
      throw Error(message);
    }
    return json;
  } catch (const Json::parse_error& e) {
    // nlohmann reports a byte offset; users want line and column.
    std::size_t line = 1, column = 1;
    const std::size_t end = std::min<std::size_t>(e.byte > 0 ? e.byte - 1 : 0, text.size());
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string what = e.what();
    if (auto p = what.find("parse error"); p != std::string::npos) what = what.substr(p);
    throw make_error("{}:{}:{}: invalid JSON: {}", source, line, column, what);
  } catch (const Json::exception& e) {
    // e.g. a number too large for any JSON number type (out_of_range.406)
    throw make_error("{}: invalid JSON: {}", source, e.what());
  }
}

StudyConfig load_study_config(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw make_error("{}: cannot open the config file", path.string());
  std::stringstream text;
  text << in.rdbuf();
  const Json json = parse_json_text(text.str(), path.string());
  // A config named without a folder ("study.json") lives in the current one.
  const std::filesystem::path folder = path.parent_path();
  return parse_study_config(json, path.string(), folder.empty() ? std::filesystem::path(".") : folder);
}

namespace {

/// One entry of `params`: a fixed number, or an axis (checked on its own: low <= high, a
/// step that divides the range, a log range above 0, ...). Returns the parameter as the
/// strategy's domain check reads it, with the key of each value written.
strategies::GivenParam parse_param(StudyConfig& c, const std::string& name, const Json& spec, const std::string& path) {
  if (spec.is_number()) {
    const double v = spec.get<double>();
    if (!std::isfinite(v)) throw make_error("{}: expected a finite number", path);
    c.fixed[name] = v;
    return given_fixed(name, v);
  }
  if (!spec.is_object() && !spec.is_array())
    throw make_error("{}: expected a number, a list of values or an object with \"type\", got {}", path,
                     json_type_name(spec));
  tpe::Axis axis = parse_axis(name, spec, path);
  tpe::SearchSpace{{axis}}.validate();
  const std::string list_key =
      spec.is_array() ? path : (spec.contains("values") ? path + ".values" : path + ".choices");
  strategies::GivenParam given = given_param(axis, list_key);
  c.space.axes.push_back(std::move(axis));
  return given;
}

}  // namespace

StudyConfig parse_study_config(const Json& json, const std::string& source, const std::filesystem::path& base_dir) {
  StudyConfig c;
  c.source = source;
  c.base_dir = base_dir;
  // Every error of the file is collected and reported in one message: each part that does
  // not depend on another is checked in its own errors.check.
  ConfigErrors errors;
  try {
    JsonFields root(json, "");
    errors.check([&] {
      c.strategy = root.get_string("strategy");
      c.entry = &strategies::registry().at(c.strategy);
    });
    const strategies::StrategyEntry* entry = c.entry;  // null: the strategy is refused (its keys are not known)
    if (entry) {
      std::vector<std::string> allowed = {"strategy", "data",     "objective",  "search",
                                          "params",   "executor", "description"};
      allowed.insert(allowed.end(), entry->root_keys.begin(), entry->root_keys.end());
      root.reject_unknown(allowed, &errors);
    }
    errors.check([&] { c.executor = root.get_choice("executor", {"auto", "cpu", "cuda"}, "auto"); });

    // data: the strategy's, without the engine's subsets
    Json data;
    bool data_ok = false;
    if (entry && !entry->reads_data) {
      if (root.has("data")) errors.add(fmt::format("data: strategy {} reads no data; remove this key", c.strategy));
    } else if (entry && !root.has("data")) {
      errors.add(fmt::format("data: missing (required by strategy {})", c.strategy));
    } else if (root.has("data")) {
      data_ok =
          errors.check([&] { JsonFields fields(root.at("data"), "data"); });  // an object; the strategy checks its keys
      if (data_ok) {
        data = root.at("data");
        // Data subsets (docs/strategies.md, "Data subsets") are the engine's, not the strategy's.
        if (data.contains("holdout")) {
          errors.check([&] { c.holdout = parse_holdout(data.at("holdout")); });
          data.erase("holdout");
        }
        if (data.contains("walk_forward")) {
          errors.check([&] {
            c.walk_forward = parse_walk_forward(data.at("walk_forward"));
            if (c.holdout.enabled())
              throw make_error("data.walk_forward: use either data.holdout or data.walk_forward, not both");
          });
          data.erase("walk_forward");
        }
        if (data.contains("folds"))
          errors.check([&] {
            JsonFields d(data, "data");
            c.folds.folds = static_cast<std::uint64_t>(d.get_int("folds", std::nullopt, 2, strategies::kMaxFolds));
          });
        if (data.contains("embargo"))
          errors.check([&] {
            JsonFields d(data, "data");
            c.folds.embargo = static_cast<std::uint64_t>(d.get_int("embargo", std::nullopt, 0, kMaxCount));
            if (!data.contains("folds")) throw make_error("data.embargo: needs data.folds (the folds it separates)");
          });
        data.erase("folds");
        data.erase("embargo");
      }
    }

    // objective
    if (entry) {
      c.objective.name = entry->default_objective;
      c.objective.direction = entry->default_maximize ? tpe::Direction::Maximize : tpe::Direction::Minimize;
    }
    if (root.has("objective") && errors.check([&] { JsonFields o(root.at("objective"), "objective"); })) {
      JsonFields o(root.at("objective"), "objective");
      std::vector<std::string> keys = {"name", "direction", "min_trades", "aggregate", "across_folds", "q", "lambda"};
      if (entry) keys.insert(keys.end(), entry->objective_keys.begin(), entry->objective_keys.end());
      o.reject_unknown(keys, &errors);
      errors.check([&] { c.objective.name = o.get_string("name", c.objective.name); });
      errors.check([&] {
        const bool maximize = !entry || entry->default_maximize;
        c.objective.direction =
            o.get_choice("direction", {"minimize", "maximize"}, maximize ? "maximize" : "minimize") == "minimize"
                ? tpe::Direction::Minimize
                : tpe::Direction::Maximize;
      });
      if (o.has("min_trades"))
        errors.check([&] {
          c.objective.min_trades = o.get_int("min_trades", std::nullopt, 0, kMaxCount);
          c.objective.min_trades_set = true;
        });
      if (o.has("aggregate"))
        errors.check([&] {
          c.objective.aggregate = o.get_choice("aggregate", {"sum", "mean", "worst", "portfolio"});
          if (entry && !entry->symbols)
            throw make_error("objective.aggregate: strategy {} has no symbols to aggregate", c.strategy);
        });
    }

    if (root.has("objective") && root.at("objective").is_object())
      errors.check(
          [&] { c.folds.across = parse_across_folds(JsonFields(root.at("objective"), "objective"), c.folds); });

    // search
    if (root.has("search") && errors.check([&] { JsonFields s(root.at("search"), "search"); })) {
      JsonFields s(root.at("search"), "search");
      s.reject_unknown({"sampler", "trials", "batch", "depth", "seed", "top_k", "tpe", "ga", "halving"}, &errors);
      errors.check([&] { c.search.sampler = s.get_choice("sampler", {"tpe", "random", "grid", "ga"}, "tpe"); });
      errors.check([&] { c.search.trials = static_cast<std::uint64_t>(s.get_int("trials", 1000, 1, kMaxCount)); });
      errors.check([&] { c.search.batch = static_cast<std::uint64_t>(s.get_int("batch", 256, 1, 1 << 26)); });
      errors.check([&] { c.search.depth = static_cast<std::uint64_t>(s.get_int("depth", 2, 1, 64)); });
      errors.check([&] { c.search.seed = static_cast<std::uint64_t>(s.get_int("seed", 0, 0, kMaxCount)); });
      errors.check([&] { c.search.top_k = static_cast<std::uint64_t>(s.get_int("top_k", 10, 0, 1 << 20)); });
      if (s.has("tpe")) errors.check([&] { c.search.tpe = parse_tpe_config(s.at("tpe")); });
      if (s.has("ga")) errors.check([&] { c.search.ga = parse_ga_config(s.at("ga")); });
      if (s.has("halving"))
        errors.check([&] {
          c.search.halving = parse_halving(s.at("halving"));
          if (c.search.halving.enabled && c.folds.enabled())
            throw make_error(
                "search.halving: cannot be combined with data.folds (the folds score the whole in-sample span)");
        });
    }

    // params: each one on its own, then all of them against the strategy's domains
    if (!root.has("params")) {
      errors.add("params: missing (required)");
    } else if (errors.check([&] { JsonFields params(root.at("params"), "params"); })) {
      if (root.at("params").empty()) errors.add("params: expected at least one parameter");
      std::vector<strategies::GivenParam> given;
      for (const auto& item : root.at("params").items()) {
        // Named copies, not structured bindings: a lambda may capture a structured binding
        // only from C++20 compilers that implement P1091 (Clang 16), and Debian's Clang is 14.
        const std::string name = item.key();
        const Json& spec = item.value();
        c.param_order.push_back(name);
        const std::string path = "params." + name;
        if (!errors.check([&] { given.push_back(parse_param(c, name, spec, path)); }))
          given.push_back({name, 0.0, 0.0, {}});  // given, but refused already: no domain check
      }
      if (entry && !entry->params_from_config) strategies::check_given_params(entry->params, given, c.strategy, errors);
      if (c.search.sampler == "grid")
        for (const auto& a : c.space.axes)
          if (tpe::grid_points(a) == 0) errors.add(tpe::grid_axis_error(a));
    }

    // the strategy's own part: its data, its objective names, root keys of its own
    if (entry) {
      const strategies::ObjectiveInput objective{c.objective.name, c.objective.direction == tpe::Direction::Maximize,
                                                 c.objective.min_trades, c.objective.min_trades_set,
                                                 c.objective.aggregate};
      const bool with_data = entry->reads_data && data_ok;
      errors.check([&] {
        c.settings = entry->parse(strategies::SettingsInput{root, with_data ? &data : nullptr, objective, errors});
      });
    }
  } catch (const Error& e) {
    throw Error(source + ": " + e.what());
  } catch (const Json::exception& e) {
    throw make_error("{}: invalid config: {}", source, e.what());
  }
  errors.throw_if_any(source);
  return c;
}

void apply_overrides(StudyConfig& c, const ConfigOverrides& o, const std::string& prefix) {
  if (o.trials) {
    if (*o.trials == 0) throw make_error("{}trials: must be at least 1", prefix);
    c.search.trials = *o.trials;
  }
  if (o.batch) {
    if (*o.batch == 0) throw make_error("{}batch: must be at least 1", prefix);
    c.search.batch = *o.batch;
  }
  if (o.depth) {
    if (*o.depth == 0) throw make_error("{}depth: must be at least 1", prefix);
    c.search.depth = *o.depth;
  }
  if (o.seed) c.search.seed = *o.seed;
  if (!o.executor.empty()) {
    if (o.executor != "cpu" && o.executor != "cuda" && o.executor != "auto")
      throw make_error("{}executor: \"{}\" is not one of: cpu, cuda, auto", prefix, o.executor);
    c.executor = o.executor;
  }
}

Json StudyConfig::resolved() const {
  Json j = Json::object();
  j["strategy"] = strategy;
  const Json own = settings->root_json();
  for (const auto& [key, value] : own.items()) j[key] = value;
  if (const Json data = settings->data_json(); !data.empty()) j["data"] = data;
  // Subsets are written only when used: other runs' resolved configs (and digests) stay as they were.
  if (holdout.fraction > 0.0) j["data"]["holdout"] = {{"fraction", holdout.fraction}};
  if (!holdout.ranges.empty()) {
    Json r = Json::array();
    for (const auto& [from, to] : holdout.range_text) r.push_back({from, to});
    j["data"]["holdout"] = {{"ranges", r}};
  }
  if (folds.enabled()) {
    j["data"]["folds"] = folds.folds;
    j["data"]["embargo"] = folds.embargo;
  }
  if (walk_forward.enabled()) {
    j["data"]["walk_forward"] = {{"folds", walk_forward.folds}};
    if (walk_forward.fold >= 0) j["data"]["walk_forward"]["fold"] = walk_forward.fold;
  }
  j["executor"] = executor;
  j["objective"] = {{"name", objective.name},
                    {"direction", objective.direction == tpe::Direction::Minimize ? "minimize" : "maximize"}};
  if (objective.min_trades_set) j["objective"]["min_trades"] = objective.min_trades;
  if (!objective.aggregate.empty()) j["objective"]["aggregate"] = objective.aggregate;
  const Json own_objective = settings->objective_json();
  for (const auto& [key, value] : own_objective.items()) j["objective"][key] = value;
  if (folds.enabled()) {
    j["objective"]["across_folds"] = strategies::across_folds_name(folds.across.rule);
    if (folds.across.rule == strategies::AcrossFolds::Rule::Quantile) j["objective"]["q"] = folds.across.q;
    if (folds.across.rule == strategies::AcrossFolds::Rule::MeanMinusStd)
      j["objective"]["lambda"] = folds.across.lambda;
  }
  const auto& t = search.tpe;
  j["search"] = {{"sampler", search.sampler}, {"trials", search.trials}, {"batch", search.batch},
                 {"depth", search.depth},     {"seed", search.seed},     {"top_k", search.top_k}};
  if (t.preset == tpe::Preset::Batch) {
    const auto& b = t.batch;
    j["search"]["tpe"] = {{"preset", "batch"},
                          {"n_startup_trials", b.n_startup_trials},
                          {"n_ei_candidates", b.candidates},
                          {"good_fraction", b.good_fraction},
                          {"min_good", b.min_good},
                          {"min_share", b.min_share}};
    // Written only when listed, as a study that leaves it out gets its workers from where it
    // runs (engine::make_sampler); the threads of a run made before stay in its config.json.
    if (t.threads_listed) j["search"]["tpe"]["threads"] = b.threads;
    // Written only when listed: the default set leaves evolve out of a space without a
    // numeric axis, which a listed "evolve" refuses.
    if (b.operators_listed) j["search"]["tpe"]["operators"] = operators_json(b.operators);
    // Written only when set: a run made before the key existed keeps its config digest.
    if (b.joint_success_target > 0.0) j["search"]["tpe"]["joint_success_target"] = b.joint_success_target;
    // Written only when off: the draws of such a run are those of sampler draws version 8.
    if (!b.distinct) j["search"]["tpe"]["distinct"] = false;
  } else {
    j["search"]["tpe"] = {{"preset", "optuna"},
                          {"n_startup_trials", t.n_startup_trials},
                          {"n_ei_candidates", t.n_ei_candidates},
                          {"multivariate", multivariate_json(t.multivariate)},
                          {"prior_weight", t.prior_weight},
                          {"consider_magic_clip", t.consider_magic_clip},
                          {"consider_endpoints", t.consider_endpoints}};
    // threads before acquisition, where a run made before wrote it: the resolved config is
    // ordered JSON, and its digest is what resume compares.
    if (t.threads_listed) j["search"]["tpe"]["threads"] = t.threads;
    j["search"]["tpe"]["acquisition"] = t.acquisition == tpe::Acquisition::Exact ? "exact" : "fast";
    // Only "auto" writes its budget: the resolved configs of true and false (and so the config
    // digests of runs made before "auto" existed, which resume checks) stay as they were.
    if (t.multivariate == tpe::Multivariate::Auto) j["search"]["tpe"]["multivariate_budget"] = t.multivariate_budget;
  }
  // Only a GA study writes its settings: other samplers' resolved configs (and so the config
  // digests of their existing runs, which resume checks) stay as they were.
  if (search.sampler == "ga") j["search"]["ga"] = ga_config_json(search.ga, space);
  if (search.halving.enabled)
    j["search"]["halving"] = {{"eta", search.halving.eta},
                              {"min_slices", search.halving.min_slices},
                              {"slices", search.halving.slices}};
  Json p = Json::object();
  for (const auto& name : param_order) {
    if (auto it = fixed.find(name); it != fixed.end()) {
      p[name] = it->second;
      continue;
    }
    const auto& a = space.axes[space.find(name)];
    if (a.kind == tpe::Axis::Kind::Categorical) {
      if (a.choice_labels.empty()) p[name] = {{"values", a.choices}};
      else p[name] = {{"type", "categorical"}, {"choices", a.choice_labels}};
    } else {
      Json ax = {{"type", a.kind == tpe::Axis::Kind::Int ? "int" : "float"}, {"low", a.low}, {"high", a.high}};
      if (a.step > 0.0) ax["step"] = a.step;
      if (a.log) ax["log"] = true;
      p[name] = ax;
    }
  }
  j["params"] = p;
  return j;
}

}  // namespace tpeopt::io
