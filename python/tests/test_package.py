"""The package as installed: type information beside the module, a docstring on every public
name, and the command-line entry point of `tpeopt export`."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import tpeopt


def test_type_stubs_and_marker_are_installed():
    folder = Path(tpeopt.__file__).parent
    assert (folder / "py.typed").is_file()
    stub = (folder / "_tpeopt.pyi").read_text()
    for name in ("class Config", "def run(", "def resume(", "def backtest(", "class Sampler", "def strategies("):
        assert name in stub, name


def test_every_public_name_has_a_docstring():
    assert tpeopt.__doc__ and "docs/python.md" in tpeopt.__doc__
    missing = []
    for name in tpeopt.__all__:
        obj = getattr(tpeopt, name)
        if not (inspect.getdoc(obj) or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (inspect.isfunction(member) or isinstance(member, property)):
                    continue
                if not (inspect.getdoc(member) or "").strip():
                    missing.append(f"{name}.{attr}")
    assert missing == []


def test_python_m_tpeopt_says_what_it_does():
    r = subprocess.run([sys.executable, "-m", "tpeopt", "export", "optuna", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--storage" in r.stdout and "optuna" in r.stdout
