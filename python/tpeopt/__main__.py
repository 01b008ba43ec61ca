"""``python -m tpeopt export optuna DIR --storage URL``: what ``tpeopt export optuna`` runs."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tpeopt", description="tpeopt's Python commands")
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
        print(f"tpeopt export optuna: needs optuna in this Python ({sys.executable}): {e}", file=sys.stderr)
        return 2
    except (Error, OSError, ValueError) as e:
        print(f"tpeopt export optuna: error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # Optuna's own errors (a study of that name exists, a bad URL)
        print(f"tpeopt export optuna: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    print(f"exported {len(study.trials)} trials of {args.dir} to study {study.study_name!r} in {args.storage}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
