"""The quality benchmark's two sets of functions, declared here and nowhere else.

  - tuning: the functions batch TPE's settings were chosen on (bench/quality/ablation.sh
    runs every ablation on them, and on nothing else). A claim about the sampler's quality is
    not made from them.
  - held-out: functions and dimensions that no setting was chosen on or looked at while
    choosing: further BBOB functions at 20 and 40 dimensions, bbob-mixint functions (int
    axes), and bbob-mixint functions with some int axes made categorical (int + categorical).
    docs/benchmarks.md's claims come from these.
Real strategies have a tuning set of their own (STRATEGY_TUNING): the reported strategies'
configs and ranges on data none of the reported runs use (GOOG's daily bars, two generated
series: bench/quality/workloads.py). A setting chosen for the strategies is chosen there; the
claims come from the strategies on their bundled data and on the generated 1,000,000-bar
series, the held-out strategies.
The functions of the earlier 17-function report that are in neither set (they were looked at
while the defaults were chosen, though not ablated on) stay runnable workloads but belong to
no set: report.py labels them "other".

Workload names are workloads.py's: bbob-f{fid}-d{dim}, bbob-int-f{fid}-d{dim},
bbob-int-cat{k}-f{fid}-d{dim}."""

TUNING = ["rastrigin-d10", "styblinski_tang-d10", "hartmann6", "bbob-f10-d10", "bbob-f15-d10", "bbob-f8-d10"]

# (fid, dim) of BBOB ("bbob" suite): attractive sector, discus, bent cigar, sharp ridge,
# different powers, Weierstrass, Schaffers F7, Griewank-Rosenbrock, Gallagher 21 peaks,
# Lunacek bi-Rastrigin.
HELD_OUT_BBOB = [(6, 20), (11, 20), (12, 40), (13, 20), (14, 40), (16, 20), (17, 40), (19, 20), (22, 40), (24, 20)]
# (fid, dim) of bbob-mixint: int axes (most of them) and continuous ones.
HELD_OUT_MIXINT = [(12, 20), (17, 10)]
# (fid, dim, k) of bbob-mixint with its first k int axes categorical over their values.
HELD_OUT_MIXINT_CATEGORICAL = [(11, 20, 4), (22, 10, 3)]


def _bbob(fid, dim):
    return f"bbob-f{fid}-d{dim}"


def _mixint(fid, dim, k=0):
    return f"bbob-int{f'-cat{k}' if k else ''}-f{fid}-d{dim}"


HELD_OUT = ([_bbob(f, d) for f, d in HELD_OUT_BBOB] + [_mixint(f, d) for f, d in HELD_OUT_MIXINT]
            + [_mixint(f, d, k) for f, d, k in HELD_OUT_MIXINT_CATEGORICAL])
# The six held-out cells of the largest budget (200,000 / 4,096): two ill-conditioned, two
# multimodal, one with int axes, one with int and categorical ones.
HELD_OUT_LARGE = [_bbob(11, 20), _bbob(13, 20), _bbob(16, 20), _bbob(24, 20), _mixint(12, 20), _mixint(11, 20, 4)]

# The strategy tuning set (workloads.py's tuning_strategy_workloads) and the held-out
# strategies (workloads.py's strategy_workloads, the cells docs/benchmarks.md reports).
STRATEGY_TUNING = ["exhaustion-goog", "exhaustion-gen20k", "ema_cross-goog", "ema_cross-gen20k", "bollinger-gen20k",
                   "donchian-gen20k"]
STRATEGY_HELD_OUT = ["exhaustion", "ema_cross", "atc", "trade_filter", "bollinger", "donchian", "exhaustion-gen1m",
                     "ema_cross-gen1m", "bollinger-gen1m", "donchian-gen1m"]

SETS = {"tuning": TUNING, "held-out": HELD_OUT, "held-out-large": HELD_OUT_LARGE,
        "tuning-strategies": STRATEGY_TUNING, "held-out-strategies": STRATEGY_HELD_OUT}

assert not set(TUNING) & set(HELD_OUT), "a function is in both sets"
assert not set(STRATEGY_TUNING) & set(STRATEGY_HELD_OUT), "a strategy workload is in both sets"
assert set(HELD_OUT_LARGE) <= set(HELD_OUT)


def suite_of(workload):
    """"tuning", "held-out", "tuning-strategies", "held-out-strategies" or "other"."""
    for name in ("tuning", "held-out", "tuning-strategies", "held-out-strategies"):
        if workload in SETS[name]:
            return name
    return "other"


def bbob_workloads():
    """(fid, dim, suite, categorical) of every held-out BBOB workload, for workloads.py."""
    return ([(f, d, "bbob", 0) for f, d in HELD_OUT_BBOB] + [(f, d, "bbob-mixint", 0) for f, d in HELD_OUT_MIXINT]
            + [(f, d, "bbob-mixint", k) for f, d, k in HELD_OUT_MIXINT_CATEGORICAL])


def mixint_functions():
    """(fid, dim) of every bbob-mixint function in the sets (check_space.py checks their optima)."""
    return sorted({(f, d) for f, d in HELD_OUT_MIXINT} | {(f, d) for f, d, _ in HELD_OUT_MIXINT_CATEGORICAL}
                  | {(10, 10), (15, 10)})
