"""tpeopt from Python: pipelined batch TPE over trading-strategy backtests or any objective.

- ``run(config)``, ``resume(dir)``, ``verify(config)``, ``backtest(config, params)``: the
  command line's studies, returning a ``Study`` (trials as a pandas DataFrame, top, best,
  summary, trades).
- ``optimize(objective, space, ...)``: a Python objective (numpy, numba, CuPy, JAX,
  vectorbt) scored batch by batch on tpeopt's executor thread; recorded, journaled and
  resumable like any run; ``timeout=`` and per-batch ``callbacks=`` (a BatchReport each);
  ``study.best_trial``, ``best_value``, ``best_params`` as Optuna's.
- ``Sampler(space, ...)``: ``ask(n)`` / ``tell(scores)`` for a loop of one's own.
- ``to_optuna(run, storage)``: a run in an Optuna storage, for optuna-dashboard.
- ``strategies()``: the strategies of this build.

docs/python.md walks through them.
"""

from ._tpeopt import Error
from ._objective import BatchReport, ObjectiveError
from ._study import Study, Trial
from ._api import Backtest, Sampler, Verification, backtest, load, optimize, resume, run, strategies, verify
from ._optuna import to_optuna

__version__ = "0.1.0"

# Errors print as tpeopt.Error / tpeopt.ObjectiveError, where users catch them.
Error.__module__ = ObjectiveError.__module__ = "tpeopt"

__all__ = [
    "Backtest",
    "BatchReport",
    "Error",
    "ObjectiveError",
    "Sampler",
    "Study",
    "Trial",
    "Verification",
    "backtest",
    "load",
    "optimize",
    "resume",
    "run",
    "strategies",
    "to_optuna",
    "verify",
]
