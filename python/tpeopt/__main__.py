"""The Python package's command: ``tpeopt export optuna DIR --storage URL`` (the console script
the wheel installs; also ``python -m tpeopt``), what the C++ command line's ``tpeopt export
optuna`` runs. The other commands (run, resume, report, ...) are the C++ command line's."""

from __future__ import annotations

import argparse
import os
import sys


def main(argv: list[str] | None = None) -> int:
    args_given = sys.argv[1:] if argv is None else argv
    if args_given and not args_given[0].startswith("-") and args_given[0] != "export":
        # This `tpeopt` may shadow the C++ one on PATH (an activated virtual environment).
        print(f"tpeopt {args_given[0]}: this is the tpeopt Python package's command, which has `tpeopt export "
              f"optuna` only; `tpeopt {args_given[0]}` is the C++ command line's (build/apps/tpeopt, built by "
              f"scripts/build.sh), and from Python tpeopt.run, resume, verify, backtest (docs/python.md)",
              file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(
        prog="tpeopt", description="The tpeopt Python package's command (the C++ command line has the others: "
        "run, resume, report, ...)")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="Write a run into another tool's format")
    formats = export.add_subparsers(dest="format", required=True)
    optuna = formats.add_parser(
        "optuna", help="Write a run's trials into an Optuna storage (optuna.load_study, optuna-dashboard)")
    optuna.add_argument("dir", help="the run directory")
    optuna.add_argument("--storage", required=True,
                        help="a journal file (runs.log, or journal:PATH) or an RDB URL (sqlite:///runs.db)")
    optuna.add_argument("--study-name", default=None, help="the Optuna study's name (default: the run's folder name)")
    args = parser.parse_args(argv)

    from . import Error, to_optuna

    try:
        study = to_optuna(args.dir, args.storage, study_name=args.study_name)
    except ImportError as e:
        print(f"tpeopt export optuna: needs optuna in this Python ({sys.executable}): {e}; install it with "
              f"{sys.executable} -m pip install optuna", file=sys.stderr)
        return 2
    except (Error, OSError, ValueError) as e:
        print(f"tpeopt export optuna: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # Optuna's own errors (a bad URL), a study of that name already there
        if type(e).__name__ == "DuplicatedStudyError":
            name = args.study_name or os.path.basename(os.path.normpath(os.path.abspath(args.dir)))
            print(f"tpeopt export optuna: error: {args.storage} already has a study named {name!r}: give another "
                  f"--study-name or another --storage, or delete that study first (optuna.delete_study in Python)",
                  file=sys.stderr)
        else:
            print(f"tpeopt export optuna: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print(f"exported {len(study.trials)} trials of {args.dir} to study {study.study_name!r} in {args.storage}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
