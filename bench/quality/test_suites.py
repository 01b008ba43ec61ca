"""The benchmark's sets (bench/quality/suites.py) name workloads that exist, in one set each,
and report.py labels each workload with its set. Run as test_report.py is."""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import suites  # noqa: E402
from workloads import ROOT, all_workloads, strategy_workloads  # noqa: E402


def test_every_set_names_existing_workloads():
    names = set(all_workloads())
    for set_name, members in suites.SETS.items():
        missing = [w for w in members if w not in names]
        assert not missing, f"{set_name}: {missing}"


def test_strategy_sets_split_the_strategies():
    kinds = {n: w.kind for n, w in all_workloads().items()}
    assert all(kinds[w] == "strategy" for w in suites.STRATEGY_TUNING + suites.STRATEGY_HELD_OUT)
    assert not set(suites.STRATEGY_TUNING) & set(suites.STRATEGY_HELD_OUT)
    # Every strategy workload is in one of them, and the reported ones are the held-out ones.
    assert {n for n, k in kinds.items() if k == "strategy"} == set(suites.STRATEGY_TUNING + suites.STRATEGY_HELD_OUT)
    assert {w.name for w in strategy_workloads()} == set(suites.STRATEGY_HELD_OUT)


def test_each_workload_is_labelled_with_its_set():
    assert suites.suite_of("bbob-f10-d10") == "tuning"
    assert suites.suite_of("bbob-f11-d20") == "held-out"
    assert suites.suite_of("exhaustion-goog") == "tuning-strategies"
    assert suites.suite_of("exhaustion") == "held-out-strategies"
    assert suites.suite_of("bbob-f2-d10") == "other"


def data_paths(w):
    """The files and folders a strategy workload reads, resolved."""
    if w.candles:
        return {(ROOT / w.candles).resolve()}
    data = json.loads(w.path.read_text())["data"]
    return {(w.path.parent / v).resolve() for v in data.values() if isinstance(v, str)}


def test_tuning_strategies_use_data_the_held_out_ones_do_not():
    ws = all_workloads()
    held_out = set().union(*(data_paths(ws[w]) for w in suites.STRATEGY_HELD_OUT))
    assert (ROOT / "data/backtesting-py/EURUSD.csv").resolve() in held_out
    for w in suites.STRATEGY_TUNING:
        for p in data_paths(ws[w]):  # neither a file a held-out one reads nor one in its folders
            assert not any(p == q or q in p.parents for q in held_out), (w, p)
