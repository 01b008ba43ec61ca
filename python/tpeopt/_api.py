"""tpeopt's Python API: studies from configs, any objective pipelined, a plain sampler."""

from __future__ import annotations

import json
import os
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from . import _tpeopt
from ._objective import Adapter, BatchReport, ObjectiveError
from ._study import Study

ConfigLike = Union[str, os.PathLike, Mapping[str, Any]]

__all__ = ["run", "resume", "load", "verify", "backtest", "optimize", "strategies", "Sampler", "Verification", "Backtest"]


# ---- configs and call options ------------------------------------------------------------


def _config(
    config: ConfigLike,
    *,
    trials: Optional[int] = None,
    batch: Optional[int] = None,
    depth: Optional[int] = None,
    seed: Optional[int] = None,
    executor: Optional[str] = None,
    base_dir: Optional[str] = None,
) -> _tpeopt.Config:
    """A validated config from a file or a dict, with the command line's overrides."""
    overrides = dict(trials=trials, batch=batch, depth=depth, seed=seed, executor=executor or "")
    if isinstance(config, Mapping):
        params = config.get("params")
        if isinstance(params, Mapping):
            # A tuple is no JSON value: json.dumps would write it as a list, which a config reads
            # as a list of values, when (-5, 5) most likely meant a range.
            for name, spec in params.items():
                if isinstance(spec, tuple):
                    raise TypeError(_list_spec_message(f"params[{name!r}]", spec))
        text = json.dumps(config)
        return _tpeopt.load_config(None, text, "<dict>", base_dir or os.getcwd(), **overrides)
    return _tpeopt.load_config(os.fspath(config), None, "", "", **overrides)


def _in_notebook() -> bool:
    return "ipykernel" in sys.modules


class _Writer:
    """Where the engine's progress goes: sys.stderr as it is at each write (a notebook's too)."""

    def __call__(self, text: str) -> None:
        sys.stderr.write(text)
        sys.stderr.flush()


def _call(
    *,
    serial: bool = False,
    threads: int = 0,
    block_size: int = 128,
    devices: str = "",
    quiet: bool = False,
    adapter: Optional[Adapter] = None,
    handle_signals: bool = True,
) -> _tpeopt.CallOptions:
    c = _tpeopt.CallOptions()
    c.serial = serial
    c.threads = threads
    c.block_size = block_size
    c.devices = devices
    c.writer = None if quiet else _Writer()
    # One progress line rewritten in place on a terminal or in a notebook, else a line per batch.
    isatty = getattr(sys.stderr, "isatty", lambda: False)
    c.progress_line = bool(_in_notebook() or isatty())
    # Signal handlers can only be set from the main thread (as Python's own).
    c.handle_signals = handle_signals and threading.current_thread() is threading.main_thread()
    c.adapter = adapter
    return c


def _finish(outcome: dict, adapter: Optional[Adapter] = None, quiet: bool = True) -> Study:
    """The Study of a run that returned; Ctrl-C (the first one) ends as the CLI's does, a
    stop asked for (a timeout, a callback) returns the Study of the trials recorded."""
    study = Study(outcome["dir"])
    if outcome["stopped_early"] and adapter is not None and adapter.stop_reason is not None:
        if not quiet:
            sys.stderr.write(f"tpeopt: {adapter.stop_reason}: {outcome['trials']} trials recorded in "
                             f"{outcome['dir']}\n")
        return study
    if outcome["stopped_early"]:
        raise KeyboardInterrupt(
            f"interrupted after {outcome['trials']} trials; the journal is consistent. Continue with: "
            f"tpeopt.resume({outcome['dir']!r}{', objective' if outcome['scored_by_caller'] else ''})"
        )
    return study


def _adapter(cfg: _tpeopt.Config, objective: Optional[Callable], labels: bool, on_nan: str,
             timeout: Optional[float] = None, callbacks: Sequence[Callable] = ()) -> Optional[Adapter]:
    if objective is None:
        if timeout is not None or callbacks:
            raise ValueError("timeout and callbacks: for a study scored by a Python objective (tpeopt.optimize)")
        return None
    return Adapter(objective, cfg.axes, cfg.objective_metrics, labels, on_nan, cfg.direction, timeout, callbacks)


def _add_journal_hint(e: ObjectiveError, dir: str) -> None:
    """Adds where the told trials are and how to continue to an objective's error."""
    e.args = (
        f"{e.args[0] if e.args else e}\nthe run stopped; the trials told so far are safe in {dir}/journal.bin; fix "
        f"the objective and continue with: tpeopt.resume({dir!r}, objective)",
    )


# ---- studies from configs ----------------------------------------------------------------


def strategies() -> pd.DataFrame:
    """The strategies of this build, one row each, as ``tpeopt strategies`` lists them: name,
    summary, parameters (empty where the config's parameters are the strategy's),
    ``scored_by_caller`` (a Python function scores its trials: tpeopt.optimize), and what it
    can do besides a score (``cuda``, ``trades``, ``symbols``, ``subsets``), and for a strategy
    with trades the metric that counts them (``trade_count_metric``: "trades", or trade_filter's
    "kept")."""
    return pd.DataFrame(_tpeopt.strategies())


def run(
    config: ConfigLike,
    *,
    out: Optional[str | os.PathLike] = None,
    trials: Optional[int] = None,
    batch: Optional[int] = None,
    depth: Optional[int] = None,
    seed: Optional[int] = None,
    executor: Optional[str] = None,
    serial: bool = False,
    threads: int = 0,
    block_size: int = 128,
    devices: str = "",
    quiet: bool = False,
    objective: Optional[Callable[[np.ndarray], Any]] = None,
    labels: bool = False,
    on_nan: str = "raise",
    timeout: Optional[float] = None,
    callbacks: Sequence[Callable[[BatchReport], Any]] = (),
) -> Study:
    """Runs a study and writes its run directory, as ``tpeopt run`` does.

    ``config`` is a config file or a dict of the same shape (docs/user-guide.md; a dict's
    relative data paths are read from the current directory). The keywords override the
    config as the command line's flags do. ``out`` is the run directory (default
    ``runs/<time>-<strategy>``; must be new or empty). The GIL is released while the
    engine runs. The first Ctrl-C stops after the batch being told and raises
    KeyboardInterrupt naming how to resume; a second one ends the process at once (the
    journal is consistent either way).

    A config of ``"strategy": "python_objective"`` (what optimize() writes) is scored by
    ``objective`` (see optimize(), which also says what ``timeout`` and ``callbacks`` do).
    Returns the run's Study.
    """
    cfg = _config(config, trials=trials, batch=batch, depth=depth, seed=seed, executor=executor)
    adapter = _adapter(cfg, objective, labels, on_nan, timeout, callbacks)
    call = _call(serial=serial, threads=threads, block_size=block_size, devices=devices, quiet=quiet,
                 adapter=adapter)
    d = _tpeopt.default_run_dir(cfg) if out is None else os.fspath(out)
    try:
        outcome = _tpeopt.run(cfg, d, call)
    except ObjectiveError as e:
        _add_journal_hint(e, d)
        raise
    return _finish(outcome, adapter, quiet)


def resume(
    dir: str | os.PathLike,
    objective: Optional[Callable[[np.ndarray], Any]] = None,
    *,
    executor: Optional[str] = None,
    serial: bool = False,
    threads: int = 0,
    block_size: int = 128,
    devices: str = "",
    quiet: bool = False,
    labels: bool = False,
    on_nan: str = "raise",
    timeout: Optional[float] = None,
    callbacks: Sequence[Callable[[BatchReport], Any]] = (),
) -> Study:
    """Continues an interrupted run from its journal, as ``tpeopt resume DIR`` does.

    The result is the run an uninterrupted one would have given: same trials, scores and
    digest. A Python objective's run needs its objective again (the same function: it must
    be deterministic, a trial's score depending only on its parameters), with the same
    ``labels`` and ``on_nan``; ``timeout`` and ``callbacks`` are optimize()'s (counted from
    this call; the replayed batches are not called back). Refused when the config or the
    data changed.
    """
    d = os.fspath(dir)
    adapter = None
    if objective is not None or timeout is not None or callbacks:
        cfg = _tpeopt.load_run_config(d)
        adapter = _adapter(cfg, objective, labels, on_nan, timeout, callbacks)
    call = _call(serial=serial, threads=threads, block_size=block_size, devices=devices, quiet=quiet, adapter=adapter)
    try:
        outcome = _tpeopt.resume(d, executor or "", call)
    except ObjectiveError as e:
        _add_journal_hint(e, d)
        raise
    return _finish(outcome, adapter, quiet)


def load(dir: str | os.PathLike) -> Study:
    """Opens an existing run directory (complete, interrupted or running)."""
    return Study(dir)


@dataclass
class Verification:
    """What verify() found: ``bool(v)`` is ``v.identical``."""

    identical: bool
    trials: int
    digest: str
    serial_digest: str
    difference: str

    def __bool__(self) -> bool:
        return self.identical


def verify(
    config: ConfigLike,
    *,
    trials: Optional[int] = None,
    batch: Optional[int] = None,
    depth: Optional[int] = None,
    seed: Optional[int] = None,
    executor: Optional[str] = None,
    threads: int = 0,
    block_size: int = 128,
    devices: str = "",
    objective: Optional[Callable[[np.ndarray], Any]] = None,
    labels: bool = False,
    on_nan: str = "raise",
) -> Verification:
    """Runs the study pipelined and then serially and compares every trial bit for bit, as
    ``tpeopt verify`` does (no run directory). A ``"strategy": "python_objective"`` config takes its
    ``objective``. Returns a Verification (``difference`` names the first differing trial)."""
    cfg = _config(config, trials=trials, batch=batch, depth=depth, seed=seed, executor=executor)
    call = _call(threads=threads, block_size=block_size, devices=devices, quiet=True,
                 adapter=_adapter(cfg, objective, labels, on_nan))
    return Verification(**_tpeopt.verify(cfg, call))


@dataclass
class Backtest:
    """One parameter set backtested (tpeopt.backtest)."""

    params: dict
    score: float
    violation: float
    metrics: dict
    trades: Optional[pd.DataFrame] = None
    symbols: Optional[pd.DataFrame] = None


def backtest(
    config: Union[ConfigLike, _tpeopt.Config],
    params: Mapping[str, Any],
    *,
    executor: str = "cpu",
    trades: bool = True,
    block_size: int = 128,
    base_dir: Optional[str] = None,
) -> Backtest:
    """Backtests one parameter set, as ``tpeopt backtest`` does: score, violation, metrics,
    and (for a strategy with trades) its trades as a DataFrame with entry and exit times
    (UTC); over several symbols also each symbol's results. ``params`` maps names to values
    (labels for string categoricals, as top.json writes them); names it leaves out take the
    config's fixed value, then the strategy's default. ``executor`` is ``"cpu"`` (the
    reference), ``"cuda"`` or ``"auto"``; they agree bit for bit. The GIL is released while
    the backtest runs."""
    cfg = config if isinstance(config, _tpeopt.Config) else _config(config, base_dir=base_dir)
    r = _tpeopt.backtest(cfg, dict(params), executor, trades, block_size)
    t = None
    if r["trades"] is not None:
        t = pd.DataFrame(r["trades"])
        # The strategy's columns come as text (what --trades-out writes): numbers where they are.
        for c in t.columns:
            if c in ("symbol", "entry_time", "exit_time"):
                continue
            try:
                t[c] = pd.to_numeric(t[c])
            except (ValueError, TypeError):
                pass
        for c in ("entry_time", "exit_time"):
            t[c] = pd.to_datetime(t[c], unit="ms", utc=True)
    s = pd.DataFrame(r["symbols"]) if r["symbols"] is not None else None
    return Backtest(r["params"], r["score"], r["violation"], r["metrics"], t, s)


# ---- any objective, pipelined ------------------------------------------------------------


def _list_spec_message(where: str, spec: Any) -> str:
    """Why a tuple or list is refused where a parameter's spec is expected, and what to write."""
    values = spec.tolist() if isinstance(spec, np.ndarray) else list(spec)
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
    lo, hi = (values[0], values[-1]) if len(values) >= 2 and numbers else ("LOW", "HIGH")
    kind = "int" if numbers and all(isinstance(v, int) for v in values) else "float"
    shown = json.dumps(values) if numbers else "[...]"
    return (
        f"{where}: got a {type(spec).__name__} {spec!r}: a parameter's spec is a dict. A range: "
        f'{{"type": "{kind}", "low": {lo}, "high": {hi}}} (with "step" or "log": True if wanted); a list '
        f'of choices: {{"values": {shown}}} (numbers) or {{"type": "categorical", "choices": [...]}}; a fixed '
        f"value: a plain number"
    )


def _study_dict(
    space: Mapping[str, Any],
    *,
    trials: int,
    batch: int,
    depth: int,
    sampler: str,
    seed: int,
    direction: str,
    metrics: Sequence[str],
    top_k: int,
    settings: Optional[Mapping[str, Any]],
) -> dict:
    if not isinstance(space, Mapping):
        raise TypeError(f"space: expected a dict of parameters {{name: spec}}, got {type(space).__name__}")
    for name, spec in space.items():
        if isinstance(spec, (tuple, list, np.ndarray)):
            raise TypeError(_list_spec_message(f"space[{name!r}]", spec))
    search: dict[str, Any] = {"sampler": sampler, "trials": trials, "batch": batch, "depth": depth, "seed": seed,
                              "top_k": top_k}
    if settings:
        search[sampler] = dict(settings)
    objective: dict[str, Any] = {"direction": direction}
    if metrics:
        objective["metrics"] = list(metrics)
    return {"strategy": "python_objective", "objective": objective, "search": search, "params": dict(space)}


def optimize(
    objective: Callable[[np.ndarray], Any],
    space: Mapping[str, Any],
    *,
    trials: int = 1000,
    batch: int = 256,
    depth: int = 1,
    sampler: str = "tpe",
    seed: int = 0,
    direction: str = "minimize",
    metrics: Sequence[str] = (),
    settings: Optional[Mapping[str, Any]] = None,
    top_k: int = 10,
    out: Optional[str | os.PathLike] = None,
    serial: bool = False,
    labels: bool = False,
    on_nan: str = "raise",
    quiet: bool = False,
    timeout: Optional[float] = None,
    callbacks: Sequence[Callable[[BatchReport], Any]] = (),
) -> Study:
    """Optimizes a Python objective with tpeopt's pipelined sampler.

    ``objective(X)`` gets a batch: a float64 array with one row per trial and one column
    per parameter of ``space`` (in its order; string categoricals as their choice index, or
    their label with ``labels=True``). It returns the batch's scores (one number per row),
    or a tuple ``(scores, violations)`` (violation 0 = feasible, > 0 = by how much a
    constraint is missed), or a dict ``{"score": ..., "violation": ..., <metric>: ...}``
    with every name of ``metrics``. NaN and infinite (+-inf) scores are an error unless
    ``on_nan="fail"`` (then failed trials, recorded as NaN: the sampler ignores them). The
    objective runs on the engine's executor thread while the C++ sampler asks the next
    batch when ``depth`` > 1, so a GPU backtest overlaps TPE's ask.

    ``space`` is a config's ``params`` object, a dict per parameter: ``{"x": {"type":
    "float", "low": -5, "high": 5}, "n": {"type": "int", "low": 1, "high": 50, "step": 2},
    "lr": {"type": "float", "low": 1e-4, "high": 1, "log": True}, "w": {"values": [0.5, 1,
    2]}, "kind": {"type": "categorical", "choices": ["a", "b"]}}``; a tuple or list such as
    ``(-5, 5)`` is refused (a range or a list of values? the message shows both).
    ``sampler`` is tpe (batch TPE by default; ``settings={"preset": "optuna"}`` for Optuna's
    TPE), ga, random or grid; ``settings`` holds that sampler's keys (docs/user-guide.md).

    Depth. ``depth`` is how many batches are in flight: at 1 (the default) batch k + 1 is
    asked after batch k is told; at 2 it is asked while batch k is scored, so the sampler's
    ask overlaps the objective, but each ask knows one batch fewer. Depth 2 can save at most
    the run's ask time (``study.summary["ask_ms"]``), and costs quality: over 3 objectives
    (a 12-d rotated ellipsoid + Rastrigin, an 8-d Rosenbrock, a constrained mixed space),
    5 seeds and 1,000/256, 4,096/256 and 20,000/1,000 trials/batch, depth 1 found the better
    value in 39 of 45 runs (the ellipsoid at 20,000/1,000: 0.0028 against 0.23, medians), at
    the same wall time for a cheap objective, and with 20 ms of sleep per batch added the
    ask depth 2 could hide was under 30 ms a run (held out: a 10-d Ackley, depth 1 better in
    15 of 15; docs/benchmarks.md, "Python: pipeline depth", which says where and when
    ``bench/python/depth.py`` measured it). Choose depth 2 when the ask is long (many axes,
    multivariate TPE, large batches: ``ask_ms`` a large share of ``wall_ms``) and the
    objective takes as long.

    Stopping early. ``timeout`` (seconds, counted from the call): no batch starts after it;
    the batch running then is finished and recorded (Optuna's timeout stops the same way
    after the trial running). ``callbacks``: functions called as ``callback(report)`` after
    each batch is scored, in order, on the executor thread; ``report`` is a
    tpeopt.BatchReport (``batch``, ``first_trial``, ``X``, ``scores``, ``violations``,
    ``trials``, ``best_value``, ``elapsed``) and ``report.stop()`` ends the study after that
    batch. A study stopped either way returns its Study with the trials recorded
    (``study.complete`` is False); they are the first batches of the run without the stop,
    bit for bit, and ``tpeopt.resume(dir, objective)`` continues it to that run. A timeout
    makes the number of trials depend on the machine's speed, never the trials themselves; a
    callback that decides from the reports alone (not the clock) stops at the same batch
    every time, pipelined or serial.

    The run is recorded like any other: a run directory (``out``, default
    ``runs/<time>-python_objective``), a journal of told batches, trials.csv. The objective must be
    deterministic (a trial's score depends only on its parameters): then a pipelined run
    equals the serial one (``serial=True``) bit for bit, and ``tpeopt.resume(dir,
    objective)`` after a crash, a kill -9 or Ctrl-C gives the uninterrupted run.
    Returns the run's Study (``study.best_trial``, ``best_value`` and ``best_params`` in
    Optuna's sense, ``study.trials`` as a DataFrame).
    """
    config = _study_dict(space, trials=trials, batch=batch, depth=depth, sampler=sampler, seed=seed,
                         direction=direction, metrics=metrics, top_k=top_k, settings=settings)
    return run(config, out=out, serial=serial, quiet=quiet, objective=objective, labels=labels, on_nan=on_nan,
               timeout=timeout, callbacks=callbacks)


class Sampler:
    """tpeopt's sampler for a loop of one's own: ``X = s.ask(n)``, evaluate, ``s.tell(scores)``.

    ``space``, ``sampler``, ``seed``, ``direction`` and ``settings`` are optimize()'s.
    Trials are numbered 0, 1, ... in the order asked; several blocks may be asked before
    they are told (as the pipeline keeps ``depth`` batches in flight), and blocks are told
    in the order they were asked. The same calls give the same trials bit for bit.
    """

    def __init__(
        self,
        space: Mapping[str, Any],
        *,
        sampler: str = "tpe",
        seed: int = 0,
        direction: str = "minimize",
        settings: Optional[Mapping[str, Any]] = None,
    ) -> None:
        d = _study_dict(space, trials=1, batch=1, depth=1, sampler=sampler, seed=seed, direction=direction,
                        metrics=(), top_k=10, settings=settings)
        self._config = _config(d)
        self._sampler = _tpeopt.Sampler(self._config)
        self.names: list[str] = [a["name"] for a in self._config.axes]
        """The parameters' names: the columns of ask()'s arrays."""

    def ask(self, n: int) -> np.ndarray:
        """The next ``n`` trials: a float64 array of shape (n, len(names)); string
        categoricals as their choice index. The GIL is released while the sampler works."""
        return self._sampler.ask(int(n))

    def tell(self, scores: Any, violations: Any = None) -> None:
        """Tells the outcomes of the oldest block asked and not yet told: one score per trial
        (NaN = a failed trial; +-inf too, as tpeopt.optimize's on_nan="fail" records it), and
        optionally violations (>= 0; 0 = feasible)."""
        if scores is None:
            raise ValueError("tell: scores is None: expected one number per trial")
        s = np.array(scores, dtype=np.float64)  # a copy: infinite scores become NaN below
        s[np.isinf(s)] = np.nan
        v = None if violations is None else np.ascontiguousarray(violations, dtype=np.float64)
        if s.ndim != 1:
            raise ValueError(f"tell: scores must be one number per trial, got shape {s.shape}")
        if v is not None and v.ndim != 1:
            raise ValueError(f"tell: violations must be one number per trial, got shape {v.shape}")
        self._sampler.tell(s, v)

    @property
    def asked(self) -> int:
        """Trials asked so far."""
        return self._sampler.asked

    @property
    def told(self) -> int:
        """Trials told so far."""
        return self._sampler.told
