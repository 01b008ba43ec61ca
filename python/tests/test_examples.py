"""tpeopt.run / verify / resume / backtest on every strategy's example (short runs on the
repository's data), against the command line's digests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tpeopt
from conftest import ROOT, cli_digest, cli_path

SHORT = dict(trials=64, batch=32, seed=11, executor="cpu")
FLAGS = ["--trials", "64", "--batch", "32", "--seed", "11", "--executor", "cpu", "-q"]

# Every example but the benchmarks' and the exact trade_filter grid (a command-line grid).
EXAMPLES = sorted(
    p.name for p in (ROOT / "examples").glob("*.json")
    if not p.name.startswith("bench_") and p.name != "trade_filter_grid.json"
)


def test_the_examples_cover_every_strategy_tpeopt_scores():
    table = tpeopt.strategies()
    assert {"name", "summary", "params", "scored_by_caller", "cuda", "trades"} <= set(table.columns)
    scored_here = set(table.loc[~table["scored_by_caller"], "name"])
    covered = {json.loads((ROOT / "examples" / n).read_text())["strategy"] for n in EXAMPLES}
    assert covered == scored_here
    # The one scored by its caller is the Python objective's, which tpeopt.optimize writes.
    assert list(table.loc[table["scored_by_caller"], "name"]) == ["python_objective"]


@pytest.fixture(scope="session")
def trade_filter_data(tmp_path_factory) -> Path:
    """A small synthetic trade_filter data set (tpeopt data generate: the repository tracks none)."""
    cli = cli_path()
    if cli is None:
        pytest.skip("tpeopt data generate needs the command line (set TPEOPT_CLI)")
    out = tmp_path_factory.mktemp("trade_filter")
    r = subprocess.run([str(cli), "data", "generate", "--out", str(out), "--days", "3", "--trades", "2000",
                        "--tickers", "SOXL,IONQ,MARA", "--seed", "1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


@pytest.fixture
def example(request):
    """An example's config: its path, or for trade_filter a dict reading the generated data."""

    def load(name: str) -> Path | dict:
        path = ROOT / "examples" / name
        config = json.loads(path.read_text())
        if config["strategy"] != "trade_filter":
            return path
        data = request.getfixturevalue("trade_filter_data")
        config["data"] = {"market_dir": str(data / "market"), "trades": str(data / "trades.csv"),
                          "tickers": config["data"]["tickers"]}
        config["objective"]["min_trades"] = 5
        return config

    return load


@pytest.mark.parametrize("name", EXAMPLES)
def test_run_and_backtest_equal_the_command_line(tmp_path, name, example):
    config = example(name)
    study = tpeopt.run(config, out=tmp_path / "py", quiet=True, **SHORT)
    assert study.complete and study.summary["trials"] == 64
    t = study.trials
    assert len(t) == 64 and list(t["trial"]) == list(range(64)) and set(t["batch"]) == {0, 1}
    assert {"score", "violation", "ask_ms", "exec_ms", "tell_ms", "wall_ms"} <= set(t.columns)
    assert (t["exec_ms"] > 0).all()
    best = study.best
    assert best["rank"] == 1 and study.top[0] == best and 1 <= len(study.top) <= 10
    row = t.loc[best["trial"]]
    assert row["score"] == best["score"] and row["violation"] == best["violation"]
    for name_, value in best["metrics"].items():
        assert row[name_] == value or (np.isnan(row[name_]) and value is None)

    # The command line's run of the same config: the same digest.
    if isinstance(config, dict):
        path = tmp_path / "config.json"
        path.write_text(json.dumps(config))
    else:
        path = config
    cli = cli_path()
    if cli is not None:
        assert study.digest == cli_digest(cli, "--config", str(path), "--out", str(tmp_path / "cli"), *FLAGS)
        # The selection-bias statistics too (all but the seconds the pass took).
        cli_selection = json.loads((tmp_path / "cli" / "summary.json").read_text())["selection_bias"]
        py_selection = study.selection_bias
        for s in (cli_selection, py_selection):
            s.pop("seconds", None)
        assert py_selection == cli_selection
    selection = study.selection_bias
    assert selection["verdict"] if selection["available"] else selection["why_not"]

    # The best trial backtested again scores as in the run (a hold-out run scores the
    # in-sample part, so only the full-data examples are compared), with its trades.
    if "holdout" in study.config.get("data", {}):
        return
    b = tpeopt.backtest(config, best["params"])
    assert b.score == best["score"] or (np.isnan(b.score) and best["score"] is None)
    assert b.violation == best["violation"]
    table = tpeopt.strategies().set_index("name")
    if table.loc[study.config["strategy"], "trades"]:
        count = table.loc[study.config["strategy"], "trade_count_metric"]
        assert b.trades is not None and len(b.trades) == b.metrics[count]
        assert str(b.trades["entry_time"].dtype).startswith("datetime64")
        assert (b.trades["exit_time"] >= b.trades["entry_time"]).all()
        assert study.trades is not None and study.trades.equals(b.trades)
    else:
        assert b.trades is None and study.trades is None
    if b.symbols is not None:
        assert {"symbol", "objective", "equity"} <= set(b.symbols.columns) and len(b.symbols) > 1


@pytest.mark.parametrize("name", ["exhaustion_eurusd.json", "functions_rastrigin.json"])
def test_verify_and_resume(tmp_path, name):
    path = ROOT / "examples" / name
    v = tpeopt.verify(path, **SHORT)
    assert v and v.identical and v.trials == 64 and v.digest == v.serial_digest and v.difference == ""
    study = tpeopt.run(path, out=tmp_path / "r", quiet=True, **SHORT)
    assert study.digest == v.digest
    # A finished run resumes to itself (every batch replayed).
    again = tpeopt.resume(study.dir, quiet=True)
    assert again.digest == v.digest and again.summary["replayed_batches"] == 2


def test_backtest_on_one_symbol_of_several_and_by_label(tmp_path):
    path = ROOT / "examples" / "exhaustion_binance_symbols.json"
    study = tpeopt.run(path, out=tmp_path / "r", quiet=True, **SHORT)
    b = tpeopt.backtest(path, study.best["params"])
    assert b.trades is not None and set(b.trades["symbol"]) <= set(b.symbols["symbol"])
    per_symbol = b.trades.groupby("symbol").size()
    for _, row in b.symbols.iterrows():
        assert per_symbol.get(row["symbol"], 0) == row["trades"]


def test_errors_name_the_key(tmp_path):
    with pytest.raises(tpeopt.Error, match=r"search\.batch: expected an integer"):
        tpeopt.run({"strategy": "functions", "function": "sphere", "search": {"batch": 0},
                    "params": {"x": {"type": "float", "low": 0, "high": 1}}}, out=tmp_path / "r")
    with pytest.raises(tpeopt.Error, match="trials: must be at least 1"):
        tpeopt.run(ROOT / "examples" / "functions_rastrigin.json", trials=0, out=tmp_path / "r")
    with pytest.raises(tpeopt.Error, match="cannot open the config file"):
        tpeopt.run(tmp_path / "missing.json")
    with pytest.raises(tpeopt.Error, match=r"params: reward_r: expected a number"):
        tpeopt.backtest(ROOT / "examples" / "exhaustion_eurusd.json", {"reward_r": [1]})
    with pytest.raises(tpeopt.Error, match=r"params: nope: not a parameter of strategy exhaustion"):
        tpeopt.backtest(ROOT / "examples" / "exhaustion_eurusd.json", {"nope": 1})
    assert not (tmp_path / "r").exists()
