"""tpeopt.Sampler: ask/tell by hand gives the pipeline's trials."""

from __future__ import annotations

import numpy as np
import pytest

import tpeopt
from objectives import SPACE, mixed


@pytest.mark.parametrize("sampler", ["tpe", "random", "ga"])
def test_ask_tell_with_the_pipelines_schedule_gives_its_trials(tmp_path, sampler):
    study = tpeopt.optimize(mixed, SPACE, sampler=sampler, trials=320, batch=64, depth=2, seed=5,
                            metrics=["twice", "n_plus"], out=tmp_path / "r", quiet=True)
    s = tpeopt.Sampler(SPACE, sampler=sampler, seed=5)
    assert s.names == list(SPACE)
    # depth 2: ask(0), ask(1); then tell(k), ask(k + 2) while trials remain.
    asked = [s.ask(64), s.ask(64)]
    for k in range(5):
        out = mixed(asked[k])
        s.tell(out["score"], out["violation"])
        if k + 2 < 5:
            asked.append(s.ask(64))
    X = np.vstack(asked)
    t = study.trials
    k_index = t["k"].map({"a": 0, "b": 1, "c": 2})
    expected = np.column_stack([t["x0"], t["x1"], t["x2"], t["n"], k_index, t["w"], t["m"]])
    assert np.array_equal(X, expected)
    assert s.asked == 320 and s.told == 320


def test_tell_checks_what_it_is_given():
    s = tpeopt.Sampler({"x": {"type": "float", "low": 0, "high": 1}}, sampler="random")
    with pytest.raises(tpeopt.Error, match="no asked block"):
        s.tell([1.0])
    s.ask(4)
    s.ask(2)
    with pytest.raises(tpeopt.Error, match=r"oldest untold block \(trials 0\.\.3\) has 4 trials; got 2 scores"):
        s.tell([1.0, 2.0])
    with pytest.raises(tpeopt.Error, match="violation of trial 1 is -1"):
        s.tell([1.0, 2.0, 3.0, 4.0], [0.0, -1.0, 0.0, 0.0])
    s.tell([1.0, 2.0, 3.0, 4.0])
    assert s.told == 4


def test_a_bad_space_names_the_key():
    with pytest.raises(tpeopt.Error, match=r"params\.x: .*low"):
        tpeopt.Sampler({"x": {"type": "float", "low": 2, "high": 1}})
