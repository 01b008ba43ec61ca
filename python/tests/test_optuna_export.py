"""A run in an Optuna storage: optuna.load_study gives back its parameters and values."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest

import tpeopt
from conftest import cli_path
from objectives import SPACE, mixed, nan_half

optuna = pytest.importorskip("optuna")


def test_the_optuna_expected_is_the_one_imported():
    """scripts/test_python.sh runs these tests again with the lowest Optuna pyproject.toml allows."""
    expected = os.environ.get("TPEOPT_EXPECT_OPTUNA")
    if expected is None:
        pytest.skip("TPEOPT_EXPECT_OPTUNA not set")
    from packaging.version import Version  # an Optuna dependency

    assert Version(optuna.__version__) == Version(expected)


def constraint(trial) -> float:
    """A trial's one constraint value, in either form Optuna stores it (5: "constraints:violation";
    4: the list "constraints")."""
    if "constraints:violation" in trial.system_attrs:
        return trial.system_attrs["constraints:violation"]
    (value,) = trial.system_attrs["constraints"]
    return value


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> tpeopt.Study:
    return tpeopt.optimize(nan_half, SPACE, trials=128, batch=32, seed=2, on_nan="fail",
                           out=tmp_path_factory.mktemp("r") / "run", quiet=True)


def check_round_trip(study: tpeopt.Study, loaded) -> None:
    trials = study.trials
    got = loaded.get_trials(deepcopy=False)
    assert len(got) == len(trials)
    assert loaded.direction == optuna.study.StudyDirection.MINIMIZE
    d = got[0].distributions
    assert isinstance(d["x0"], optuna.distributions.FloatDistribution) and not d["x0"].log
    assert d["x1"].log and d["x2"].step == 0.25
    assert isinstance(d["n"], optuna.distributions.IntDistribution) and (d["n"].low, d["n"].high) == (1, 50)
    assert d["k"].choices == ("a", "b", "c") and d["w"].choices == (0.5, 1.0, 2.0)
    assert isinstance(d["m"], optuna.distributions.IntDistribution) and (d["m"].low, d["m"].high, d["m"].step) == (2, 20, 3)
    assert isinstance(d["x2"], optuna.distributions.FloatDistribution) and (d["x2"].low, d["x2"].high) == (-1.0, 1.0)
    for t, (_, row) in zip(got, trials.iterrows()):
        assert t.number == row["trial"] and t.user_attrs["batch"] == row["batch"]
        for name in SPACE:
            assert t.params[name] == row[name]
        assert constraint(t) == row["violation"]
        if math.isnan(row["score"]):
            assert t.state == optuna.trial.TrialState.FAIL and t.value is None
        else:
            assert t.state == optuna.trial.TrialState.COMPLETE and t.value == row["score"]
    failed = sum(t.state == optuna.trial.TrialState.FAIL for t in got)
    assert failed == int(trials["score"].isna().sum()) > 0
    best = study.best
    assert loaded.best_value == best["score"] and loaded.best_trial.number == best["trial"]
    assert loaded.best_trial.number == study.best_trial.number and loaded.best_value == study.best_value
    assert loaded.best_params == {k: v for k, v in study.best_params.items() if k in SPACE}


def test_constraints_and_best_trial_as_optuna_reads_them(tmp_path):
    """Violations become Optuna's constraints: its best_trial is tpeopt's, a feasible one, where
    infeasible trials score better."""
    study = tpeopt.optimize(lambda X: (X[:, 0], np.maximum(0.0, 0.5 - X[:, 0])),
                            {"x": {"type": "float", "low": 0, "high": 1}}, trials=128, batch=32, seed=3,
                            out=tmp_path / "run", quiet=True)
    loaded = tpeopt.to_optuna(study, str(tmp_path / "c.log"))
    trials = loaded.get_trials(deepcopy=False)
    assert [constraint(t) for t in trials] == list(study.trials["violation"])
    assert min(t.value for t in trials) < 0.5 <= loaded.best_value
    assert loaded.best_trial.number == study.best_trial.number and loaded.best_value == study.best_value
    assert loaded.best_params == study.best_params
    # The mixed objective's run too (several parameter kinds, metrics).
    mixed_run = tpeopt.optimize(mixed, SPACE, trials=128, batch=32, seed=5, metrics=["twice", "n_plus"],
                                out=tmp_path / "mixed", quiet=True)
    loaded = tpeopt.to_optuna(mixed_run, f"sqlite:///{tmp_path / 'm.db'}")
    assert loaded.best_trial.number == mixed_run.best_trial.number
    assert loaded.best_trial.user_attrs["twice"] == mixed_run.best_trial.metrics["twice"]


def test_journal_file_round_trip(tmp_path, run):
    path = tmp_path / "optuna.log"
    tpeopt.to_optuna(run, str(path), study_name="mine")
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path)))
    check_round_trip(run, optuna.load_study(study_name="mine", storage=storage))


def test_sqlite_round_trip(tmp_path, run):
    url = f"sqlite:///{tmp_path / 'optuna.db'}"
    run.to_optuna(url)
    loaded = optuna.load_study(study_name=run.dir.name, storage=url)
    check_round_trip(run, loaded)
    assert loaded.user_attrs["tpeopt_digest"] == run.digest


def test_optuna_visualization_opens_it(tmp_path, run):
    pytest.importorskip("plotly")
    loaded = tpeopt.to_optuna(run, str(tmp_path / "v.log"))
    fig = optuna.visualization.plot_optimization_history(loaded)
    values = [v for v in fig.data[0].y if not (isinstance(v, float) and math.isnan(v))]
    assert len(values) == int(run.trials["score"].notna().sum())
    assert optuna.visualization.plot_slice(loaded, params=["x0", "k"]).data


def test_command_line_export(tmp_path, run):
    cli = cli_path()
    env = dict(os.environ, TPEOPT_PYTHON=sys.executable)
    path = tmp_path / "cli.log"
    cmd = [str(cli), "export", "optuna"] if cli else [sys.executable, "-m", "tpeopt", "export", "optuna"]
    r = subprocess.run([*cmd, str(run.dir), "--storage", str(path)], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert f"exported 128 trials of {run.dir} to study 'run'" in r.stdout
    storage = optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path)))
    check_round_trip(run, optuna.load_study(study_name="run", storage=storage))
    # A second export into the same study is refused by Optuna, and said so with what tpeopt has.
    r = subprocess.run([*cmd, str(run.dir), "--storage", str(path)], env=env, capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert f"tpeopt export optuna: error: {path} already has a study named 'run': give another --study-name" in r.stderr
    assert "skip-if-exists" not in r.stderr and "load_if_exists" not in r.stderr
    with pytest.raises(optuna.exceptions.DuplicatedStudyError, match=r"already has a study named 'run': export under "
                       r"another name \(study_name=\.\.\.; --study-name on the command line\)") as e:
        tpeopt.to_optuna(run, str(path))
    assert "skip-if-exists" not in str(e.value)


def test_optuna_dashboard_opens_it(tmp_path, run):
    """optuna-dashboard's own server application, asked as a browser asks it, lists the
    exported study with every trial and its parameters."""
    import io
    import json

    optuna_dashboard = pytest.importorskip("optuna_dashboard")
    path = tmp_path / "dashboard.log"
    tpeopt.to_optuna(run, str(path), study_name="for-the-dashboard")
    app = optuna_dashboard.wsgi(optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(str(path))))

    def get(url: str) -> dict:
        status = []
        body = b"".join(app({"REQUEST_METHOD": "GET", "PATH_INFO": url, "QUERY_STRING": "", "SERVER_NAME": "test",
                             "SERVER_PORT": "80", "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(),
                             "wsgi.errors": sys.stderr},
                            lambda s, headers, exc_info=None: status.append(s)))
        assert status == ["200 OK"], (url, status, body[:500])
        return json.loads(body)

    studies = get("/api/studies")["study_summaries"]
    assert [s["study_name"] for s in studies] == ["for-the-dashboard"]
    detail = get(f"/api/studies/{studies[0]['study_id']}")
    assert len(detail["trials"]) == len(run.trials)
    first = detail["trials"][0]
    assert {p["name"] for p in first["params"]} == set(SPACE)
    assert [t["number"] for t in detail["best_trials"]] == [run.best["trial"]]
