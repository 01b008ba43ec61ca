"""The quality benchmark's workloads: test functions and real strategies.

A workload gives, for one seed: the search space (quality_server's `info` axes), a tpeopt
study config to serve the tpeopt samplers, and the objective, evaluate(X, part) ->
(scores, violations) on external values X. Scores are to be minimized or maximized as
`maximize` says; run.py compares samplers on the workload's own scale.

Functions (minimized, reported as f - f_opt, so 0 is the optimum):
  - tpeopt's own test functions (strategies/functions), evaluated by the functions strategy
    through quality_server: rastrigin and styblinski_tang on [-5.12, 5.12] and [-5, 5],
    hartmann6 on examples/functions_hartmann6.json's mixed space (a stepped and a log axis);
  - COCO's BBOB functions (cocoex, suite "bbob"): separable (f2 ellipsoid, f3 Rastrigin,
    f20 Schwefel), rotated or not separable (f8 Rosenbrock, f10 ellipsoid, f15 Rastrigin,
    f21 Gallagher's 101 peaks); COCO instance = seed + 1, so every seed has its own shift and
    rotation;
  - shifted and rotated Ackley and Levy (not in BBOB), the rotation and shift drawn from the
    seed;
  - integer axes: cocoex's "bbob-mixint" suite, scored against its known optimum (f at the
    x_opt cocoex prints, on the integer lattice);
  - categorical axes: a BBOB function with its first axes categorical over -4, -3, ..., 4
    (f - f_opt of the continuous optimum, which may lie between two choices: a floor above
    0), or a bbob-mixint function with its first int axes categorical over their values.
The tuning and held-out sets are bench/quality/suites.py's.
Strategies (their objective, in-sample during the run, out-of-sample for the in-sample best):
  the examples' configs with data.holdout (the last 30% of the bars or days held out), on
  their bundled data, and exhaustion, ema_cross, bollinger and donchian on a generated
  1,000,000-bar series; the strategy tuning set on data none of those read."""
import json
import math
import os
import tempfile
from pathlib import Path

import numpy as np

import suites

ROOT = Path(__file__).resolve().parents[2]


def float_axes(d, low, high):
    return [{"name": f"x{i}", "kind": "float", "low": low, "high": high, "step": 0.0, "log": False} for i in range(d)]


def functions_config(axes, function="sphere"):
    """A tpeopt functions study over `axes` (what quality_server needs to serve a sampler)."""
    params = {}
    for a in axes:
        if a["kind"] == "categorical":
            params[a["name"]] = {"type": "categorical", "choices": list(a["choices"])}
        else:
            p = {"type": a["kind"], "low": a["low"], "high": a["high"]}
            if a.get("step") and not (a["kind"] == "int" and a["step"] == 1):
                p["step"] = a["step"]
            if a.get("log"):
                p["log"] = True
            params[a["name"]] = p
    return {"strategy": "functions", "function": function, "objective": {"direction": "minimize"},
            "search": {"sampler": "tpe", "trials": 1000, "batch": 100, "depth": 2, "seed": 0}, "params": params}


def write_config(cfg, tag):
    fd, path = tempfile.mkstemp(prefix=f"quality-{tag}-", suffix=".json")
    with os.fdopen(fd, "w") as f:
        json.dump(cfg, f)
    return path


class Workload:
    kind = "function"
    maximize = False
    holdout = False

    def __init__(self, name, label, dim):
        self.name, self.label, self.dim = name, label, dim

    def instance(self, seed):
        """(axes, tpeopt config path, evaluate) for this seed."""
        raise NotImplementedError


class TpeoptFunction(Workload):
    """One of tpeopt's own test functions, evaluated by the functions strategy."""

    def __init__(self, name, label, function, axes=None, example=None, f_opt=0.0):
        self.function, self.axes, self.example, self.f_opt = function, axes, example, f_opt
        super().__init__(name, label, len(axes) if axes else 6)

    def config(self):
        if self.example:
            cfg = json.loads((ROOT / "examples" / self.example).read_text())
        else:
            cfg = functions_config(self.axes, self.function)
        cfg["function"] = self.function
        return cfg

    def instance(self, seed):
        path = write_config(self.config(), self.name)
        return path, None  # evaluated by the server ("eval in")


class BbobFunction(Workload):
    def __init__(self, fid, dim, suite="bbob", categorical=0):
        self.fid, self.suite, self.categorical = fid, suite, categorical
        tag = {"bbob": "", "bbob-mixint": "-int"}[suite] + (f"-cat{categorical}" if categorical else "")
        super().__init__(f"bbob{tag}-f{fid}-d{dim}", f"BBOB{tag} f{fid} {dim}-d", dim)

    def problem(self, seed):
        import cocoex

        suite = cocoex.Suite(self.suite, f"instances: {seed + 1}", f"dimensions: {self.dim}")
        return suite.get_problem_by_function_dimension_instance(self.fid, self.dim, seed + 1)

    def x_opt(self, problem):
        """The optimum as cocoex prints it (to a file in the working directory). For
        bbob-mixint it lies on the integer lattice (bench/quality/check_space.py checks that
        and that no neighbour is better), so f(x_opt) is the known optimum there too."""
        cwd = os.getcwd()
        with tempfile.TemporaryDirectory() as tmp:
            os.chdir(tmp)
            try:
                problem._best_parameter("print")
                return np.loadtxt("._bbob_problem_best_parameter.txt")[: self.dim]
            finally:
                os.chdir(cwd)

    def f_opt(self, problem):
        return float(problem(self.x_opt(problem)))

    def instance(self, seed):
        p = self.problem(seed)
        lo, hi = p.lower_bounds, p.upper_bounds
        n_int = p.number_of_integer_variables
        axes = []
        for i in range(self.dim):
            if i < self.categorical:
                # bbob: -4 .. 4 (the optimum may lie between); bbob-mixint: the int axis' own
                # values, unordered (the optimum is one of them)
                values = range(-4, 5) if i >= n_int else range(int(lo[i]), int(hi[i]) + 1)
                axes.append({"name": f"x{i}", "kind": "categorical", "choices": [float(v) for v in values]})
            elif i < n_int:
                axes.append({"name": f"x{i}", "kind": "int", "low": float(lo[i]), "high": float(hi[i]), "step": 1.0,
                             "log": False})
            else:
                axes.append({"name": f"x{i}", "kind": "float", "low": float(lo[i]), "high": float(hi[i]), "step": 0.0,
                             "log": False})
        f_opt = self.f_opt(p)

        def evaluate(X, part="in"):
            y = np.array([p(x) for x in X]) - f_opt
            return y, np.zeros(len(X))

        return write_config(functions_config(axes), self.name), evaluate


class RotatedFunction(Workload):
    """Ackley or Levy, shifted and rotated by the seed (like BBOB's instances)."""

    def __init__(self, which, dim):
        self.which = which
        self.half = {"ackley": 32.768, "levy": 10.0}[which]
        super().__init__(f"{which}-rot-d{dim}", f"{which.capitalize()} rotated {dim}-d", dim)

    def instance(self, seed):
        rng = np.random.default_rng(1000 + seed)
        q, r = np.linalg.qr(rng.standard_normal((self.dim, self.dim)))
        q = q * np.sign(np.diag(r))
        shift = rng.uniform(-0.6 * self.half, 0.6 * self.half, self.dim)
        which = self.which

        def evaluate(X, part="in"):
            Z = (np.asarray(X) - shift) @ q.T
            if which == "ackley":
                d = Z.shape[1]
                y = (-20 * np.exp(-0.2 * np.sqrt((Z ** 2).sum(1) / d)) - np.exp(np.cos(2 * np.pi * Z).sum(1) / d)
                     + 20 + math.e)
            else:
                w = 1 + Z / 4
                y = (np.sin(np.pi * w[:, 0]) ** 2
                     + ((w[:, :-1] - 1) ** 2 * (1 + 10 * np.sin(np.pi * w[:, :-1] + 1) ** 2)).sum(1)
                     + (w[:, -1] - 1) ** 2 * (1 + np.sin(2 * np.pi * w[:, -1]) ** 2))
            return np.maximum(y, 0.0), np.zeros(len(Z))

        axes = float_axes(self.dim, -self.half, self.half)
        return write_config(functions_config(axes), self.name), evaluate


class Strategy(Workload):
    """A real strategy: a config of the repository (an example, or a bench/subsets one) with
    data.holdout, on its own data or on a generated series (`candles`, relative to ROOT)."""

    kind = "strategy"
    holdout = True

    def __init__(self, name, label, example, holdout=0.3, patch=None, candles=None, generate=None):
        self.path = ROOT / (example if "/" in example else f"examples/{example}")
        self.fraction, self.patch, self.candles, self.generate = holdout, patch or {}, candles, generate
        cfg = json.loads(self.path.read_text())
        self.maximize = cfg.get("objective", {}).get("direction", "maximize") == "maximize"
        super().__init__(name, label, len(cfg["params"]))

    def instance(self, seed):
        cfg = json.loads(self.path.read_text())
        data = dict(cfg["data"])
        for k, v in list(data.items()):  # paths relative to the config's folder
            if isinstance(v, str) and k in ("candles", "candles_dir", "cache", "trades", "market_dir"):
                data[k] = str((self.path.parent / v).resolve())
        if self.candles:
            data = {"candles": str(ROOT / self.candles)}
            if self.generate and not (ROOT / self.candles).is_file():
                generate_candles(ROOT / self.candles, *self.generate)
            if not (ROOT / self.candles).is_file():
                raise FileNotFoundError(
                    f"{self.name}: {ROOT / self.candles} is missing; write it with `tpeopt data generate-candles "
                    f"-o {ROOT / GENERATED_DIR} --symbols 1 --bars 1000000 --interval-s 3600 --seed 3`")
        data["holdout"] = {"fraction": self.fraction}
        cfg["data"] = data
        for k, v in self.patch.items():
            cfg[k] = v
        return write_config(cfg, self.name), None


def function_workloads():
    ras = float_axes(10, -5.12, 5.12)
    st = float_axes(10, -5.0, 5.0)
    out = [
        TpeoptFunction("rastrigin-d10", "Rastrigin 10-d", "rastrigin", axes=ras),
        TpeoptFunction("styblinski_tang-d10", "Styblinski-Tang 10-d", "styblinski_tang", axes=st,
                       f_opt=-39.16616570377142 * 10),
        TpeoptFunction("hartmann6", "Hartmann-6 (stepped, log axes)", "hartmann6", example="functions_hartmann6.json",
                       f_opt=-3.32236801141551),
    ]
    for dim in (10, 20):
        out += [BbobFunction(f, dim) for f in (2, 3, 8, 10, 15, 20, 21)]
        out += [RotatedFunction("ackley", dim), RotatedFunction("levy", dim)]
    out += [BbobFunction(10, 40), BbobFunction(15, 40), BbobFunction(8, 40)]
    out += [BbobFunction(10, 10, "bbob-mixint"), BbobFunction(15, 10, "bbob-mixint"),
            BbobFunction(15, 10, categorical=3)]
    have = {w.name for w in out}
    for fid, dim, suite, k in suites.bbob_workloads():
        w = BbobFunction(fid, dim, suite, categorical=k)
        if w.name not in have:
            out.append(w)
    return out


# The generated 1,000,000-bar hourly series of the GPU benchmarks (scripts/gpu_fill.sh runs,
# bench/quality/gpu.sh): regimes of drift and volatility, seed 3.
GENERATED_DIR = "bench/subsets/gen"
GENERATED_CANDLES = f"{GENERATED_DIR}/SYM0000.csv"


def tpeopt_binary():
    """TPEOPT_BIN, or the tpeopt of quality_server's build (TPEOPT_QUALITY_SERVER): in the same
    folder (a folder of carried binaries, as offline_env.sh's BIN) or BUILD/apps/tpeopt beside
    BUILD/bench/quality/quality_server."""
    if os.environ.get("TPEOPT_BIN"):
        return os.environ["TPEOPT_BIN"]
    server = Path(os.environ.get("TPEOPT_QUALITY_SERVER", ROOT / "build" / "bench" / "quality" / "quality_server"))
    server = server.resolve()
    beside = server.parent / "tpeopt"
    return str(beside if beside.is_file() else server.parents[2] / "apps" / "tpeopt")


def generate_candles(csv, bars, interval_s, seed):
    """Writes `csv` (a one-symbol generated series) with tpeopt's generator, atomically: parallel
    runs of the benchmark may ask for it at once."""
    import shutil
    import subprocess

    csv.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".gen-", dir=csv.parent))
    try:
        subprocess.run([tpeopt_binary(), "data", "generate-candles", "-o", str(tmp), "--symbols", "1", "--bars",
                        str(bars), "--interval-s", str(interval_s), "--seed", str(seed)], check=True,
                       stdout=subprocess.DEVNULL)
        os.replace(tmp / "SYM0000.csv", csv)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


# The strategy tuning set (bench/quality/suites.py, STRATEGY_TUNING): the same strategies and
# ranges as the reported ones, on data none of those use: GOOG's daily bars and two generated
# series of 20,000 bars (drift and volatility regimes, seeds 11 and 12; written on first use
# under bench/subsets/gen-tuning, which git ignores).
TUNING_DIR = "bench/subsets/gen-tuning"


def tuning_strategy_workloads():
    return [
        Strategy("exhaustion-goog", "exhaustion (GOOG daily)", "exhaustion_eurusd.json",
                 candles="data/backtesting-py/GOOG.csv"),
        Strategy("exhaustion-gen20k", "exhaustion (generated 20,000 hourly bars, seed 11)", "exhaustion_eurusd.json",
                 candles=f"{TUNING_DIR}/hourly-s11.csv", generate=(20000, 3600, 11)),
        Strategy("ema_cross-goog", "ema_cross (GOOG daily)", "ema_cross_btc.json",
                 candles="data/backtesting-py/GOOG.csv"),
        Strategy("ema_cross-gen20k", "ema_cross (generated 20,000 1-minute bars, seed 12)", "ema_cross_btc.json",
                 candles=f"{TUNING_DIR}/minute-s12.csv", generate=(20000, 60, 12)),
        Strategy("bollinger-gen20k", "bollinger (generated 20,000 hourly bars, seed 11)", "bollinger_eurusd.json",
                 candles=f"{TUNING_DIR}/hourly-s11.csv", generate=(20000, 3600, 11)),
        Strategy("donchian-gen20k", "donchian (generated 20,000 hourly bars, seed 11)", "donchian_eurusd.json",
                 candles=f"{TUNING_DIR}/hourly-s11.csv", generate=(20000, 3600, 11)),
    ]


def strategy_workloads():
    return [
        Strategy("exhaustion", "exhaustion (EURUSD 1h)", "exhaustion_eurusd.json"),
        Strategy("ema_cross", "ema_cross (BTCUSDT 1m)", "ema_cross_btc.json"),
        Strategy("atc", "atc (3 Binance symbols, 1m)", "atc_binance.json"),
        Strategy("trade_filter", "trade_filter (generated)", "trade_filter_tpe.json"),
        Strategy("bollinger", "bollinger (EURUSD 1h)", "bollinger_eurusd.json"),
        Strategy("donchian", "donchian (EURUSD 1h)", "donchian_eurusd.json"),
        Strategy("exhaustion-gen1m", "exhaustion (generated, 1,000,000 bars)", "bench/subsets/exhaustion_full.json",
                 candles=GENERATED_CANDLES),
        Strategy("ema_cross-gen1m", "ema_cross (generated, 1,000,000 bars)", "ema_cross_btc.json",
                 candles=GENERATED_CANDLES),
        Strategy("bollinger-gen1m", "bollinger (generated, 1,000,000 bars)", "bollinger_eurusd.json",
                 candles=GENERATED_CANDLES),
        Strategy("donchian-gen1m", "donchian (generated, 1,000,000 bars)", "donchian_eurusd.json",
                 candles=GENERATED_CANDLES),
    ]


def all_workloads():
    return {w.name: w for w in function_workloads() + strategy_workloads() + tuning_strategy_workloads()}
