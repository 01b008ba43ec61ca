"""tpeopt.optimize: a Python objective through the pipeline, journal and resume."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import tpeopt
from conftest import ROOT, cli_path
from objectives import SPACE, FailAt, Inf, KillAt, Slow, mixed, sphere

RUN = dict(trials=384, batch=64, seed=7, metrics=["twice", "n_plus"], quiet=True)


def journal_batches(dir: Path) -> int:
    return int(tpeopt.load(dir).trials["batch"].max()) + 1


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tpeopt.Study:
    """The uninterrupted pipelined run every other run of SPACE is compared with."""
    return tpeopt.optimize(mixed, SPACE, out=tmp_path_factory.mktemp("ref") / "run", **RUN)


def test_a_run_records_every_trial(reference):
    t = reference.trials
    assert len(t) == 384 and reference.complete
    assert list(t.columns[:9]) == ["trial", "batch", "x0", "x1", "x2", "n", "k", "w", "m"]
    assert {"score", "violation", "twice", "n_plus", "ask_ms", "exec_ms", "tell_ms", "wall_ms"} <= set(t.columns)
    assert set(t["k"]) <= {"a", "b", "c"} and set(t["w"]) <= {0.5, 1.0, 2.0}
    assert (t["n"] == t["n"].round()).all() and t["n"].between(1, 50).all()
    assert np.array_equal(t["twice"], 2 * t["score"])
    assert (t["violation"] == np.maximum(0.0, t["x0"] - 4.0)).all()
    # trials.csv reads back to the very bits the objective saw and returned.
    assert set(t["m"]) <= {2, 5, 8, 11, 14, 17, 20}
    X = np.column_stack([t["x0"], t["x1"], t["x2"], t["n"], t["k"].map({"a": 0, "b": 1, "c": 2}), t["w"], t["m"]])
    assert np.array_equal(mixed(X)["score"], t["score"].to_numpy())
    best = reference.best
    feasible = t[t["violation"] == 0]
    assert best["score"] == feasible["score"].min() and best["violation"] == 0
    assert set(best["params"]) == set(SPACE) and best["metrics"]["twice"] == 2 * best["score"]
    assert reference.config["strategy"] == "python_objective"
    assert reference.config["objective"]["metrics"] == ["twice", "n_plus"]


@pytest.mark.parametrize("depth", [1, 3])
def test_pipelined_equals_serial(tmp_path, depth):
    pipelined = tpeopt.optimize(mixed, SPACE, depth=depth, out=tmp_path / "p", **RUN)
    serial = tpeopt.optimize(mixed, SPACE, depth=depth, serial=True, out=tmp_path / "s", **RUN)
    assert pipelined.digest == serial.digest
    v = tpeopt.verify(json.loads((tmp_path / "p" / "config.json").read_text()), objective=mixed)
    assert v.identical and v.digest == pipelined.digest and v.trials == 384


def test_the_objective_overlaps_the_samplers_ask(tmp_path):
    """Pipelined at depth 2, the objective of batch k runs while the C++ sampler asks batch
    k + 1 (its sleep releases the GIL, as a GPU backtest's wait does); serial, nothing overlaps."""
    slow = Slow(0.03)
    kw = dict(trials=640, batch=64, depth=2, seed=3, metrics=["twice", "n_plus"], quiet=True)
    pipelined = tpeopt.optimize(slow, SPACE, out=tmp_path / "p", **kw).summary
    serial = tpeopt.optimize(slow, SPACE, serial=True, out=tmp_path / "s", **kw).summary
    assert pipelined["digest"] == serial["digest"]
    assert pipelined["ask_ms"] > 0 and pipelined["overlap_ms"] > 0.5 * pipelined["ask_ms"]
    assert serial["overlap_ms"] == 0


def test_equals_the_builtin_executor(tmp_path):
    """The numpy sphere through the Python executor gives the functions strategy's run bit for bit."""
    space = {f"x{i}": {"type": "float", "low": -5.12, "high": 5.12} for i in range(4)}
    config = {"strategy": "functions", "function": "sphere", "search": {"trials": 256, "batch": 32, "seed": 3},
              "params": space}
    builtin = tpeopt.run(config, out=tmp_path / "builtin", executor="cpu", quiet=True)
    # depth=2: the config's default (optimize's is 1).
    python = tpeopt.optimize(sphere, space, trials=256, batch=32, depth=2, seed=3, out=tmp_path / "py", quiet=True)
    assert python.digest == builtin.digest
    assert python.trials[["x0", "score"]].equals(builtin.trials[["x0", "score"]])


def test_resume_after_kill_9_equals_the_uninterrupted_run(tmp_path, reference):
    out = tmp_path / "killed"
    code = (
        "import tpeopt, objectives as o\n"
        f"tpeopt.optimize(o.KillAt(4), o.SPACE, out={str(out)!r}, **{RUN!r})\n"
    )
    r = subprocess.run([sys.executable, "-c", code], cwd=Path(__file__).parent, capture_output=True, text=True)
    assert r.returncode == -9, r.stderr
    assert not (out / "summary.json").exists()
    rows = len(tpeopt.load(out).trials)
    study = tpeopt.resume(out, mixed, quiet=True)
    assert study.complete and study.digest == reference.digest
    # Batches 0..3 were evaluated; the kill came while batch 4 was (the sampler thread may
    # have journaled fewer, never more, and trials.csv follows the journal).
    told = study.summary["replayed_batches"]
    assert 1 <= told <= 4 and rows <= told * 64


def test_ctrl_c_stops_after_a_batch_and_resumes(tmp_path, reference):
    out = tmp_path / "interrupted"
    code = (
        "import tpeopt, objectives as o\n"
        f"tpeopt.optimize(o.Slow(0.25), o.SPACE, out={str(out)!r}, **{RUN!r})\n"
    )
    p = subprocess.Popen([sys.executable, "-c", code], cwd=Path(__file__).parent, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (out / "trials.csv").exists() or len((out / "trials.csv").read_text().splitlines()) < 2:
        assert time.monotonic() < deadline and p.poll() is None
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode != 0
    assert "tpeopt: interrupt: stopping after the batch being told" in err
    assert "KeyboardInterrupt: interrupted after" in err and f"tpeopt.resume({str(out)!r}, objective)" in err
    summary = tpeopt.load(out).summary
    assert summary is not None and not summary["complete"] and 64 <= summary["trials"] < 384
    assert tpeopt.resume(out, mixed, quiet=True).digest == reference.digest


def bad_length(X):
    s = mixed(X)
    s["score"] = s["score"][:-1]
    return s


def plain_scores(X):
    return mixed(X)["score"]


def nan_score(X):
    s = mixed(X)
    s["score"] = s["score"].copy()
    s["score"][5] = np.nan
    return s


def raises(X):
    raise ZeroDivisionError("boom")


def strings(X):
    s = mixed(X)
    s["score"] = ["x"] * len(X)
    return s


def negative_violation(X):
    s = mixed(X)
    s["violation"] = -np.ones(len(X))
    return s


def undeclared_metric(X):
    s = mixed(X)
    s["extra"] = s["score"]
    return s


@pytest.mark.parametrize(
    "bad, message",
    [
        (bad_length, r"scores of shape \(63,\) on batch 2 \(trials 128\.\.191\): expected \(64,\)"),
        (nan_score, r"NaN or infinite scores on batch 2 \(trials 128\.\.191\): 1 of 64, first trial 133 \(row 5: nan\)"
                    r".*on_nan='fail'"),
        (Inf(float("inf")), r"NaN or infinite scores on batch 2 \(trials 128\.\.191\): 1 of 64, first trial 133 "
                            r"\(row 5: inf\).*on_nan='fail'"),
        (Inf(-float("inf")), r"NaN or infinite scores on batch 2 .*\(row 5: -inf\)"),
        (lambda X: None, r"the objective returned None on batch 2 \(trials 128\.\.191\): it must return the batch's "
                         r"scores, one number per row of X \(a missing `return`\?\)"),
        (lambda X: {**mixed(X), "score": None}, r"the objective's scores on batch 2 .* are None"),
        (raises, r"the objective raised ZeroDivisionError on batch 2 \(trials 128\.\.191\): boom"),
        (strings, r"the objective's scores on batch 2 .* are not numbers"),
        (negative_violation, r"violation -1\.0 for trial 128 on batch 2 .*expected a finite number >= 0"),
        (undeclared_metric, r"returned \['extra'\] on batch 2 .*not among the declared metrics"),
        (plain_scores, r"declared metrics \['twice', 'n_plus'\] but returned no dict on batch 2 \(trials 128\.\.191\): "
                       r"return \{'score': \.\.\., 'twice': \.\.\., 'n_plus': \.\.\.\}"),
    ],
)
def test_bad_outputs_stop_with_a_clear_error_and_a_consistent_journal(tmp_path, reference, bad, message):
    out = tmp_path / "bad"
    with pytest.raises(tpeopt.ObjectiveError, match=message) as e:
        tpeopt.optimize(FailAt(2, bad), SPACE, out=out, **RUN)
    assert f"safe in {out}/journal.bin" in str(e.value) and "tpeopt.resume(" in str(e.value)
    if bad is raises:
        assert isinstance(e.value.__cause__, ZeroDivisionError)
    # Batches 0 and 1 were told and journaled before batch 2 failed; resuming with a good
    # objective ends where the uninterrupted run does.
    assert journal_batches(out) == 2
    assert tpeopt.resume(out, mixed, quiet=True).digest == reference.digest


def test_nan_as_failed_trials(tmp_path):
    study = tpeopt.optimize(nan_score, SPACE, on_nan="fail", out=tmp_path / "r", **RUN)
    t = study.trials
    assert t["score"].isna().sum() == 384 // 64  # row 5 of every batch
    assert not np.isnan(study.best["score"])


def test_labels_and_tuples(tmp_path):
    seen = []

    def objective(X):
        seen.append(X)
        return (X[:, 0] ** 2, np.zeros(len(X)))

    space = {"x": {"type": "float", "low": -1, "high": 1}, "k": {"type": "categorical", "choices": ["lo", "hi"]}}
    tpeopt.optimize(objective, space, trials=64, batch=32, labels=True, out=tmp_path / "r", quiet=True)
    assert seen[0].dtype == object and set(seen[0][:, 1]) <= {"lo", "hi"} and isinstance(seen[0][0, 0], float)


def test_a_python_run_is_refused_without_its_objective(tmp_path, reference):
    with pytest.raises(tpeopt.Error, match=r"config\.json: strategy python_objective: give the objective function"):
        tpeopt.resume(reference.dir)
    with pytest.raises(tpeopt.Error, match=r"objective: strategy functions scores its own trials"):
        tpeopt.run(ROOT / "examples" / "functions_rastrigin.json", objective=mixed, out=tmp_path / "r")
    with pytest.raises(tpeopt.Error, match=r"objective\.metrics: unknown key"):
        tpeopt.run({"strategy": "functions", "function": "sphere", "objective": {"metrics": ["a"]},
                    "params": {"x": {"type": "float", "low": 0, "high": 1}}}, out=tmp_path / "r")
    with pytest.raises(tpeopt.Error, match=r"params\.fixed: a Python objective is given the searched parameters only"):
        tpeopt.optimize(mixed, {**SPACE, "fixed": 2.0}, out=tmp_path / "r")
    with pytest.raises(tpeopt.Error, match=r'objective\.metrics\[0\]: "x0" is also a parameter'):
        tpeopt.optimize(mixed, SPACE, metrics=["x0"], out=tmp_path / "r")
    assert not (tmp_path / "r").exists()
    # The command line cannot call the function: it says where the study runs, writing nothing.
    cli = cli_path()
    if cli is not None:
        r = subprocess.run([str(cli), "resume", str(reference.dir)], capture_output=True, text=True)
        assert r.returncode == 2 and "scored by a Python function" in r.stderr and "tpeopt.resume(DIR, objective)" in r.stderr


def test_the_gil_is_released_while_cpp_runs(tmp_path):
    """Another Python thread keeps running while tpeopt.run's engine works. Were the GIL held
    for the call, the thread would run only in the moments Python itself spends before and
    after it: a few switch intervals (5 ms each) over a run of a second or more."""
    import threading

    count, stop = [0], threading.Event()

    def spin():
        while not stop.is_set():
            count[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        # The spinner's pace alone (a sleeping main thread holds no GIL), then during the run.
        before = count[0]
        time.sleep(0.3)
        alone = (count[0] - before) / 0.3
        before, start = count[0], time.monotonic()
        study = tpeopt.run(ROOT / "examples" / "exhaustion_eurusd.json", trials=20_000, batch=2_000, seed=1,
                           executor="cpu", threads=1, out=tmp_path / "r", quiet=True)
        elapsed = time.monotonic() - start
        during = (count[0] - before) / elapsed
    finally:
        stop.set()
        t.join()
    assert study.complete
    assert during > 0.2 * alone, (during, alone, elapsed)


def test_progress_goes_to_stderr(tmp_path, capsys, monkeypatch):
    """A line per batch where stderr is not a terminal; one line rewritten in place (\\r) in a
    notebook or a terminal; nothing with quiet=True."""
    tpeopt.optimize(mixed, SPACE, trials=128, batch=32, metrics=["twice", "n_plus"], out=tmp_path / "a")
    err = capsys.readouterr().err
    lines = [l for l in err.splitlines() if l.startswith("[tpe] ")]
    assert [l.split(" | ")[0] for l in lines] == [f"[tpe] {n}/128" for n in (32, 64, 96, 128)]
    assert all(" python=" in l for l in lines)  # the executor's time: the objective's
    monkeypatch.setattr(tpeopt._api, "_in_notebook", lambda: True)
    tpeopt.optimize(mixed, SPACE, trials=128, batch=32, metrics=["twice", "n_plus"], out=tmp_path / "b")
    err = capsys.readouterr().err
    assert "\r128/128 trials (100.0%)" in err and "| best " in err and err.endswith("\n")
    tpeopt.optimize(mixed, SPACE, trials=128, batch=32, metrics=["twice", "n_plus"], out=tmp_path / "c", quiet=True)
    assert capsys.readouterr().err == ""


def test_ctrl_c_stops_a_builtin_run_as_the_command_line_does(tmp_path):
    out = tmp_path / "interrupted"
    config = {"strategy": "functions", "function": "rastrigin",
              "search": {"sampler": "random", "trials": 5_000_000, "batch": 20_000, "seed": 1},
              "params": {f"x{i}": {"type": "float", "low": -5.12, "high": 5.12} for i in range(8)}}
    code = f"import tpeopt\ntpeopt.run({config!r}, out={str(out)!r}, executor='cpu', quiet=True)\n"
    p = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (out / "trials.csv").exists() or len((out / "trials.csv").read_text().splitlines()) < 2:
        assert time.monotonic() < deadline and p.poll() is None
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    # KeyboardInterrupt, raised once the engine stopped (an uncaught one ends Python by SIGINT).
    assert p.returncode == -signal.SIGINT, err
    assert "KeyboardInterrupt: interrupted after" in err
    assert f"Continue with: tpeopt.resume({str(out)!r})" in err
    summary = tpeopt.load(out).summary
    assert summary is not None and not summary["complete"] and summary["trials"] < 5_000_000


# ---- first-day traps: parameter specs, infinite scores ------------------------------------


@pytest.mark.parametrize("spec, range_text", [
    ((-5, 5), '{"type": "int", "low": -5, "high": 5}'),
    ([0.5, 2.0], '{"type": "float", "low": 0.5, "high": 2.0}'),
    (np.array([1.0, 3.0]), '{"type": "float", "low": 1.0, "high": 3.0}'),
])
def test_a_tuple_or_list_is_not_a_parameter_spec(tmp_path, spec, range_text):
    """(-5, 5) reads as a range to a Python eye; a config would read it as two values."""
    with pytest.raises(TypeError) as e:
        tpeopt.optimize(sphere, {"y": {"type": "float", "low": 0, "high": 1}, "x": spec}, out=tmp_path / "r")
    message = str(e.value)
    assert message.startswith("space['x']: got a ") and "a parameter's spec is a dict" in message
    assert f"A range: {range_text}" in message
    assert 'a list of choices: {"values": ' in message and '{"type": "categorical", "choices": [...]}' in message
    assert not (tmp_path / "r").exists()
    with pytest.raises(TypeError, match=r"space\['x'\]: got a "):
        tpeopt.Sampler({"x": spec})
    if isinstance(spec, tuple):  # a config dict: a list there is the config's list of values; a tuple is refused
        config = {"strategy": "functions", "function": "sphere", "params": {"x": spec}}
        with pytest.raises(TypeError, match=r"params\['x'\]: got a tuple \(-5, 5\)"):
            tpeopt.run(config, out=tmp_path / "r")


def test_infinite_scores_are_failed_trials_with_on_nan_fail(tmp_path):
    """+inf and -inf are handled as NaN is: an error, or (on_nan="fail") a failed trial."""
    for value in (float("inf"), -float("inf")):
        study = tpeopt.optimize(Inf(value), SPACE, on_nan="fail", out=tmp_path / f"r{value}", **RUN)
        t = study.trials
        assert t["score"].isna().sum() == 384 // 64 and np.isfinite(t["score"].dropna()).all()
        assert study.summary["outcomes"]["failed"] == 384 // 64
        assert study.best["score"] is not None and np.isfinite(study.best["score"])
        assert study.best_value == study.best["score"]


def test_the_sampler_is_told_an_infinite_score_as_a_failed_trial():
    told = []
    for failed in (np.nan, np.inf, -np.inf):
        s = tpeopt.Sampler(SPACE, seed=4)
        for _ in range(3):
            X = s.ask(32)
            scores = mixed(X)["score"].copy()
            scores[::5] = failed
            s.tell(scores)
        told.append(s.ask(32))
    assert np.array_equal(told[0], told[1]) and np.array_equal(told[0], told[2])
    with pytest.raises(ValueError, match="tell: scores is None"):
        tpeopt.Sampler(SPACE).tell(None)


# ---- Optuna's best_trial, best_value, best_params; timeout; callbacks -------------------


def test_best_trial_is_optunas(reference, tmp_path):
    """The best feasible completed trial, the earliest of equal ones; ValueError when none."""
    t = reference.trials
    feasible = t[(t["violation"] == 0) & t["score"].notna()]
    b = reference.best_trial
    assert b.number == int(feasible["score"].idxmin()) and b.value == feasible["score"].min() and b.violation == 0
    assert reference.best_value == b.value and reference.best_params == b.params == reference.best["params"]
    assert b.metrics["twice"] == 2 * b.value
    # Without top.json (a run still going, or killed), read from trials.csv: the same trial.
    import shutil

    copy = tmp_path / "copy"
    shutil.copytree(reference.dir, copy)
    (copy / "top.json").unlink()
    assert tpeopt.load(copy).best_trial == b
    # Infeasible trials score better here (x below 0.5): the best trial is still a feasible one.
    half = tpeopt.optimize(lambda X: (X[:, 0], np.maximum(0.0, 0.5 - X[:, 0])), {"x": {"type": "float", "low": 0,
                           "high": 1}}, trials=128, batch=32, out=tmp_path / "half", quiet=True)
    h = half.trials
    assert h["score"].min() < 0.5 and half.best_trial.value == h.loc[h["x"] >= 0.5, "score"].min() >= 0.5
    # No feasible trial: Optuna raises ValueError; best is the least infeasible.
    never = tpeopt.optimize(lambda X: (X[:, 0], np.ones(len(X))), {"x": {"type": "float", "low": 0, "high": 1}},
                            trials=64, batch=32, out=tmp_path / "never", quiet=True)
    with pytest.raises(ValueError, match="no feasible trial completed"):
        never.best_trial
    with pytest.raises(ValueError, match="no feasible trial completed"):
        never.best_value
    assert never.best["violation"] == 1.0
    (never.dir / "top.json").unlink()
    with pytest.raises(ValueError, match="no feasible trial completed"):
        never.best_params


class StopAfter:
    """A callback that records what it was given and stops the study after batch `batch`."""

    def __init__(self, batch: int) -> None:
        self.batch, self.reports = batch, []

    def __call__(self, report) -> None:
        self.reports.append((report.batch, report.first_trial, report.trials, report.best_value, len(report.X),
                             report.scores.copy(), report.elapsed))
        if report.batch == self.batch:
            report.stop()


@pytest.mark.parametrize("serial", [False, True])
def test_a_callback_stops_the_study_after_its_batch(tmp_path, reference, serial):
    cb = StopAfter(2)
    study = tpeopt.optimize(mixed, SPACE, out=tmp_path / "r", callbacks=[cb], serial=serial, **RUN)
    t = study.trials
    assert not study.complete and len(t) == 3 * 64 and study.summary["trials"] == 192
    # The trials recorded are the uninterrupted run's first three batches, bit for bit.
    ref = reference.trials.iloc[:192]
    assert t[["x0", "x1", "k", "score", "violation"]].equals(ref[["x0", "x1", "k", "score", "violation"]])
    assert [r[:3] for r in cb.reports] == [(0, 0, 64), (1, 64, 128), (2, 128, 192)]
    for batch, first, trials, best, n, scores, elapsed in cb.reports:
        seen = ref.iloc[:trials]
        assert best == seen.loc[seen["violation"] == 0, "score"].min() and n == 64 and elapsed >= 0
        assert np.array_equal(scores, ref["score"].iloc[first:first + 64].to_numpy())
    # A stopped study continues to the uninterrupted run.
    assert tpeopt.resume(study.dir, mixed, quiet=True).digest == reference.digest


def test_a_callback_that_raises_stops_with_an_objective_error(tmp_path):
    def broken(report):
        if report.batch == 1:
            raise KeyError("oops")

    with pytest.raises(tpeopt.ObjectiveError, match=r"a callback raised KeyError after batch 1 \(trials 64\.\.127\)"):
        tpeopt.optimize(mixed, SPACE, out=tmp_path / "r", callbacks=[broken], **RUN)
    with pytest.raises(TypeError, match=r"callbacks\[0\]: expected a callable"):
        tpeopt.optimize(mixed, SPACE, out=tmp_path / "r2", callbacks=[3], **RUN)
    with pytest.raises(ValueError, match="timeout: expected a number of seconds >= 0"):
        tpeopt.optimize(mixed, SPACE, out=tmp_path / "r3", timeout=-1, **RUN)
    with pytest.raises(ValueError, match="timeout and callbacks: for a study scored by a Python objective"):
        tpeopt.run(ROOT / "examples" / "functions_rastrigin.json", out=tmp_path / "r4", timeout=1)


def test_timeout_stops_after_the_batch_running_and_keeps_the_trials(tmp_path, reference, capsys):
    """No batch starts once `timeout` seconds passed: fewer trials, the same ones."""
    study = tpeopt.optimize(Slow(0.05), SPACE, out=tmp_path / "r", timeout=0.12,
                            **{**RUN, "quiet": False})
    n = len(study.trials)
    assert not study.complete and 64 <= n < 384 and n % 64 == 0
    assert study.trials[["x0", "score"]].equals(reference.trials[["x0", "score"]].iloc[:n])
    assert f"tpeopt: timeout: 0.12 s passed before batch {n // 64}: {n} trials recorded" in capsys.readouterr().err
    assert study.best_value == reference.trials.iloc[:n].query("violation == 0")["score"].min()
    assert tpeopt.resume(study.dir, mixed, quiet=True).digest == reference.digest
    # timeout=0: no batch starts; an empty, consistent run.
    empty = tpeopt.optimize(mixed, SPACE, out=tmp_path / "e", timeout=0, **RUN)
    assert len(empty.trials) == 0 and empty.best is None and not empty.complete
