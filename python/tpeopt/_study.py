"""A run directory seen from Python: what tpeopt.run, resume and optimize return."""

from __future__ import annotations

import json
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
        "selection_bias" (the verdict, the Deflated Sharpe Ratio, the PBO by CSCV and what was
        used, or "available": False and "why_not"), or None before the run's end."""
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
        """The best trial (top.json's first entry), or None."""
        top = self.top
        return top[0] if top else None

    @property
    def best_params(self) -> Optional[dict]:
        """The best trial's parameters, fixed ones included."""
        b = self.best
        return None if b is None else b["params"]

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
