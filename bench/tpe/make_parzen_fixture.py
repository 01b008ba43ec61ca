#!/usr/bin/env python3
"""Writes tests/tpe/fixtures/parzen_optuna.json: reference values from Optuna itself for
tests/tpe/test_parzen_estimator.cpp.

  - estimators: Optuna's internal _ParzenEstimator built on given observations; its
    mixture weights, kernel centres and bandwidths, and log_pdf at fixed points;
  - split: the below group chosen by Optuna's _split_trials (with constraints);
  - truncnorm: log Phi, the log mass of intervals and normal quantiles of log
    probabilities, at 50 digits with mpmath.

Univariate TPE follows Optuna 3.x - 4.6 (4.7 changed log-int axes and 4.9 the bandwidths);
multivariate TPE follows Optuna 4.9+ (docs/tpe.md). So the script writes one of two files,
by the Optuna it runs under:

    python -m venv v46 && v46/bin/pip install optuna==4.6.0 mpmath
    v46/bin/python bench/tpe/make_parzen_fixture.py tests/tpe/fixtures/parzen_optuna.json
    python -m venv v50 && v50/bin/pip install optuna==5.0.0 mpmath
    v50/bin/python bench/tpe/make_parzen_fixture.py tests/tpe/fixtures/parzen_optuna_multivariate.json

Under Optuna < 4.9: the univariate estimators, the split and the truncated normal; under
Optuna >= 4.9: the multivariate estimators only.
"""
from __future__ import annotations

import json
import math
import sys

import mpmath
import numpy as np
import optuna
from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution
from optuna.samplers._base import _CONSTRAINTS_KEY
from optuna.samplers._tpe.parzen_estimator import _ParzenEstimator, _ParzenEstimatorParameters
from optuna.samplers._tpe.probability_distributions import _BatchedCategoricalDistributions
from optuna.samplers._tpe.sampler import _split_trials, default_gamma, default_weights
from optuna.trial import TrialState, create_trial


def distribution(axis: dict):
    if axis["kind"] == "categorical":
        return CategoricalDistribution(tuple(axis["choices"]))
    step = axis.get("step") or None
    if axis["kind"] == "int":
        return IntDistribution(int(axis["low"]), int(axis["high"]), log=axis.get("log", False), step=int(step or 1))
    return FloatDistribution(axis["low"], axis["high"], log=axis.get("log", False), step=step)


def to_optuna(axis: dict, values: list[float]) -> np.ndarray:
    """External values -> what Optuna's estimator takes (choice index for categoricals)."""
    if axis["kind"] == "categorical":
        return np.asarray([float(axis["choices"].index(v)) for v in values])
    return np.asarray(values, dtype=float)


def stable_argsort(a, *args, **kwargs):
    kwargs["kind"] = "stable"
    return _numpy_argsort(a, *args, **kwargs)


_numpy_argsort = np.argsort


def estimator_case(name, axes, observations, points, prior_weight=1.0, magic_clip=True, endpoints=False,
                   multivariate=False, stable_ties=False):
    """observations / points: lists of rows (one external value per axis).

    stable_ties: Optuna orders tied observations with numpy's default (unstable) argsort,
    whose order of ties is unspecified; tpeopt keeps trial order (a stable sort). Cases
    with tied values are generated with np.argsort made stable, so that both sides agree.
    """
    np.argsort = stable_argsort if stable_ties else _numpy_argsort
    try:
        return _estimator_case(name, axes, observations, points, prior_weight, magic_clip, endpoints, multivariate,
                               stable_ties)
    finally:
        np.argsort = _numpy_argsort


def _estimator_case(name, axes, observations, points, prior_weight, magic_clip, endpoints, multivariate,
                    stable_ties):
    fields = dict(prior_weight=prior_weight, consider_magic_clip=magic_clip, consider_endpoints=endpoints,
                  weights=default_weights, multivariate=multivariate, categorical_distance_func={})
    params = _ParzenEstimatorParameters(**{k: v for k, v in fields.items() if k in _ParzenEstimatorParameters._fields})
    space = {axis["name"]: distribution(axis) for axis in axes}
    obs = {axis["name"]: to_optuna(axis, [row[i] for row in observations]) for i, axis in enumerate(axes)}
    pe = _ParzenEstimator(obs, space, params)
    pts = {axis["name"]: to_optuna(axis, [row[i] for row in points]) for i, axis in enumerate(axes)}
    log_pdf = pe.log_pdf(pts)
    mix = pe._mixture_distribution
    mus, sigmas = [], []
    for d in mix.distributions:
        if isinstance(d, _BatchedCategoricalDistributions):
            mus.append(None)
            sigmas.append(None)
        else:
            mus.append([float(v) for v in d.mu])
            sigmas.append([float(v) for v in d.sigma])
    return {
        "name": name,
        "params": {"prior_weight": prior_weight, "consider_magic_clip": magic_clip,
                   "consider_endpoints": endpoints, "multivariate": multivariate},
        "argsort": "stable" if stable_ties else "numpy default",
        "axes": axes,
        "observations": observations,
        "points": points,
        "weights": [float(w) for w in mix.weights],
        "mus": mus,
        "sigmas": sigmas,
        "log_pdf": [float(v) for v in log_pdf],
    }


def estimator_cases(rng: np.random.RandomState) -> list[dict]:
    cases = []
    f5 = {"name": "x", "kind": "float", "low": -5.0, "high": 5.0}
    grid = [[v] for v in np.linspace(-5, 5, 21)]
    cases.append(estimator_case("float_3obs", [f5], [[-1.0], [0.5], [2.0]], grid))
    cases.append(estimator_case("float_0obs", [f5], [], grid))
    cases.append(estimator_case("float_1obs", [f5], [[4.0]], grid))
    r = {"name": "x", "kind": "float", "low": -5.12, "high": 5.12}
    obs30 = [[float(v)] for v in rng.uniform(-5.12, 5.12, 30)]
    cases.append(estimator_case("float_30obs_ramp", [r], obs30, [[float(v)] for v in np.linspace(-5.12, 5.12, 33)]))
    obs80 = [[float(v)] for v in rng.uniform(-5.12, 5.12, 80)]
    cases.append(estimator_case("float_80obs_ramp", [r], obs80, [[float(v)] for v in np.linspace(-5.12, 5.12, 17)]))
    cases.append(estimator_case("float_endpoints_noclip_prior2", [f5], [[-4.9], [-1.0], [0.0], [0.1], [4.99]], grid,
                                prior_weight=2.0, magic_clip=False, endpoints=True))
    cases.append(estimator_case("float_endpoints_clip", [f5], [[-4.9], [-1.0], [0.0], [0.1], [4.99]], grid,
                                endpoints=True))
    fs = {"name": "x", "kind": "float", "low": 0.0, "high": 10.0, "step": 0.5}
    cases.append(estimator_case("float_step_dups", [fs], [[1.5], [1.5], [7.0], [10.0], [0.0], [3.5], [1.5]],
                                [[0.5 * k] for k in range(21)], stable_ties=True))
    fi = {"name": "x", "kind": "int", "low": -3, "high": 12}
    cases.append(estimator_case("int_5obs", [fi], [[-3], [0], [4], [5], [12]], [[k] for k in range(-3, 13)]))
    fi3 = {"name": "x", "kind": "int", "low": 0, "high": 30, "step": 3}
    obs40 = [[int(3 * k)] for k in rng.randint(0, 11, 40)]
    cases.append(estimator_case("int_step3_40obs", [fi3], obs40, [[3 * k] for k in range(11)], stable_ties=True))
    fl = {"name": "x", "kind": "float", "low": 1e-4, "high": 1.0, "log": True}
    cases.append(estimator_case("logfloat_8obs", [fl], [[float(v)] for v in 10.0 ** rng.uniform(-4, 0, 8)],
                                [[float(v)] for v in np.geomspace(1e-4, 1.0, 13)]))
    fli = {"name": "x", "kind": "int", "low": 1, "high": 1000, "log": True}
    cases.append(estimator_case("logint_6obs", [fli], [[1], [3], [10], [10], [500], [1000]],
                                [[v] for v in [1, 2, 3, 5, 9, 10, 11, 50, 100, 333, 999, 1000]], stable_ties=True))
    fc = {"name": "x", "kind": "categorical", "choices": [10.0, 20.0, 30.0, 40.0]}
    cases.append(estimator_case("categorical_6obs", [fc], [[10.0], [30.0], [30.0], [40.0], [30.0], [10.0]],
                                [[10.0], [20.0], [30.0], [40.0]]))
    cases.append(estimator_case("categorical_0obs", [fc], [], [[10.0], [20.0], [30.0], [40.0]]))
    cases.append(estimator_case("categorical_30obs_prior3", [fc],
                                [[fc["choices"][k]] for k in rng.randint(0, 4, 30)],
                                [[10.0], [20.0], [30.0], [40.0]], prior_weight=3.0))

    # The multivariate cases once lived here (Optuna 3.x's rule); their rows are still drawn
    # so that the split cases below keep their random stream.
    for n in (12 + 15, 40):
        for _ in range(n):
            rng.uniform(-2, 3), rng.randint(0, 21), 10 ** rng.uniform(-3, 1), rng.randint(0, 3), rng.randint(0, 5)
    return cases


def multivariate_cases(rng: np.random.RandomState) -> list[dict]:
    """Optuna 4.9+: one estimator over all axes, bandwidths from each axis' neighbour gaps
    among the observations (the prior's centre not among them); log-int axes scored by
    their cells' masses."""
    axes = [
        {"name": "a", "kind": "float", "low": -2.0, "high": 3.0},
        {"name": "b", "kind": "int", "low": 0, "high": 20},
        {"name": "c", "kind": "float", "low": 0.001, "high": 10.0, "log": True},
        {"name": "d", "kind": "categorical", "choices": [0.0, 1.0, 2.0]},
        {"name": "e", "kind": "float", "low": 0.0, "high": 1.0, "step": 0.25},
        {"name": "f", "kind": "int", "low": 1, "high": 1000, "log": True},
    ]

    def rows(n):
        return [[float(rng.uniform(-2, 3)), int(rng.randint(0, 21)), float(10 ** rng.uniform(-3, 1)),
                 float(rng.randint(0, 3)), 0.25 * int(rng.randint(0, 5)),
                 int(min(1000, max(1, round(10 ** rng.uniform(0, 3)))))] for _ in range(n)]

    pts = rows(15) + [[-2.0, 0, 0.001, 0.0, 0.0, 1], [3.0, 20, 10.0, 2.0, 1.0, 1000]]
    cases = [
        estimator_case("multivariate_12obs", axes, rows(12), pts, multivariate=True, stable_ties=True),
        estimator_case("multivariate_40obs", axes, rows(40), pts, multivariate=True, stable_ties=True),
        estimator_case("multivariate_0obs", axes, [], pts, multivariate=True, stable_ties=True),
        estimator_case("multivariate_1obs", axes, rows(1), pts, multivariate=True, stable_ties=True),
        estimator_case("multivariate_2obs_endpoints", axes, rows(2), pts, multivariate=True, stable_ties=True,
                       endpoints=True),
        estimator_case("multivariate_30obs_endpoints_noclip_prior2", axes, rows(30), pts, multivariate=True,
                       stable_ties=True, endpoints=True, magic_clip=False, prior_weight=2.0),
    ]
    # Grid axes tie, so every case orders ties stably on both sides. Tied values on every axis:
    tied = rows(6)
    tied += [list(r) for r in tied[:4]]
    cases.append(estimator_case("multivariate_ties", axes, tied, pts, multivariate=True, stable_ties=True))
    # Two float axes, many observations clustered near one corner.
    two = [{"name": "u", "kind": "float", "low": 0.0, "high": 1.0},
           {"name": "v", "kind": "float", "low": -5.0, "high": 5.0}]
    obs = [[float(rng.beta(1, 8)), float(rng.normal(3.0, 0.5))] for _ in range(120)]
    obs = [[u, min(5.0, max(-5.0, v))] for u, v in obs]
    grid = [[float(u), float(v)] for u in np.linspace(0, 1, 6) for v in np.linspace(-5, 5, 6)]
    cases.append(estimator_case("multivariate_2d_120obs", two, obs, grid, multivariate=True, stable_ties=True))
    return cases


def split_case(name, direction, scores, violations):
    study = optuna.create_study(direction=direction)
    dist = {"x": FloatDistribution(0.0, 1.0)}
    for s, v in zip(scores, violations):
        study.add_trial(create_trial(params={"x": 0.5}, distributions=dist, value=s,
                                     system_attrs={_CONSTRAINTS_KEY: [v]}, state=TrialState.COMPLETE))
    trials = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))
    n_below = default_gamma(len(trials))
    below, above = _split_trials(study, trials, n_below, True)
    return {"name": name, "direction": direction, "scores": scores, "violations": violations,
            "n_below": n_below, "below": [t.number for t in below], "above": [t.number for t in above]}


def split_cases(rng: np.random.RandomState) -> list[dict]:
    out = []
    s = [float(v) for v in rng.normal(size=37)]
    lowest = min(s)
    s[12], s[2] = lowest - 3.0, lowest - 2.0
    s[5] = s[9] = s[30] = lowest - 1.0  # a tie across the group boundary, broken by trial number
    s[17] = s[25] = s[28] = max(s) + 1.0  # the same for maximize
    s[33] = max(s) + 1.0
    s[3] = max(s) + 1.0
    out.append(split_case("minimize_37_ties", "minimize", s, [0.0] * 37))
    out.append(split_case("maximize_37_ties", "maximize", s, [0.0] * 37))
    # Infeasible trials with the best scores never beat feasible ones.
    s = [float(v) for v in rng.normal(size=60)]
    v = [0.0] * 60
    for i in range(0, 60, 3):
        s[i] -= 10.0
        v[i] = float(rng.uniform(0.1, 2.0))
    out.append(split_case("minimize_60_infeasible", "minimize", s, v))
    # Too few feasible trials: the rest of the below group is the least violating.
    s = [float(v) for v in rng.normal(size=50)]
    v = [float(rng.uniform(0.1, 2.0)) if i not in (7, 21) else 0.0 for i in range(50)]
    v[40], v[41] = 0.01, 0.02
    v[34] = v[33] = 0.05  # a tie across the group boundary, broken by trial number
    out.append(split_case("maximize_50_mostly_infeasible", "maximize", s, v))
    out.append(split_case("minimize_300", "minimize", [float(v) for v in rng.normal(size=300)], [0.0] * 300))
    return out


def truncnorm_reference() -> dict:
    mpmath.mp.dps = 50
    ncdf = lambda x: mpmath.ncdf(mpmath.mpf(x))  # noqa: E731
    log_ndtr = [[a, float(mpmath.log(ncdf(a)))]
                for a in [-1e3, -300.0, -40.0, -20.5, -20.0, -19.5, -10.0, -6.0, -3.0, -1.0, -0.70710678, -0.5, 0.0,
                          0.3, 0.70710678, 1.0, 2.0, 5.9, 6.0, 6.5, 8.0]]
    intervals = [(-1e3, -999.0), (-40.0, -39.0), (-25.0, -21.0), (-8.0, -7.9), (-3.0, -1.0), (-2.0, 0.0),
                 (-1.0, 1.0), (-0.01, 0.02), (-9.0, 9.0), (-40.0, 40.0), (-0.5, 30.0), (0.0, 1e-3),
                 (0.5, 2.0), (3.0, 4.0), (7.0, 7.5), (20.0, 21.0), (39.0, 45.0), (-3.0, -2.999)]
    # Right-tail intervals by symmetry, so that 50 digits suffice.
    mass = [[a, b, float(mpmath.log(ncdf(b) - ncdf(a) if b <= 0 else ncdf(-a) - ncdf(-b)))] for a, b in intervals]
    quantile = []
    for x in [-37.0, -30.0, -20.0, -12.0, -8.0, -5.0, -3.0, -1.5, -1.0, -0.3, 0.0, 0.2, 1.0, 1.5, 2.5, 4.0, 6.0, 8.0]:
        quantile.append([float(mpmath.log(ncdf(x))), x])
    return {"log_ndtr": log_ndtr, "log_gauss_mass": mass, "ndtri_exp": quantile}


def main() -> None:
    out_path = sys.argv[1] if len(sys.argv) > 1 else "tests/tpe/fixtures/parzen_optuna.json"
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    rng = np.random.RandomState(20240601)
    doc = {
        "generator": "bench/tpe/make_parzen_fixture.py",
        "optuna_version": optuna.__version__,
        "numpy_version": np.__version__,
    }
    major, minor = (int(v) for v in optuna.__version__.split(".")[:2])
    if (major, minor) >= (4, 9):
        doc["estimators"] = multivariate_cases(np.random.RandomState(20261123))
    else:
        doc["estimators"] = estimator_cases(rng)
        doc["split"] = split_cases(rng)
        doc["truncnorm"] = truncnorm_reference()
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {out_path} (optuna {optuna.__version__})")


if __name__ == "__main__":
    main()
