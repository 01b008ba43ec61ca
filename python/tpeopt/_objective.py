"""The bridge between tpeopt's executor thread and a user's objective function.

The C++ executor (python/src/objective_executor.cpp) calls an ``Adapter`` with each batch's
parameters; the adapter calls the objective and checks what it returned, so that a bad
output stops the run with an error that names the batch, the trials and what was wrong.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ._tpeopt import Error


class ObjectiveError(Error):
    """The objective raised, or returned something tpeopt cannot record.

    The run stops; every batch told before is in the run's journal, and
    ``tpeopt.resume(dir, objective)`` continues it once the objective is fixed.
    """


class Adapter:
    """Calls ``objective(X)`` for one batch and returns (scores, violations, metrics).

    ``X`` has one row per trial and one column per axis (the space's order); string
    categoricals are their choice index, or their label with ``labels=True`` (then ``X``
    is an object array).
    """

    def __init__(
        self,
        objective: Callable[[np.ndarray], Any],
        axes: Sequence[Mapping[str, Any]],
        metrics: Sequence[str],
        labels: bool,
        on_nan: str,
    ) -> None:
        if not callable(objective):
            raise TypeError(f"objective: expected a callable, got {type(objective).__name__}")
        if on_nan not in ("raise", "fail"):
            raise ValueError(f'on_nan: expected "raise" or "fail", got {on_nan!r}')
        self.objective = objective
        self.metrics = list(metrics)
        self.on_nan = on_nan
        # Columns whose index becomes a label (string categoricals), with their labels.
        self.label_columns = [
            (i, np.asarray(a["labels"], dtype=object))
            for i, a in enumerate(axes)
            if labels and a["kind"] == "categorical" and a.get("labels")
        ]

    def __call__(self, X: np.ndarray, batch: int, first_trial: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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
        return self.check(out, n, where, first_trial)

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
        else:
            scores = out
        if self.metrics and not isinstance(out, Mapping):
            raise ObjectiveError(
                f"the objective declared metrics {self.metrics} but returned no dict on {where}: return "
                f"{{'score': ..., {', '.join(f'{m!r}: ...' for m in self.metrics)}}}"
            )

        s = self._column(scores, n, "scores", where)
        bad = np.isnan(s)
        if bad.any() and self.on_nan == "raise":
            rows = np.flatnonzero(bad)
            raise ObjectiveError(
                f"the objective returned NaN scores on {where}: {len(rows)} of {n}, first trial "
                f"{first_trial + int(rows[0])} (row {int(rows[0])}); return a number for every trial, or pass "
                f"on_nan='fail' to record NaN as a failed trial (the sampler ignores it, as Optuna ignores FAIL)"
            )
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
        try:
            a = np.asarray(values, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise ObjectiveError(f"the objective's {what} on {where} are not numbers: {e}") from None
        if a.shape != (n,):
            raise ObjectiveError(
                f"the objective returned {what} of shape {a.shape} on {where}: expected ({n},), one per row of X"
            )
        return np.ascontiguousarray(a)
