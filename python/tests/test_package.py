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


def test_the_wheel_installs_a_tpeopt_console_script(tmp_path):
    """`tpeopt export optuna` from the environment's bin folder; another command says where it is."""
    import shutil

    script = shutil.which("tpeopt", path=str(Path(sys.executable).parent))
    assert script is not None
    r = subprocess.run([script, "export", "optuna", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--storage" in r.stdout
    r = subprocess.run([script, "run", "--config", "x.json"], capture_output=True, text=True)
    assert r.returncode == 2
    assert "tpeopt run: this is the tpeopt Python package's command, which has `tpeopt export optuna` only" in r.stderr
    assert "build/apps/tpeopt" in r.stderr


def test_the_command_line_export_says_how_to_install_the_package(tmp_path):
    """The C++ `tpeopt export optuna` in a Python without the package: how to install it."""
    import os

    from conftest import cli_path

    cli = cli_path()
    if cli is None:
        import pytest

        pytest.skip("the tpeopt command line is not built (set TPEOPT_CLI)")
    # This Python with no site-packages (-S) and no environment variables (-I): no tpeopt in it.
    bare = tmp_path / "bare-python"
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n')
    bare.chmod(0o755)
    env = dict(os.environ, TPEOPT_PYTHON=str(bare))
    r = subprocess.run([str(cli.resolve()), "export", "optuna", str(tmp_path), "--storage", str(tmp_path / "x.log")],
                       env=env, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "tpeopt export optuna: the tpeopt Python package is not installed in " in r.stderr
    assert "-m pip install '.[optuna]'" in r.stderr and "TPEOPT_PYTHON" in r.stderr
    assert "Traceback" not in r.stderr


def test_help_optimize_tells_the_depth_trade_off():
    doc = inspect.getdoc(tpeopt.optimize)
    assert inspect.signature(tpeopt.optimize).parameters["depth"].default == 1
    for words in ("Depth.", "bench/python/depth.py", "docs/benchmarks.md", "timeout", "callbacks", "BatchReport"):
        assert words in doc, words
