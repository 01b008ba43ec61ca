// _tpeopt: the C++ library under the tpeopt Python package (python/tpeopt). Thin: each
// function builds what the command line builds (io/, engine/) and runs it with the GIL
// released; the Python layer turns the results into pandas objects.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <fmt/format.h>

#include "common/error.hpp"
#include "common/host_memory.hpp"
#include "config/study_config.hpp"
#include "objective_executor.hpp"
#include "storage/grid_run.hpp"
#include "storage/recorded_study.hpp"
#include "storage/run_directory.hpp"
#include "strategies/registry.hpp"
#include "strategies/symbol_strategy.hpp"
#include "study/backtest.hpp"
#include "study/data_subsets.hpp"
#include "study/memory_check.hpp"
#include "study/study.hpp"
#include "study/verify.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace tpeopt::python {

namespace {

using Config = io::StudyConfig;

/// An ostream buffer that hands each flushed piece of text to a Python callable (the
/// progress writer of tpeopt/_progress.py), taking the GIL: the engine's per-batch lines
/// and progress line then reach sys.stderr, a notebook's output included.
class PythonWriterBuf final : public std::streambuf {
 public:
  explicit PythonWriterBuf(nb::object writer) : writer_(std::move(writer)) {}
  ~PythonWriterBuf() override { sync(); }

 protected:
  int_type overflow(int_type ch) override {
    if (ch != traits_type::eof()) text_ += static_cast<char>(ch);
    return ch;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    text_.append(s, static_cast<std::size_t>(n));
    return n;
  }
  int sync() override {
    if (text_.empty()) return 0;
    nb::gil_scoped_acquire gil;
    try {
      writer_(text_);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("tpeopt progress writer");
    }
    text_.clear();
    return 0;
  }

 private:
  nb::object writer_;
  std::string text_;
};

/// How a call runs: the keywords tpeopt.run / resume / optimize share.
struct CallOptions {
  bool serial = false;
  unsigned threads = 0;
  int block_size = 128;
  std::string devices;
  nb::object writer;  ///< None: quiet
  bool progress_line = false;
  bool handle_signals = false;
  nb::object adapter;  ///< a Python objective's adapter (strategy python_objective), else None
};

bool scored_by_caller(const Config& c) { return !c.entry->scored_by_caller.empty(); }

/// An objective function is given exactly when the study's trials need one.
void check_objective(const Config& config, const CallOptions& call) {
  if (scored_by_caller(config) && call.adapter.is_none())
    throw make_error(
        "{}: strategy {}: give the objective function (tpeopt.optimize, or tpeopt.resume(DIR, "
        "objective))",
        config.source, config.strategy);
  if (!scored_by_caller(config) && !call.adapter.is_none())
    throw make_error(
        "{}: objective: strategy {} scores its own trials; an objective function is for a study "
        "tpeopt.optimize made (strategy python_objective)",
        config.source, config.strategy);
}

/// The parts of a call that hold Python objects: built and destroyed with the GIL held.
struct CallState {
  std::unique_ptr<PythonWriterBuf> buf;
  std::unique_ptr<std::ostream> log;
  std::unique_ptr<ObjectiveExecutor> objective;
  engine::RunOptions options;

  explicit CallState(const CallOptions& call) {
    options.serial = call.serial;
    options.cpu_threads = call.threads;
    options.cuda_block_size = call.block_size;
    options.cuda_devices = engine::parse_devices(call.devices);
    if (!call.writer.is_none()) {
      buf = std::make_unique<PythonWriterBuf>(call.writer);
      log = std::make_unique<std::ostream>(buf.get());
      options.log = log.get();
      options.progress_line = call.progress_line;
    }
  }
  /// The executor: the objective's for a study scored by its caller, else the config's.
  void set_executor(const Config& config, const strategies::Strategy& strategy, const CallOptions& call) {
    if (scored_by_caller(config)) {
      objective = std::make_unique<ObjectiveExecutor>(call.adapter, strategy.metric_names().size());
      options.external_executor = objective.get();
      options.executor = objective->name();
    } else {
      options.executor = engine::resolve_executor(config.executor);
    }
  }
  ~CallState() {
    // The log's last text goes out while the GIL is held (the caller holds it here).
    if (log) log->flush();
  }
};

/// The config's strategy with its data loaded (the GIL released), checked for memory as the
/// command line checks it before anything is written; what was loaded goes to the log.
std::unique_ptr<strategies::Strategy> prepare(const Config& config, CallState& state, const CallOptions& call) {
  check_objective(config, call);
  std::unique_ptr<strategies::Strategy> strategy;
  std::uint64_t data_bytes = 0;
  {
    nb::gil_scoped_release release;
    strategy = engine::load_strategy(config, state.options.log, &data_bytes);
  }
  state.set_executor(config, *strategy, call);
  {
    nb::gil_scoped_release release;
    engine::check_data_subsets(*strategy, config);
    engine::check_memory(config, *strategy, state.options, data_bytes, available_host_memory());
  }
  return strategy;
}

nb::dict run_outcome(const Config& config, const engine::StudyRun& run, const std::filesystem::path& dir) {
  nb::dict d;
  d["scored_by_caller"] = scored_by_caller(config);
  d["dir"] = dir.string();
  d["trials"] = run.summary.trials_told;
  d["stopped_early"] = run.summary.stopped_early;
  d["digest"] = run.result.digest_hex();
  d["executor"] = run.executor;
  return d;
}

/// The executor config.json records: the one that ran (as the command line records it), but
/// the config's own for a caller's function, which is not a config value.
std::string recorded_executor(const Config& config, const engine::RunOptions& options) {
  return scored_by_caller(config) ? config.executor : options.executor;
}

engine::ResumeHint resume_hint(const Config& config, const std::filesystem::path& dir) {
  if (scored_by_caller(config)) return {fmt::format("tpeopt.resume({:?}, objective)", dir.string()), ""};
  return {fmt::format("tpeopt.resume({:?}) in Python, or tpeopt resume {}", dir.string(), dir.string()),
          config.executor == "cuda" ? " (executor=\"cpu\" to continue on the CPU)" : ""};
}

Config load_config(std::optional<std::string> path, std::optional<std::string> json_text, const std::string& source,
                   const std::string& base_dir, std::optional<std::uint64_t> trials, std::optional<std::uint64_t> batch,
                   std::optional<std::uint64_t> depth, std::optional<std::uint64_t> seed, const std::string& executor) {
  Config c = path ? io::load_study_config(*path)
                  : io::parse_study_config(io::parse_json_text(json_text.value_or("{}"), source), source, base_dir);
  io::apply_overrides(c, {trials, batch, depth, seed, executor}, "");
  return c;
}

nb::dict run(const Config& config, const std::string& out, const CallOptions& call) {
  if (config.walk_forward.is_parent())
    throw make_error(
        "{}: data.walk_forward: run a walk-forward study with the command line (tpeopt run); open "
        "each fold's run directory with tpeopt.load(DIR/fold-N)",
        config.source);
  CallState state(call);
  const auto strategy = prepare(config, state, call);
  const std::filesystem::path dir = out;
  std::optional<engine::StudyRun> run;
  {
    nb::gil_scoped_release release;
    auto recorder = engine::RunRecorder::create(dir, config, *strategy, recorded_executor(config, state.options));
    run = engine::run_recorded_study(config, *strategy, state.options, *recorder, {}, call.handle_signals,
                                     resume_hint(config, dir));
  }
  return run_outcome(config, *run, dir);
}

nb::dict resume(const std::string& dir_text, const std::string& executor, const CallOptions& call) {
  const std::filesystem::path dir(dir_text);
  Config config = engine::load_run_config(dir);
  if (!executor.empty()) io::apply_overrides(config, {{}, {}, {}, {}, executor}, "");
  if (engine::GridRun::is_grid_run(dir))
    throw make_error("{}: an exact grid: continue it with the command line (tpeopt resume {})", dir_text, dir_text);
  if (config.walk_forward.is_parent())
    throw make_error("{}: a walk-forward study: continue it with the command line (tpeopt resume {})", dir_text,
                     dir_text);
  CallState state(call);
  const auto strategy = prepare(config, state, call);
  std::optional<engine::StudyRun> run;
  {
    nb::gil_scoped_release release;
    std::vector<engine::ReplayedBatch> replay;
    auto recorder =
        engine::RunRecorder::resume(dir, config, *strategy, recorded_executor(config, state.options), replay);
    run = engine::run_recorded_study(config, *strategy, state.options, *recorder, std::move(replay),
                                     call.handle_signals, resume_hint(config, dir));
  }
  return run_outcome(config, *run, dir);
}

nb::dict verify(const Config& config, const CallOptions& call) {
  CallState state(call);
  state.options.keep_trials = true;  // what verify_study keeps: the memory check counts it
  const auto strategy = prepare(config, state, call);
  engine::Verification v;
  {
    nb::gil_scoped_release release;
    v = engine::verify_study(config, *strategy, state.options);
  }
  nb::dict d;
  d["identical"] = v.identical;
  d["trials"] = v.n_trials;
  d["digest"] = v.digest;
  d["serial_digest"] = v.serial_digest;
  d["difference"] = v.difference;
  return d;
}

nb::dict backtest(const Config& config, const nb::dict& params, const std::string& executor, bool with_trades,
                  int block_size) {
  engine::check_scored_by_tpeopt(config);
  std::vector<std::pair<std::string, double>> given;
  for (auto [key, value] : params) {
    const std::string name = nb::cast<std::string>(nb::str(key));
    if (nb::isinstance<nb::str>(value)) {
      // A string categorical's label (as top.json writes it): the value is its choice.
      const std::string label = nb::cast<std::string>(value);
      const std::size_t a = config.space.find(name);
      const auto* axis = a == tpe::Axis::npos ? nullptr : &config.space.axes[a];
      const auto it = axis ? std::find(axis->choice_labels.begin(), axis->choice_labels.end(), label)
                           : std::vector<std::string>::const_iterator{};
      if (!axis || it == axis->choice_labels.end())
        throw make_error("params: {}: \"{}\" is not a choice of a categorical parameter {}", name, label, name);
      given.emplace_back(name, axis->choices[static_cast<std::size_t>(it - axis->choice_labels.begin())]);
      continue;
    }
    if (!nb::isinstance<nb::float_>(value) && !nb::isinstance<nb::int_>(value))
      throw make_error("params: {}: expected a number, got {}", name, nb::cast<std::string>(nb::repr(value)));
    given.emplace_back(name, nb::cast<double>(value));
  }
  const std::string which = engine::resolve_executor(executor);
  std::unique_ptr<strategies::Strategy> strategy;
  std::vector<double> slots;
  engine::Backtest b;
  const bool trades = with_trades && config.entry->trades.available();
  {
    nb::gil_scoped_release release;
    strategy = engine::make_strategy(config);
    io::Json named = io::Json::object();
    for (const auto& [name, value] : given) named[name] = value;
    slots = engine::slots_from_params(named, *strategy, config, "params");
    b = engine::backtest_params(*strategy, slots, which, trades, block_size);
  }
  const auto* sym = dynamic_cast<const strategies::SymbolStrategy*>(strategy.get());
  const auto& metric_names = strategy->metric_names();
  nb::dict p, m;
  for (std::size_t s = 0; s < slots.size(); ++s) p[strategy->param_names()[s].c_str()] = slots[s];
  for (std::size_t k = 0; k < b.metrics.size(); ++k) m[metric_names[k].c_str()] = b.metrics[k];
  nb::dict d;
  d["params"] = p;
  d["score"] = b.score.score;
  d["violation"] = b.score.violation;
  d["metrics"] = m;
  d["executor"] = which;
  d["trades"] = nb::none();
  d["symbols"] = nb::none();
  if (b.trades) {
    // The registry's columns as text (as `tpeopt backtest --trades-out` writes them; the Python
    // side reads the numbers back), a symbol column over several symbols, entry and exit times in ms.
    const auto& columns = config.entry->trades.columns;
    std::vector<std::vector<std::string>> fields(columns.size());
    std::vector<std::string> symbol;
    std::vector<std::int64_t> entry_ms, exit_ms;
    for (std::size_t s = 0; s < b.trades->size(); ++s)
      for (const auto& t : (*b.trades)[s]) {
        if (t.fields.size() != columns.size())
          throw make_error("strategy {}: a trade has {} fields for {} columns", strategy->name(), t.fields.size(),
                           columns.size());
        if (sym) symbol.push_back(sym->symbol_names()[s]);
        for (std::size_t c = 0; c < columns.size(); ++c) fields[c].push_back(t.fields[c]);
        entry_ms.push_back(t.entry_time_ms);
        exit_ms.push_back(t.exit_time_ms);
      }
    nb::dict t;
    if (sym) t["symbol"] = symbol;
    for (std::size_t c = 0; c < columns.size(); ++c) t[columns[c].c_str()] = fields[c];
    t["entry_time"] = entry_ms;
    t["exit_time"] = exit_ms;
    d["trades"] = t;
  }
  if (b.symbols) {
    const auto& r = *b.symbols;
    const std::size_t S = r.objective.size(), M = metric_names.size();
    nb::dict columns;
    columns["symbol"] = sym->symbol_names();
    columns["objective"] = r.objective;
    columns["equity"] = r.equity;
    for (std::size_t k = 0; k < M; ++k) {
      std::vector<double> c(S);
      for (std::size_t i = 0; i < S; ++i) c[i] = r.metrics[i * M + k];
      columns[metric_names[k].c_str()] = c;
    }
    d["symbols"] = columns;
  }
  return d;
}

nb::list axes_of(const Config& c) {
  nb::list out;
  for (const auto& a : c.space.axes) {
    nb::dict d;
    d["name"] = a.name;
    d["kind"] = a.kind == tpe::Axis::Kind::Float ? "float" : a.kind == tpe::Axis::Kind::Int ? "int" : "categorical";
    if (a.kind != tpe::Axis::Kind::Categorical) {
      d["low"] = a.low;
      d["high"] = a.high;
      d["step"] = a.step > 0 ? nb::cast(a.step) : nb::none();
      d["log"] = a.log;
    } else {
      d["choices"] = a.choices;
      d["labels"] = a.choice_labels.empty() ? nb::none() : nb::cast(a.choice_labels);
    }
    out.append(d);
  }
  return out;
}

/// tpeopt.Sampler: a config's sampler driven by hand. Trials are numbered from 0 in the order
/// asked; blocks are told in the order they were asked (the pipeline's contract).
class PySampler {
 public:
  explicit PySampler(const Config& config) : config_(config), sampler_(engine::make_sampler(config)) {}

  nb::ndarray<nb::numpy, double, nb::ndim<2>> ask(std::size_t n) {
    if (n == 0) throw Error("ask: n must be at least 1");
    const std::size_t a = config_.space.size();
    auto* values = new double[n * a];
    nb::capsule owner(values, [](void* p) noexcept { delete[] static_cast<double*>(p); });
    {
      nb::gil_scoped_release release;
      sampler_->ask(next_, n, values);
    }
    pending_.push_back({next_, n});
    next_ += n;
    return nb::ndarray<nb::numpy, double, nb::ndim<2>>(values, {n, a}, owner);
  }

  void tell(nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu> scores,
            std::optional<nb::ndarray<const double, nb::ndim<1>, nb::c_contig, nb::device::cpu>> violations) {
    if (pending_.empty()) throw Error("tell: no asked block is waiting to be told; ask first");
    const auto [first, n] = pending_.front();
    if (scores.size() != n)
      throw make_error(
          "tell: the oldest untold block (trials {}..{}) has {} trials; got {} scores (blocks are told "
          "in the order they were asked)",
          first, first + n - 1, n, scores.size());
    if (violations && violations->size() != n)
      throw make_error("tell: got {} violations for {} trials", violations->size(), n);
    std::vector<tpe::TrialOutcome> outcomes(n);
    for (std::size_t i = 0; i < n; ++i) {
      outcomes[i].score = scores.data()[i];
      outcomes[i].violation = violations ? violations->data()[i] : 0.0;
      if (!(outcomes[i].violation >= 0.0))
        throw make_error("tell: violation of trial {} is {}: expected a number >= 0", first + i, outcomes[i].violation);
    }
    {
      nb::gil_scoped_release release;
      sampler_->tell(first, outcomes);
    }
    pending_.erase(pending_.begin());
    told_ += n;
  }

  std::string name() const { return sampler_->name(); }
  std::uint64_t asked() const { return next_; }
  std::uint64_t told() const { return told_; }

 private:
  Config config_;
  std::unique_ptr<tpe::Sampler> sampler_;
  std::uint64_t next_ = 0, told_ = 0;
  std::vector<std::pair<std::uint64_t, std::size_t>> pending_;
};

}  // namespace

}  // namespace tpeopt::python

NB_MODULE(_tpeopt, m) {
  using namespace tpeopt::python;
  m.doc() = "The C++ core of tpeopt (use the tpeopt package, not this module).";
  nb::exception<tpeopt::Error>(m, "Error", PyExc_RuntimeError);

  nb::class_<Config>(m, "Config", "A validated study config (config/study_config.hpp).")
      .def_prop_ro("source", [](const Config& c) { return c.source; })
      .def_prop_ro("strategy", [](const Config& c) { return c.strategy; })
      .def_prop_ro("sampler", [](const Config& c) { return c.search.sampler; })
      .def_prop_ro(
          "trials", [](const Config& c) { return tpeopt::engine::study_trial_count(c); },
          "Total trials (search.trials, or the grid's size).")
      .def_prop_ro("batch", [](const Config& c) { return c.search.batch; })
      .def_prop_ro("depth", [](const Config& c) { return c.search.depth; })
      .def_prop_ro("seed", [](const Config& c) { return c.search.seed; })
      .def_prop_ro("direction",
                   [](const Config& c) {
                     return c.objective.direction == tpeopt::tpe::Direction::Minimize ? "minimize" : "maximize";
                   })
      .def_prop_ro("scored_by_caller", &scored_by_caller,
                   "Whether a function of the caller scores the trials (strategy python_objective).")
      .def_prop_ro(
          "objective_metrics",
          [](const Config& c) {
            // Such a strategy reads no data: building it costs nothing.
            return scored_by_caller(c) ? tpeopt::engine::make_strategy(c)->metric_names() : std::vector<std::string>{};
          },
          "The metric names the objective function returns (objective.metrics); empty for other strategies.")
      .def_prop_ro("axes", &axes_of, "The searched parameters, in order: name, kind and domain of each.")
      .def(
          "resolved", [](const Config& c) { return c.resolved().dump(); },
          "The config with every default filled in, as JSON text.");

  m.def("load_config", &load_config, "path"_a.none(), "json_text"_a.none(), "source"_a, "base_dir"_a, "trials"_a.none(),
        "batch"_a.none(), "depth"_a.none(), "seed"_a.none(), "executor"_a,
        "Loads a config file (path) or JSON text and applies the overrides.");
  m.def(
      "load_run_config", [](const std::string& dir) { return tpeopt::engine::load_run_config(dir); }, "dir"_a,
      "The config of a run directory.");

  nb::class_<CallOptions>(m, "CallOptions")
      .def(nb::init<>())
      .def_rw("serial", &CallOptions::serial)
      .def_rw("threads", &CallOptions::threads)
      .def_rw("block_size", &CallOptions::block_size)
      .def_rw("devices", &CallOptions::devices)
      .def_rw("writer", &CallOptions::writer, nb::arg().none())
      .def_rw("progress_line", &CallOptions::progress_line)
      .def_rw("handle_signals", &CallOptions::handle_signals)
      .def_rw("adapter", &CallOptions::adapter, nb::arg().none());

  m.def(
      "strategies",
      [] {
        nb::list out;
        for (const auto& e : tpeopt::strategies::registry().entries()) {
          nb::dict d;
          d["name"] = e.name;
          d["summary"] = e.summary;
          d["params"] = e.params.names();
          d["params_from_config"] = e.params_from_config;
          d["scored_by_caller"] = !e.scored_by_caller.empty();
          d["cuda"] = e.make_device != nullptr;
          d["trades"] = e.trades.available();
          // The metric that counts a trial's trades ("trades", or e.g. trade_filter's "kept").
          d["trade_count_metric"] =
              e.trades.available() ? nb::object(nb::str(e.trades.count_metric.c_str())) : nb::none();
          d["symbols"] = e.symbols;
          d["subsets"] = e.subsets;
          out.append(d);
        }
        return out;
      },
      "The strategies of this build (as `tpeopt strategies` lists them).");
  m.def(
      "default_run_dir", [](const Config& c) { return tpeopt::engine::default_run_dir(c).string(); }, "config"_a,
      "runs/<YYYYmmdd-HHMMSS>-<strategy> under the current directory (a new name).");
  m.def("run", &run, "config"_a, "out"_a, "call"_a,
        "Runs a study into a new run directory (as `tpeopt run`); returns its outcome.");
  m.def("resume", &resume, "dir"_a, "executor"_a, "call"_a,
        "Continues a run directory from its journal (as `tpeopt resume`); returns its outcome.");
  m.def("backtest", &backtest, "config"_a, "params"_a, "executor"_a, "trades"_a, "block_size"_a,
        "Backtests one parameter set (as `tpeopt backtest`): on cpu (the reference) or cuda.");
  m.def("verify", &verify, "config"_a, "call"_a, "Runs a study pipelined and serial and compares them bit for bit.");

  nb::class_<PySampler>(m, "Sampler", "A config's sampler driven by ask/tell.")
      .def(nb::init<const Config&>(), "config"_a)
      .def("ask", &PySampler::ask, "n"_a, "The next n trials' parameters, one row per trial.")
      .def("tell", &PySampler::tell, "scores"_a, "violations"_a.none() = nb::none(),
           "Tells the oldest asked block's outcomes.")
      .def_prop_ro("name", &PySampler::name)
      .def_prop_ro("asked", &PySampler::asked)
      .def_prop_ro("told", &PySampler::told);
}
