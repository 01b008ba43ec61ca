"""Objectives of the tests, importable by a subprocess (the kill -9 test)."""

from __future__ import annotations

import os
import signal

import numpy as np

SPACE = {
    "x0": {"type": "float", "low": -5.0, "high": 5.0},
    "x1": {"type": "float", "low": 0.01, "high": 10.0, "log": True},
    "x2": {"type": "float", "low": -1.0, "high": 1.0, "step": 0.25},
    "n": {"type": "int", "low": 1, "high": 50},
    "k": {"type": "categorical", "choices": ["a", "b", "c"]},
    "w": {"values": [0.5, 1.0, 2.0]},
    "m": {"type": "int", "low": 2, "high": 20, "step": 3},
}


def sphere(X: np.ndarray) -> np.ndarray:
    """sum x_i^2 in column order: the functions strategy's sphere, bit for bit."""
    s = np.zeros(X.shape[0])
    for j in range(X.shape[1]):
        s = s + X[:, j] * X[:, j]
    return s


def mixed(X: np.ndarray) -> dict:
    """A score over SPACE with a constraint and two metrics."""
    score = (
        (X[:, 0] - 1.0) ** 2 + np.log(X[:, 1]) ** 2 + X[:, 2] + (X[:, 3] - 7) ** 2 / 50 + X[:, 4] * 0.3 + X[:, 5]
        + X[:, 6] / 40
    )
    return {"score": score, "violation": np.maximum(0.0, X[:, 0] - 4.0), "twice": 2 * score, "n_plus": X[:, 3] + 1}


class KillAt:
    """mixed(), but the process kills itself (SIGKILL) when called for batch `batch`."""

    def __init__(self, batch: int) -> None:
        self.batch, self.calls = batch, 0

    def __call__(self, X: np.ndarray) -> dict:
        if self.calls == self.batch:
            os.kill(os.getpid(), signal.SIGKILL)
        self.calls += 1
        return mixed(X)


class FailAt:
    """mixed(), but batch `batch` gets `bad(X)` instead (a bad output, or raising)."""

    def __init__(self, batch: int, bad) -> None:
        self.batch, self.bad, self.calls = batch, bad, 0

    def __call__(self, X: np.ndarray):
        self.calls += 1
        if self.calls - 1 == self.batch:
            return self.bad(X)
        return mixed(X)


def nan_half(X: np.ndarray) -> np.ndarray:
    """mixed()'s score, NaN on rows where x0 < -2.5 (failed trials)."""
    s = np.array(mixed(X)["score"], dtype=float)
    s[X[:, 0] < -2.5] = np.nan
    return s


class Slow:
    """mixed(), taking `seconds` per batch (for the Ctrl-C test)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __call__(self, X: np.ndarray) -> dict:
        import time

        time.sleep(self.seconds)
        return mixed(X)


class Inf:
    """mixed(), with score `value` (an infinity) on row 5 of every batch."""

    def __init__(self, value: float) -> None:
        self.value = value

    def __call__(self, X: np.ndarray) -> dict:
        s = mixed(X)
        s["score"] = s["score"].copy()
        s["score"][5] = self.value
        return s
