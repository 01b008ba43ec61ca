"""Fixtures of the tpeopt Python tests (run by scripts/test.sh after `pip install .`)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))  # objectives.py for subprocesses and tests


def cli_path() -> Path | None:
    """The command-line program, for comparisons (TPEOPT_CLI, else build/apps/tpeopt)."""
    p = Path(os.environ.get("TPEOPT_CLI", ROOT / "build" / "apps" / "tpeopt"))
    return p if p.is_file() else None


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def cli() -> Path:
    p = cli_path()
    if p is None:
        pytest.skip("the tpeopt command line is not built (set TPEOPT_CLI)")
    return p


def cli_digest(cli: Path, *args: str) -> str:
    """Runs `tpeopt run ...` and returns the digest it prints."""
    r = subprocess.run([str(cli), "run", *args], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = re.search(r"^digest ([0-9a-f]+)$", r.stdout, re.M)
    assert m, r.stdout
    return m.group(1)
