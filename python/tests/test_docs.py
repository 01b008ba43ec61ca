"""docs/python.md's walk-through runs as written: its python blocks, in order, in one namespace
(as a notebook's cells), from a folder that sees the repository's examples/ and data/."""

from __future__ import annotations

import re

import pytest

from conftest import ROOT

BLOCKS = re.findall(r"^```python\n(.*?)^```", (ROOT / "docs" / "python.md").read_text(), re.S | re.M)


def test_the_walk_through_runs(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    assert len(BLOCKS) >= 8
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    (tmp_path / "data").symlink_to(ROOT / "data")
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, block in enumerate(BLOCKS):
        try:
            exec(compile(block, f"docs/python.md block {i + 1}", "exec"), namespace)
        except Exception as e:  # which cell failed, with its text
            raise AssertionError(f"docs/python.md, python block {i + 1}:\n{block}") from e
    # What the walk-through shows holds.
    study, mine, same = namespace["study"], namespace["mine"], namespace["same"]
    assert study.complete and len(namespace["t"]) == 2000
    assert (tmp_path / "runs" / "py-eurusd" / "best_so_far.png").stat().st_size > 0
    assert mine.digest == same.digest and mine.best["violation"] == 0
    assert mine.best["params"]["fast"] < mine.best["params"]["slow"]
    assert namespace["s"].told == 1024
    # The callback stopped its study early, on the trials of the run without it.
    early = namespace["early"]
    assert not early.complete and len(early.trials) < 2048 and early.best_value == mine.best_value
    columns = ["fast", "slow", "score"]
    assert early.trials[columns].equals(mine.trials[columns].iloc[:len(early.trials)])
    if namespace.get("optuna") is not None:
        assert namespace["loaded"].best_value == mine.best["score"]
