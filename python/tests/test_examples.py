"""tpeopt.run / resume / verify / backtest on every strategy's example (short runs),
against the command line's digests."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

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


@pytest.fixture(scope="session")
def trade_filter_data(tmp_path_factory) -> Path:
    """A small synthetic trade_filter data set (tpeopt data generate)."""
    cli = cli_path()
    if cli is None:
        pytest.skip("tpeopt data generate needs the command line (set TPEOPT_CLI)")
    out = tmp_path_factory.mktemp("trade_filter")
    r = subprocess.run([str(cli), "data", "generate", "--out", str(out), "--days", "3", "--trades", "2000",
                        "--tickers", "SOXL,IONQ,MARA", "--seed", "1"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out


def example_config(name: str, trade_filter_data) -> Path | dict:
    path = ROOT / "examples" / name
    config = json.loads(path.read_text())
    if config["strategy"] != "trade_filter":
        return path
    data = trade_filter_data()  # the generated data instead of the example's
    config["data"] = {"market_dir": str(data / "market"), "trades": str(data / "trades.csv"),
                      "tickers": config["data"]["tickers"]}
    config["objective"]["min_trades"] = 5
    return config


@pytest.fixture
def data_for(request):
    return lambda: request.getfixturevalue("trade_filter_data")


@pytest.mark.parametrize("name", EXAMPLES)
def test_run_equals_the_command_line(tmp_path, name, data_for):
    config = example_config(name, data_for)
    study = tpeopt.run(config, out=tmp_path / "py", quiet=True, **SHORT)
    assert study.complete and study.summary["trials"] == 64
    t = study.trials
    assert len(t) == 64 and list(t["trial"]) == list(range(64)) and set(t["batch"]) == {0, 1}
    assert {"score", "violation", "ask_ms", "exec_ms"} <= set(t.columns)
    best = study.best
    assert best["rank"] == 1 and study.top[0] == best and 1 <= len(study.top) <= 10
    if isinstance(config, dict):
        path = tmp_path / "config.json"
        path.write_text(json.dumps(config))
    else:
        path = config
    cli = cli_path()
    if cli is not None:
        assert study.digest == cli_digest(cli, "--config", str(path), "--out", str(tmp_path / "cli"), *FLAGS)


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


def test_backtest_gives_trades_with_times(tmp_path):
    path = ROOT / "examples" / "exhaustion_eurusd.json"
    study = tpeopt.run(path, out=tmp_path / "r", quiet=True, **SHORT)
    b = tpeopt.backtest(path, study.best["params"])
    assert b.score == study.best["score"] and b.violation == study.best["violation"]
    assert b.metrics == study.best["metrics"]
    t = study.trades
    assert t is not None and len(t) == b.metrics["trades"] and t.equals(b.trades)
    assert str(t["entry_time"].dtype).startswith("datetime64") and (t["exit_time"] >= t["entry_time"]).all()


def test_errors_name_the_key(tmp_path):
    with pytest.raises(tpeopt.Error, match=r"search\.batch: expected an integer"):
        tpeopt.run({"strategy": "functions", "function": "sphere", "search": {"batch": 0},
                    "params": {"x": {"type": "float", "low": 0, "high": 1}}}, out=tmp_path / "r")
    with pytest.raises(tpeopt.Error, match="trials: must be at least 1"):
        tpeopt.run(ROOT / "examples" / "functions_rastrigin.json", trials=0, out=tmp_path / "r")
    with pytest.raises(tpeopt.Error, match="cannot open the config file"):
        tpeopt.run(tmp_path / "missing.json")
