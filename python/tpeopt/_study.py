"""A run directory seen from Python: what tpeopt.run, resume and optimize return."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Optional

import pandas as pd

# trials.csv writes every double as its shortest exact text: read it back to the same bits
# (pandas 3 does by default and deprecates the option).
_EXACT = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}


def _read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def _plain(v: Any) -> Any:
    """A pandas cell as a plain Python value (numpy scalars to int, float or str)."""
    return v.item() if hasattr(v, "item") else v


@dataclass(frozen=True)
class Trial:
    """One trial, as Study.best_trial returns it: ``number`` (the trial's number), ``value``
    (its score), ``params`` (name to value, string categoricals as labels, fixed parameters
    included), ``violation`` and ``metrics``. The attributes optuna.trial.FrozenTrial has
    of the same names mean the same."""

    number: int
    value: float
    params: dict
    violation: float = 0.0
    metrics: dict = field(default_factory=dict)


class Study:
    """The results of a run directory (docs/user-guide.md lists its files).

    Attributes are read from the directory when first used, so a Study of a long run
    costs nothing until asked.
    """

    def __init__(self, dir: str | Path) -> None:
        self.dir = Path(dir)
        if not (self.dir / "config.json").is_file():
            raise FileNotFoundError(f"{self.dir}: not a run directory (no config.json)")

    def __repr__(self) -> str:
        s = self.summary
        state = "no summary yet" if s is None else ("complete" if s.get("complete") else "interrupted")
        return f"<tpeopt.Study {str(self.dir)!r}: {self.config.get('strategy')}, {state}>"

    @cached_property
    def config(self) -> dict:
        """The resolved config (config.json): every default filled in."""
        return _read_json(self.dir / "config.json")

    @property
    def summary(self) -> Optional[dict]:
        """summary.json (trials, digest, timings in ms), or None before the run's end."""
        p = self.dir / "summary.json"
        return _read_json(p) if p.is_file() else None

    @property
    def digest(self) -> Optional[str]:
        """The run's digest: equal digests mean the same trials and scores, bit for bit."""
        s = self.summary
        return None if s is None else s["digest"]

    @property
    def selection_bias(self) -> Optional[dict]:
        """How much of the best is selection luck (docs/will-it-hold-up.md): summary.json's
        "selection_bias" (the verdict; "dsr", the standardized Deflated Sharpe Ratio the verdict
        reads, and "dsr_paper", the paper's; "pbo", the PBO by CSCV with the probability of
        loss and the performance degradation; what was used; or "available": False and
        "why_not"), or None before the run's end."""
        s = self.summary
        return None if s is None else s.get("selection_bias")

    @property
    def complete(self) -> bool:
        """Whether every trial of the study ran (False after an interruption)."""
        s = self.summary
        return bool(s and s.get("complete"))

    @property
    def top(self) -> list[dict]:
        """top.json: the best trials, best first: rank, trial, params, score, violation, metrics."""
        p = self.dir / "top.json"
        return _read_json(p) if p.is_file() else []

    @property
    def best(self) -> Optional[dict]:
        """The best trial as top.json ranks it (its first entry: feasible trials first, by
        score, then infeasible ones by violation), or None when no trial has a score (every
        one failed, or none ran). Unlike best_trial, an infeasible trial when no trial is
        feasible."""
        top = self.top
        # Failed trials (no score) rank last in top.json: one first means no trial has a score.
        return top[0] if top and top[0]["score"] is not None else None

    @property
    def best_trial(self) -> "Trial":
        """The best trial in Optuna's sense (optuna.Study.best_trial): the best score among
        the trials that completed (not failed: score NaN; not pruned) and are feasible
        (violation 0), the earliest of equal ones. Raises ValueError when there is none, as
        Optuna does. Read from top.json, or from trials.csv before the run wrote it (a run
        still going, or killed)."""
        top = self.top if (self.dir / "top.json").is_file() else None
        if top is not None:
            # top.json: feasible trials first (best first, earliest on ties), pruned ones left out.
            if not top or top[0]["score"] is None or top[0]["violation"] > 0:
                raise ValueError(f"{self.dir}: no feasible trial completed (no trial with a score and violation 0)")
            b = top[0]
            return Trial(number=int(b["trial"]), value=float(b["score"]), params=b["params"],
                         violation=float(b["violation"]), metrics=b.get("metrics", {}))
        return self._best_trial_from_csv()

    def _best_trial_from_csv(self) -> "Trial":
        t = self.trials
        ok = t["score"].notna() & (t["violation"] <= 0)
        if "pruned" in t.columns:
            ok &= t["pruned"] != 1
        t = t[ok]
        if t.empty:
            raise ValueError(f"{self.dir}: no feasible trial completed (no trial with a score and violation 0)")
        maximize = self.config.get("objective", {}).get("direction") == "maximize"
        best = t["score"].max() if maximize else t["score"].min()
        row = t[t["score"] == best].sort_values("trial").iloc[0]
        names = [n for n in self.config.get("params", {}) if n in t.columns]
        fixed = {n: v for n, v in self.config.get("params", {}).items() if n not in t.columns}
        params = {**{n: _plain(row[n]) for n in names}, **fixed}
        skip = {"trial", "batch", "score", "violation", "rung", "pruned", "oos_score", "oos_violation", "ask_ms",
                "exec_ms", "tell_ms", "wall_ms", *names}
        metrics = {c: _plain(row[c]) for c in t.columns if c not in skip}
        return Trial(number=int(row["trial"]), value=float(best), params=params, violation=float(row["violation"]),
                     metrics=metrics)

    @property
    def best_value(self) -> float:
        """best_trial's score (Optuna's best_value); ValueError when no feasible trial completed."""
        return self.best_trial.value

    @property
    def best_params(self) -> dict:
        """best_trial's parameters (Optuna's best_params), the fixed ones included; ValueError
        when no feasible trial completed."""
        return self.best_trial.params

    @property
    def timings(self) -> pd.DataFrame:
        """timings.csv: one row per batch (ask, executor, tell, overlap, idle ms; times since the start)."""
        return pd.read_csv(self.dir / "timings.csv", **_EXACT)

    @property
    def trials(self) -> pd.DataFrame:
        """Every trial (trials.csv): trial, batch, the parameters, score, violation, the metrics,
        and the batch's timings (ask_ms, exec_ms, tell_ms, wall_ms: when the batch was told,
        since the run started), indexed by trial number."""
        t = pd.read_csv(self.dir / "trials.csv", **_EXACT)
        timing = self.timings[["batch", "ask_ms", "exec_ms", "tell_ms", "wall_ms"]]
        return t.merge(timing, on="batch", how="left").set_index("trial", drop=False).rename_axis(None)

    @property
    def trades(self) -> Optional[pd.DataFrame]:
        """The best trial's trades (a backtest of its parameters), or None when the strategy has none."""
        from . import _tpeopt
        from ._api import backtest

        b = self.best
        config = _tpeopt.load_run_config(str(self.dir))
        if b is None or config.scored_by_caller:
            return None
        return backtest(config, b["params"]).trades

    def to_optuna(self, storage: str, study_name: Optional[str] = None):
        """Writes this run's trials into an Optuna storage (tpeopt.to_optuna)."""
        from ._optuna import to_optuna

        return to_optuna(self, storage, study_name=study_name)
