"""Command line: ``python -m checkers.bank validate [paths...]`` and
``python -m checkers.bank selftest [--seeds N] [paths...]`` (exit code 1 on any failure)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .loader import load_question_file, question_files
from .fields import BankError
from .report import DEFAULT_SEEDS, format_report, question_report

DEFAULT_ROOT = Path(__file__).resolve().parents[2] / "questions"


def _files(paths: list[str]) -> list[Path]:
    roots = [Path(p) for p in paths] or [DEFAULT_ROOT]
    out: list[Path] = []
    for r in roots:
        if not r.exists():
            print(f"{r}: no such file or directory", file=sys.stderr)
            continue
        out.extend(question_files(r))
    return out


def _load(files: list[Path]) -> tuple[list[tuple[Path, dict]], int]:
    loaded, errors = [], 0
    ids: dict[str, Path] = {}
    for path in files:
        try:
            data = load_question_file(path)
        except BankError as exc:
            print(f"ERROR {exc}")
            errors += 1
            continue
        if data["id"] in ids:
            qid = data["id"]
            print(f"ERROR {BankError(path, 'id', f'duplicate id {qid!r} (also in {ids[qid]})')}")
            errors += 1
            continue
        ids[data["id"]] = path
        loaded.append((path, data))
    return loaded, errors


def cmd_validate(args: argparse.Namespace) -> int:
    files = _files(args.paths)
    loaded, errors = _load(files)
    print(f"{len(loaded)} of {len(files)} question files valid, {errors} with errors")
    return 1 if errors or not files else 0


def cmd_selftest(args: argparse.Namespace) -> int:
    files = _files(args.paths)
    loaded, errors = _load(files)
    failed = 0
    start = time.perf_counter()
    for path, data in loaded:
        report = question_report(data, args.seeds, path)  # the report publishing the file would give
        report["file"] = str(path)
        if not report["ok"]:
            failed += 1
        if not report["ok"] or args.verbose:
            print(format_report(report))
    total = time.perf_counter() - start
    print(f"self-test: {len(loaded) - failed} of {len(loaded)} questions pass over {args.seeds} seeds "
          f"({errors} files failed to load) in {total:.1f}s")
    return 1 if failed or errors or not files else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m checkers.bank", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    v = sub.add_parser("validate", help="validate question files (schema, placeholders, parameters)")
    v.add_argument("paths", nargs="*", help="files or folders (default: the repository's questions/)")
    v.set_defaults(func=cmd_validate)
    s = sub.add_parser("selftest", help="grade every question's own answers and known mistakes")
    s.add_argument("--seeds", type=int, default=DEFAULT_SEEDS,
                   help=f"number of variants per question (default {DEFAULT_SEEDS})")
    s.add_argument("-v", "--verbose", action="store_true", help="print a line for passing questions too")
    s.add_argument("paths", nargs="*", help="files or folders (default: the repository's questions/)")
    s.set_defaults(func=cmd_selftest)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
