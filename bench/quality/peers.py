"""The optimizers tpeopt is compared with, behind one batch ask/tell interface:
CMA-ES from `cmaes` (population = batch, IPOP restarts), Optuna's TPESampler and
Nevergrad's NGOpt. CMA-ES sees the space as bench/quality/space.py's unit coordinates,
Optuna and NGOpt as the axes' own values; each minimizes (run.py negates maximized scores). Infeasible trials (violation > 0) are told as
worse than every feasible one: their score is replaced by a penalty above the worst
feasible score seen (the peers have no notion of a violation)."""
import math

import numpy as np


class Penalty:
    """Turns (score, violation) into one value to minimize."""

    def __init__(self):
        self.worst = None

    def __call__(self, scores, violations):
        s = np.asarray(scores, dtype=float).copy()
        ok = (violations <= 0) & np.isfinite(s)
        if ok.any():
            w = s[ok].max()
            self.worst = w if self.worst is None else max(self.worst, w)
        base = 0.0 if self.worst is None else self.worst
        s[~ok] = base + 1.0 + abs(base) + np.where(np.isfinite(violations[~ok]), violations[~ok], 1e300)
        return s


class CmaEs:
    """cmaes 0.13.1: CMA (continuous), CMAwM (with int/stepped axes) or CatCMAwM (with
    categoricals), population = batch; when a run stops it restarts from a uniform random
    mean with twice the population (IPOP). A generation larger than a batch spans batches."""

    name = "cmaes"

    def __init__(self, space, seed, batch, sigma0=0.3, ipop=True):
        self.space, self.seed, self.pop, self.sigma0, self.ipop = space, seed, batch, sigma0, ipop
        self.rng = np.random.default_rng(seed)
        self.restarts = 0
        self.penalty = Penalty()
        self._start()

    def _start(self):
        import cmaes

        sp = self.space
        nn = len(sp.numeric)
        mean = np.full(nn, 0.5) if self.restarts == 0 else self.rng.random(nn)
        seed = int(self.rng.integers(1 << 31))
        steps = np.array([sp.axes[i].unit_step() for i in sp.numeric])
        if sp.categorical:
            x_space = [[0.0, 1.0] for s in steps if s == 0]
            z_space = [list(sp.axes[i].to_unit(sp.axes[i].grid())) for i, s in zip(sp.numeric, steps) if s > 0]
            c_space = [len(sp.axes[i].choices) for i in sp.categorical]
            self.kind = "cat"
            self.es = cmaes.CatCMAwM(x_space=x_space or None, z_space=z_space or None, c_space=c_space,
                                     population_size=self.pop, sigma=self.sigma0, seed=seed)
        elif (steps > 0).any():
            self.kind = "wm"
            self.es = cmaes.CMAwM(mean=mean, sigma=self.sigma0, bounds=np.array([[0.0, 1.0]] * nn), steps=steps,
                                  population_size=self.pop, seed=seed)
        else:
            self.kind = "cma"
            self.es = cmaes.CMA(mean=mean, sigma=self.sigma0, bounds=np.array([[0.0, 1.0]] * nn),
                                population_size=self.pop, seed=seed)
        self.steps = steps
        self.told = []

    def ask(self, n):
        self.asked = []
        rows = []
        for _ in range(n):
            if self.kind == "cma":
                x = self.es.ask()
                self.asked.append(x)
                rows.append((x, None))
            elif self.kind == "wm":
                x_eval, x_tell = self.es.ask()
                self.asked.append(x_tell)
                rows.append((x_eval, None))
            else:
                s = self.es.ask()
                self.asked.append(s)
                u = np.empty(len(self.space.numeric))
                u[self.steps == 0] = s.x if s.x is not None else []
                u[self.steps > 0] = s.z if s.z is not None else []
                rows.append((u, np.argmax(s.c, axis=1)))
        U = np.array([r[0] for r in rows])
        cats = np.array([r[1] for r in rows]) if self.space.categorical else None
        return self.space.from_unit(U, cats)

    def tell(self, values):
        for sol, v in zip(self.asked, values):
            self.told.append((sol, float(v)))
            if len(self.told) == self.es.population_size:
                self.es.tell(self.told)
                self.told = []
                if self.es.should_stop():
                    self.restarts += 1
                    if self.ipop:
                        self.pop *= 2
                    self._start()
                    break  # the rest of this batch came from the stopped run


class OptunaTpe:
    """Optuna's TPESampler with its defaults (Optuna 5: multivariate, constant liar), a
    batch asked as that many running trials and then told."""

    name = "optuna"

    def __init__(self, space, seed, batch):
        import optuna

        optuna.logging.set_verbosity(optuna.logging.WARNING)
        self.space = space
        self.study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
        self.dists = {}
        for a in space.axes:
            if a.categorical:
                self.dists[a.name] = optuna.distributions.CategoricalDistribution(list(a.choices))
            elif a.kind == "int":
                self.dists[a.name] = optuna.distributions.IntDistribution(int(a.low), int(a.high), log=a.log,
                                                                          step=1 if a.log else int(a.step))
            else:
                self.dists[a.name] = optuna.distributions.FloatDistribution(
                    a.low, a.high, log=a.log, step=a.step if a.step > 0 else None)

    def ask(self, n):
        self.trials = [self.study.ask(self.dists) for _ in range(n)]
        return np.array([[t.params[a.name] for a in self.space.axes] for t in self.trials], dtype=float)

    def tell(self, values):
        for t, v in zip(self.trials, values):
            self.study.tell(t, float(v))


class NgOpt:
    """Nevergrad's NGOpt as its documentation recommends using it: told the budget and
    num_workers = batch (it picks its algorithm from the budget, the workers and the
    parametrization), the space as bounded scalars (log ones for log axes), a stepped or int
    axis as the integer index of its grid value (integer casting of a bounded scalar), a
    categorical one as a Choice. A batch is asked as num_workers candidates, then told."""

    name = "ngopt"

    def __init__(self, space, seed, batch, budget):
        import nevergrad as ng

        self.space = space
        params = {}
        for a in space.axes:
            if a.categorical:
                params[a.name] = ng.p.Choice(list(a.choices))
            elif a.log:
                p = ng.p.Log(lower=a.low, upper=a.high)
                params[a.name] = p.set_integer_casting() if a.kind == "int" else p
            elif a.discrete:  # the grid index: integer casting of a step-1 scalar
                params[a.name] = ng.p.Scalar(lower=0, upper=len(a.grid()) - 1).set_integer_casting()
            else:
                params[a.name] = ng.p.Scalar(lower=a.low, upper=a.high)
        inst = ng.p.Dict(**params)
        inst.random_state = np.random.RandomState(seed)
        self.opt = ng.optimizers.NGOpt(parametrization=inst, budget=budget, num_workers=batch)

    def ask(self, n):
        self.cands = [self.opt.ask() for _ in range(n)]
        rows = []
        for c in self.cands:
            row = []
            for a in self.space.axes:
                v = float(c.value[a.name])
                if a.categorical:
                    row.append(v)
                elif a.discrete and not a.log:
                    row.append(float(a.grid()[int(v)]))
                else:
                    row.append(min(max(v, a.low), a.high))
            rows.append(row)
        return np.array(rows)

    def tell(self, values):
        for c, v in zip(self.cands, values):
            self.opt.tell(c, float(v))
