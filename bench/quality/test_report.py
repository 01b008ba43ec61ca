"""The benchmark's won / tied / lost rule (report.compare), run with the benchmark's own
environment: `python -m pytest bench/quality/test_report.py` (bench/quality/requirements.txt)."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from report import compare  # noqa: E402

SEEDS = range(1, 11)


def test_a_consistent_difference_wins_and_loses():
    a = {s: 1.0 + 0.01 * s for s in SEEDS}
    b = {s: 2.0 + 0.01 * s for s in SEEDS}
    assert compare(a, b, worst=10.0) == 1
    assert compare(b, a, worst=10.0) == -1


def test_values_apart_by_rounding_are_equal():
    # Hartmann-6's optimum as two runs report it: 1e-15 apart in every seed, one sign.
    a = {s: 1.2947256600170931e-09 for s in SEEDS}
    b = {s: 1.2947256600170931e-09 + 1e-15 for s in SEEDS}
    assert compare(a, b, worst=10.0) == 0
    big = {s: 3079.184 + s for s in SEEDS}
    assert compare(big, {s: v * (1 + 1e-13) for s, v in big.items()}, worst=1e4, maximize=True) == 0


def test_a_regret_of_1e_9_against_0_still_counts():
    a = {s: 0.0 for s in SEEDS}
    b = {s: 1e-9 * s for s in SEEDS}
    assert compare(a, b, worst=10.0) == 1


def test_too_few_differing_pairs_tie():
    a = {s: 1.0 for s in SEEDS}
    b = {s: (2.0 if s <= 5 else 1.0) for s in SEEDS}  # 5 pairs differ: p >= 0.0625
    assert compare(a, b, worst=10.0) == 0
    assert compare(a, {s: 1.0 for s in range(1, 6)}, worst=10.0) is None  # fewer than 6 seeds
