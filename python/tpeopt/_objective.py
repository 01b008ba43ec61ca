"""The bridge between tpeopt's executor thread and a user's objective function.

The C++ executor (python/src/objective_executor.cpp) calls an ``Adapter`` with each batch's
parameters; the adapter calls the objective and checks what it returned, so that a bad
output stops the run with an error that names the batch, the trials and what was wrong.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from ._tpeopt import Error


class ObjectiveError(Error):
    """The objective raised, or returned something tpeopt cannot record.

    The run stops; every batch told before is in the run's journal, and
    ``tpeopt.resume(dir, objective)`` continues it once the objective is fixed.
    """


class BatchReport:
    """What a callback of tpeopt.optimize gets after each batch is scored (and before it is
    told to the sampler): ``callback(report)``.

    ``batch`` (its index), ``first_trial``, ``X`` (the batch's parameters, as the objective got
    them), ``scores`` and ``violations`` (as recorded: a failed trial's score is NaN),
    ``trials`` (trials scored so far in this call, this batch included), ``best_value`` (the
    best feasible score among them, or None), ``elapsed`` (seconds since the call started).
    ``report.stop()`` ends the study after this batch: the batch is recorded, no other starts.
    """

    __slots__ = ("batch", "first_trial", "X", "scores", "violations", "trials", "best_value", "elapsed", "_adapter")

    def __init__(self, adapter: "Adapter", batch: int, first_trial: int, X: np.ndarray, scores: np.ndarray,
                 violations: np.ndarray, trials: int, best_value: Optional[float], elapsed: float) -> None:
        self._adapter = adapter
        self.batch, self.first_trial, self.X = batch, first_trial, X
        self.scores, self.violations, self.trials = scores, violations, trials
        self.best_value, self.elapsed = best_value, elapsed

    def stop(self) -> None:
        """Ends the study after this batch (it is recorded; the run directory says
        ``complete: false``, and tpeopt.resume(dir, objective) would continue it)."""
        self._adapter.stop_reason = f"a callback stopped the study after batch {self.batch}"

    def __repr__(self) -> str:
        return (f"<tpeopt.BatchReport batch {self.batch} (trials {self.first_trial}.."
                f"{self.first_trial + len(self.scores) - 1}), {self.trials} scored, best {self.best_value}>")


class Adapter:
    """Calls ``objective(X)`` for one batch and returns (scores, violations, metrics).

    ``X`` has one row per trial and one column per axis (the space's order); string
    categoricals are their choice index, or their label with ``labels=True`` (then ``X``
    is an object array). Before a batch it checks whether the study was asked to stop
    (``timeout`` passed, or a callback called ``report.stop()``): then it returns None and
    the executor stops the run there (the batch is not evaluated, nothing after it).
    """

    def __init__(
        self,
        objective: Callable[[np.ndarray], Any],
        axes: Sequence[Mapping[str, Any]],
        metrics: Sequence[str],
        labels: bool,
        on_nan: str,
        direction: str = "minimize",
        timeout: Optional[float] = None,
        callbacks: Sequence[Callable[[BatchReport], Any]] = (),
    ) -> None:
        if not callable(objective):
            raise TypeError(f"objective: expected a callable, got {type(objective).__name__}")
        if on_nan not in ("raise", "fail"):
            raise ValueError(f'on_nan: expected "raise" or "fail", got {on_nan!r}')
        if timeout is not None and not (isinstance(timeout, (int, float)) and timeout >= 0 and np.isfinite(timeout)):
            raise ValueError(f"timeout: expected a number of seconds >= 0, or None, got {timeout!r}")
        callbacks = list(callbacks or ())
        for i, c in enumerate(callbacks):
            if not callable(c):
                raise TypeError(f"callbacks[{i}]: expected a callable callback(report), got {type(c).__name__}")
        self.objective = objective
        self.metrics = list(metrics)
        self.on_nan = on_nan
        self.minimize = direction == "minimize"
        self.callbacks = callbacks
        self.started = time.monotonic()
        self.deadline = None if timeout is None else self.started + float(timeout)
        self.timeout = timeout
        # Why the study stopped before its last trial (None: it did not): a message for the caller.
        self.stop_reason: Optional[str] = None
        self.scored = 0
        self.best: Optional[float] = None
        # Columns whose index becomes a label (string categoricals), with their labels.
        self.label_columns = [
            (i, np.asarray(a["labels"], dtype=object))
            for i, a in enumerate(axes)
            if labels and a["kind"] == "categorical" and a.get("labels")
        ]

    def __call__(self, X: np.ndarray, batch: int,
                 first_trial: int) -> Optional[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        if self.stop_reason is None and self.deadline is not None and time.monotonic() >= self.deadline:
            self.stop_reason = f"timeout: {self.timeout:g} s passed before batch {batch}"
        if self.stop_reason is not None:
            return None  # the executor stops the run here (engine::Interrupted): batch `batch` is not told
        n = X.shape[0]
        where = f"batch {batch} (trials {first_trial}..{first_trial + n - 1})"
        if self.label_columns:
            X = X.astype(object)
            for column, labels in self.label_columns:
                X[:, column] = labels[X[:, column].astype(np.int64)]
        try:
            out = self.objective(X)
        except Exception as e:  # the objective's own error, with its traceback chained
            raise ObjectiveError(f"the objective raised {type(e).__name__} on {where}: {e}") from e
        result = self.check(out, n, where, first_trial)
        self._after_batch(X, batch, first_trial, result[0], result[1], where)
        return result

    def _after_batch(self, X: np.ndarray, batch: int, first_trial: int, scores: np.ndarray, violations: np.ndarray,
                     where: str) -> None:
        """Keeps the best feasible score so far and calls the callbacks with the batch."""
        self.scored += len(scores)
        feasible = scores[(violations <= 0) & ~np.isnan(scores)]
        if len(feasible):
            b = float(feasible.min() if self.minimize else feasible.max())
            if self.best is None or (b < self.best if self.minimize else b > self.best):
                self.best = b
        if not self.callbacks:
            return
        report = BatchReport(self, batch, first_trial, X, scores.copy(), violations.copy(), self.scored, self.best,
                             time.monotonic() - self.started)
        for c in self.callbacks:
            try:
                c(report)
            except Exception as e:
                raise ObjectiveError(f"a callback raised {type(e).__name__} after {where}: {e}") from e

    def check(self, out: Any, n: int, where: str, first_trial: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Splits and checks an objective's return value (see tpeopt.optimize)."""
        violations: Any = None
        metric_values: dict[str, Any] = {}
        if isinstance(out, Mapping):
            keys = set(out)
            if "score" not in keys:
                raise ObjectiveError(f"the objective returned a dict without 'score' on {where}")
            unknown = keys - {"score", "violation"} - set(self.metrics)
            if unknown:
                raise ObjectiveError(
                    f"the objective returned {sorted(unknown)} on {where}, which are not among the declared "
                    f"metrics {self.metrics} (tpeopt.optimize(..., metrics=[...]))"
                )
            missing = [m for m in self.metrics if m not in keys]
            if missing:
                raise ObjectiveError(f"the objective returned no {missing} on {where} (declared metrics)")
            scores, violations = out["score"], out.get("violation")
            metric_values = {m: out[m] for m in self.metrics}
        elif isinstance(out, tuple):
            if len(out) != 2:
                raise ObjectiveError(
                    f"the objective returned a tuple of {len(out)} items on {where}: expected scores, or a "
                    f"tuple (scores, violations), or a dict"
                )
            scores, violations = out
        elif out is None:
            raise ObjectiveError(
                f"the objective returned None on {where}: it must return the batch's scores, one number per row of "
                f"X (a missing `return`?)"
            )
        else:
            scores = out
        if self.metrics and not isinstance(out, Mapping):
            raise ObjectiveError(
                f"the objective declared metrics {self.metrics} but returned no dict on {where}: return "
                f"{{'score': ..., {', '.join(f'{m!r}: ...' for m in self.metrics)}}}"
            )

        s = self._column(scores, n, "scores", where)
        # NaN and +-inf alike: a score the sampler cannot rank (an infinite one would stay the best
        # or the worst for ever, and JSON has no infinity: top.json would say null).
        bad = ~np.isfinite(s)
        if bad.any():
            rows = np.flatnonzero(bad)
            if self.on_nan == "raise":
                raise ObjectiveError(
                    f"the objective returned NaN or infinite scores on {where}: {len(rows)} of {n}, first trial "
                    f"{first_trial + int(rows[0])} (row {int(rows[0])}: {s[rows[0]]}); return a finite number for "
                    f"every trial, or pass on_nan='fail' to record such a trial as failed (score NaN; the sampler "
                    f"ignores it, as Optuna ignores FAIL)"
                )
            s = s.copy()
            s[rows] = np.nan  # failed trials
        if violations is None:
            v = np.zeros(n)
        else:
            v = self._column(violations, n, "violations", where)
            bad = ~(v >= 0) | np.isinf(v)
            if bad.any():
                row = int(np.flatnonzero(bad)[0])
                raise ObjectiveError(
                    f"the objective returned violation {v[row]} for trial {first_trial + row} on {where}: "
                    f"expected a finite number >= 0 (0 = feasible)"
                )
        m = np.empty((n, len(self.metrics)))
        for k, name in enumerate(self.metrics):
            m[:, k] = self._column(metric_values[name], n, f"metric {name!r}", where)
        return s, v, m

    @staticmethod
    def _column(values: Any, n: int, what: str, where: str) -> np.ndarray:
        if values is None:
            raise ObjectiveError(f"the objective's {what} on {where} are None: expected one number per row of X")
        try:
            a = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise ObjectiveError(f"the objective's {what} on {where} are not numbers: {e}") from None
        if a.shape != (n,):
            raise ObjectiveError(
                f"the objective returned {what} of shape {a.shape} on {where}: expected ({n},), one per row of X"
            )
        return np.ascontiguousarray(a)
