"""A search space as quality_server's `info` describes it, with the unit-cube coordinates
that the Python optimizers (CMA-ES) search in. A continuous axis' unit coordinate is its
range scaled to [0, 1] (log axes in log space; log-int axes on [ln(low - 1/2), ln(high + 1/2)],
so that each integer owns a cell). A stepped or int (non-log) axis' grid value k is the unit
coordinate k / (n - 1): CMA-ES with margin builds its lattice as low + k * step over [0, 1]
(cmaes' CMAwM), so each lattice point is exactly one grid value. (On the range widened by
half a step, as tpeopt's TPE models it, every lattice point would fall on a rounding boundary
and about a third of the grid values could never be proposed: check_space.py checks this.)"""
import math

import numpy as np


class Axis:
    def __init__(self, spec):
        self.name = spec["name"]
        self.kind = spec["kind"]
        self.choices = np.asarray(spec.get("choices", []), dtype=float)
        self.low = float(spec.get("low", 0.0))
        self.high = float(spec.get("high", 0.0))
        self.step = float(spec.get("step", 0.0))
        self.log = bool(spec.get("log", False))
        if self.kind == "int" and self.step == 0.0:
            self.step = 1.0

    @property
    def categorical(self):
        return self.kind == "categorical"

    @property
    def discrete(self):
        return self.kind == "int" or self.step > 0

    def _bounds(self):
        """The range [a, b] that unit coordinates scale to [0, 1]."""
        if self.log:
            if self.kind == "int":
                return math.log(self.low - 0.5), math.log(self.high + 0.5)
            return math.log(self.low), math.log(self.high)
        return self.low, self.high

    def from_unit(self, u):
        a, b = self._bounds()
        v = a + np.clip(u, 0.0, 1.0) * (b - a)
        if self.log:
            v = np.exp(v)
        if self.discrete:
            v = self.low + np.round((v - self.low) / self.step) * self.step
        return np.clip(v, self.low, self.high)

    def to_unit(self, v):
        a, b = self._bounds()
        x = np.log(v) if self.log else np.asarray(v, dtype=float)
        return (x - a) / (b - a) if b > a else np.zeros_like(x)

    def unit_step(self):
        """A grid step in unit coordinates (0 for continuous and log-int axes)."""
        if not self.discrete or self.log:
            return 0.0
        a, b = self._bounds()
        return self.step / (b - a)

    def grid(self):
        """Every value of a stepped (non-log) axis."""
        n = int(round((self.high - self.low) / self.step)) + 1
        return self.low + self.step * np.arange(n)


class Space:
    def __init__(self, axes):
        self.axes = [Axis(a) for a in axes]
        self.d = len(self.axes)
        self.numeric = [i for i, a in enumerate(self.axes) if not a.categorical]
        self.categorical = [i for i, a in enumerate(self.axes) if a.categorical]

    def from_unit(self, U, cats=None):
        """External values from unit coordinates of the numeric axes (U: n x numeric) and
        choice indices of the categorical ones (cats: n x categorical)."""
        U = np.atleast_2d(U)
        X = np.empty((len(U), self.d))
        for j, i in enumerate(self.numeric):
            X[:, i] = self.axes[i].from_unit(U[:, j])
        for j, i in enumerate(self.categorical):
            X[:, i] = self.axes[i].choices[cats[:, j]]
        return X
