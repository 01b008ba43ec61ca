#!/usr/bin/env python3
"""Checks of the benchmark harness itself (exit status 1 and the failures printed if any):

  - every grid value of a stepped or int axis is reachable by CMA-ES with margin: the
    lattice cmaes' CMAwM builds over the unit coordinates (low + k * step, k = 0 ..
    ceil((high + step / 2 - low) / step) - 1, its own rule) maps onto the axis' grid one to
    one, for Hartmann-6's stepped x1 (101 values) and bbob-mixint's int axes; and CatCMAwM's
    z_space (the grid's unit coordinates) maps back onto the grid;
  - bbob-mixint's optimum as cocoex prints it lies on the integer lattice, and no random
    neighbour (one int axis moved to any value, or one continuous axis moved a little) is
    better, for each (function, instance) the benchmark uses.

  python3 bench/quality/check_space.py
"""
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from space import Space  # noqa: E402

failures = []


def cmawm_lattice(space):
    """The values CMAwM can propose on each discrete axis, in external values."""
    import cmaes

    steps = np.array([space.axes[i].unit_step() for i in space.numeric])
    nn = len(space.numeric)
    es = cmaes.CMAwM(mean=np.full(nn, 0.5), sigma=0.3, bounds=np.array([[0.0, 1.0]] * nn), steps=steps,
                     population_size=8, seed=1)
    out = {}
    for j, i in enumerate(es._discrete_idx):
        lattice = es._discrete_space_low[j] + es._discrete_space_step[j] * np.arange(es._discrete_space_size[j])
        out[space.numeric[i]] = lattice
    return out


def check_lattice(name, axes):
    space = Space(axes)
    for i, lattice in cmawm_lattice(space).items():
        a = space.axes[i]
        grid = a.grid()
        reached = a.from_unit(lattice)
        missing = np.setdiff1d(np.round(grid, 12), np.round(reached, 12))
        if len(missing) or len(np.unique(np.round(reached, 12))) != len(lattice):
            failures.append(f"{name} {a.name}: {len(missing)} of {len(grid)} grid values unreachable "
                            f"(e.g. {missing[:5]}), lattice of {len(lattice)} points")
        back = a.from_unit(a.to_unit(grid))
        if not np.allclose(back, grid, rtol=0, atol=1e-12):
            failures.append(f"{name} {a.name}: from_unit(to_unit(grid)) != grid")
    print(f"{name}: lattice checked on {len(cmawm_lattice(space))} discrete axes")


def check_mixint_optimum(fids, dims, instances):
    from workloads import BbobFunction

    rng = np.random.default_rng(0)
    for fid in fids:
        for dim in dims:
            w = BbobFunction(fid, dim, "bbob-mixint")
            for seed in instances:
                p = w.problem(seed)
                x = w.x_opt(p)
                n_int = p.number_of_integer_variables
                lo, hi = p.lower_bounds, p.upper_bounds
                if not np.array_equal(x[:n_int], np.round(x[:n_int])):
                    failures.append(f"{w.name} seed {seed}: x_opt's int axes are not integers")
                f = p(x)
                for _ in range(500):
                    y = x.copy()
                    i = int(rng.integers(dim))
                    y[i] = (rng.integers(lo[i], hi[i] + 1) if i < n_int
                            else np.clip(y[i] + 0.01 * rng.standard_normal(), lo[i], hi[i]))
                    if p(y) < f - 1e-12:
                        failures.append(f"{w.name} seed {seed}: a neighbour of x_opt is better ({p(y)} < {f})")
                        break
            print(f"{w.name}: optimum checked on seeds {instances[0]}..{instances[-1]}")


def main():
    hartmann = [{"name": "x0", "kind": "float", "low": 0.0, "high": 1.0, "step": 0.0},
                {"name": "x1", "kind": "float", "low": 0.0, "high": 1.0, "step": 0.01},
                {"name": "x3", "kind": "float", "low": 0.001, "high": 1.0, "log": True}]
    check_lattice("hartmann6", hartmann)
    mixint = [{"name": f"i{k}", "kind": "int", "low": 0.0, "high": float(h), "step": 1.0}
              for k, h in enumerate((1, 3, 7, 15))] + [{"name": "x", "kind": "float", "low": -5.0, "high": 5.0}]
    check_lattice("bbob-mixint axes", mixint)
    check_lattice("odd step", [{"name": "s", "kind": "float", "low": -1.0, "high": 2.0, "step": 0.25},
                               {"name": "k", "kind": "int", "low": 3.0, "high": 40.0, "step": 1.0}])
    from suites import mixint_functions

    for fid, dim in mixint_functions():
        check_mixint_optimum([fid], [dim], list(range(10)))
    for f in failures:
        print("FAILED:", f)
    print("ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
