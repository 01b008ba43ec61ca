"""A tpeopt run in an Optuna storage, for optuna.load_study, optuna.visualization and
optuna-dashboard (``tpeopt export optuna DIR --storage URL``)."""

from __future__ import annotations

import inspect
import math
import os
from typing import Any, Optional, Union

from . import _tpeopt
from ._study import Study


def _distributions(axes: list[dict]) -> dict[str, Any]:
    """Optuna's distribution of each axis of the run's config."""
    from optuna.distributions import CategoricalDistribution, FloatDistribution, IntDistribution

    out: dict[str, Any] = {}
    for a in axes:
        if a["kind"] == "float":
            out[a["name"]] = FloatDistribution(a["low"], a["high"], log=a["log"], step=a["step"])
        elif a["kind"] == "int":
            out[a["name"]] = IntDistribution(int(a["low"]), int(a["high"]), log=a["log"], step=int(a["step"] or 1))
        else:
            # String choices by label, numeric ones by value (floats: the config's numbers).
            choices = a["labels"] if a["labels"] else list(a["choices"])
            out[a["name"]] = CategoricalDistribution(choices)
    return out


def _param(axis: dict, value: Any) -> Any:
    if axis["kind"] == "int":
        return int(value)
    if axis["kind"] == "float":
        return float(value)
    if axis["labels"]:
        return str(value)
    v = float(value)
    for c in axis["choices"]:
        if c == v:
            return c
    raise ValueError(f"{axis['name']}: {value} is not one of its choices {axis['choices']}")


def _constraint_keywords(create_trial: Any, violation: float) -> dict[str, Any]:
    """The trial's violation as Optuna's constraint (feasible when <= 0), in the form this Optuna
    takes: create_trial's ``constraints`` where it has one (Optuna 5), else the system attribute
    "constraints" (a list of values) that Optuna 4's samplers write and its best_trial and
    optuna-dashboard read (Optuna 5 reads that too)."""
    if "constraints" in inspect.signature(create_trial).parameters:
        return {"constraints": {"violation": violation}}
    return {"system_attrs": {"constraints": [violation]}}


def _storage(storage: Any) -> Any:
    """A journal file (a path ending in .log or .jsonl, or 'journal:PATH'), an RDB URL
    ('sqlite:///x.db', 'postgresql://...'), or an Optuna storage object."""
    if not isinstance(storage, (str, os.PathLike)):
        return storage
    s = os.fspath(storage)
    if s.startswith("journal:") or s.endswith((".log", ".jsonl")) and "://" not in s:
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        return JournalStorage(JournalFileBackend(s.removeprefix("journal:")))
    return s


def to_optuna(
    run: Union[Study, str, os.PathLike],
    storage: Any,
    study_name: Optional[str] = None,
):
    """Writes a run directory's trials into an Optuna storage and returns the Optuna study.

    ``storage``: a journal file path (``runs.log``, or ``journal:PATH``; optuna-dashboard
    opens it as ``optuna-dashboard runs.log``), an RDB URL (``sqlite:///runs.db``), or an
    Optuna storage object. The study is named ``study_name`` (default: the run directory's
    name) and must not exist yet. Each trial keeps its number, parameters (Optuna's
    distributions of the config's axes: int, float, log, step, categorical) and score;
    a NaN score becomes a FAIL trial, a trial pruned by successive halving a PRUNED one, a
    violation > 0 Optuna's constraint (feasible when <= 0); batch, violation and metrics go
    to user attributes. Works with Optuna 4.0 and later (CI tests the lowest).
    """
    import optuna

    study = run if isinstance(run, Study) else Study(run)
    config = _tpeopt.load_run_config(os.fspath(study.dir))
    axes = config.axes
    distributions = _distributions(axes)
    trials = study.trials
    names = [a["name"] for a in axes]
    metric_columns = [
        c for c in trials.columns
        if c not in {"trial", "batch", "score", "violation", "rung", "pruned", "oos_score", "oos_violation",
                     "ask_ms", "exec_ms", "tell_ms", "wall_ms"} and c not in names
    ]
    frozen = []
    TrialState = optuna.trial.TrialState
    for row in trials.itertuples(index=False):
        r = row._asdict()
        score = float(r["score"])
        violation = float(r["violation"])
        pruned = bool(r.get("pruned", 0) == 1)
        if pruned:
            state, value = TrialState.PRUNED, None
        elif math.isnan(score):
            state, value = TrialState.FAIL, None
        else:
            state, value = TrialState.COMPLETE, score
        attrs: dict[str, Any] = {"tpeopt_trial": int(r["trial"]), "batch": int(r["batch"]), "violation": violation}
        for m in metric_columns:
            v = float(r[m])
            attrs[m] = None if math.isnan(v) else v
        frozen.append(
            optuna.trial.create_trial(
                state=state,
                value=value,
                params={a["name"]: _param(a, r[a["name"]]) for a in axes},
                distributions=distributions,
                user_attrs=attrs,
                intermediate_values={int(r["rung"]): score} if pruned and not math.isnan(score) else None,
                **_constraint_keywords(optuna.trial.create_trial, violation),
            )
        )
    name = study_name or study.dir.resolve().name
    try:
        target = optuna.create_study(storage=_storage(storage), study_name=name, direction=config.direction)
    except optuna.exceptions.DuplicatedStudyError:
        # Optuna's own message names its command line's --skip-if-exists, which is not ours.
        raise optuna.exceptions.DuplicatedStudyError(
            f"{storage} already has a study named {name!r}: export under another name (study_name=...; "
            f"--study-name on the command line), or into another storage, or delete that study first "
            f"(optuna.delete_study(study_name={name!r}, storage=...))"
        ) from None
    target.set_user_attr("tpeopt_run", os.fspath(study.dir.resolve()))
    target.set_user_attr("tpeopt_digest", study.digest)
    target.add_trials(frozen)
    return target
