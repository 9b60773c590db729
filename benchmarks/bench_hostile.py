#!/usr/bin/env python3
"""Latency of hostile input: parse and grade times of the cases the hostile test suites use (a script,
not a test: it prints figures and never fails).

The tests bound these cases by *work* (calls counted with ``checkers.budget.count_calls``, limits
enforced by the parser and the sandbox) so that they pass on a loaded machine; the wall-clock figures
live here. Each line gives the number of inputs, p50 / p99 / max in milliseconds, and, where the work
is done in this thread, the median and largest call count.

* ``parse refusals``: ``parse_math`` on tests/mathparse/test_hostile.py's HOSTILE (all refused);
* ``parse bounded``: the costliest inputs within the parser's limits (BOUNDED_INPUTS), sympy's cache
  cleared before each, with the production build budget;
* ``grade <kind>``: ``checkers.grading.grade`` on tests/checkers/test_hostile_grading.py's cases, the
  symbolic and derivation kinds in the real sandbox pool (hard limit ``--limit`` seconds).

    python benchmarks/bench_hostile.py [--repeat 1] [--limit 1.0]
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sympy  # noqa: E402

from checkers import grading, mathparse, sandbox  # noqa: E402
from checkers.kinds.symbolic.standalone import check_symbolic  # noqa: E402
from checkers.budget import count_calls  # noqa: E402
from checkers.verdict import AnswerParseError  # noqa: E402


def _load(rel: str):
    """The case lists live in the test modules (one table for tests and benchmark)."""
    spec = importlib.util.spec_from_file_location(rel.replace("/", "_"), ROOT / rel)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def _line(name: str, ms: list[float], calls: list[int] | None = None) -> None:
    work = f"   calls p50 {int(statistics.median(calls)):>8}  max {max(calls):>8}" if calls else ""
    print(f"{name:<28} n={len(ms):<4} p50 {_pct(ms, 0.5):8.2f} ms  p99 {_pct(ms, 0.99):8.2f} ms  "
          f"max {max(ms):8.2f} ms{work}")


def _refused(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except AnswerParseError as exc:
        return exc


def _timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, (time.perf_counter() - t0) * 1e3


def bench_parse(th, repeat: int) -> None:
    mathparse.warm_up()
    v = th.V
    ms, calls = [], []
    for _ in range(repeat):
        for template in th.HOSTILE:
            text = template.replace("{s}", "/nonexistent/sentinel")
            ms.append(_timed(_refused, mathparse.parse_math, text, v)[1])
            calls.append(count_calls(_refused, mathparse.parse_math, text, v)[1])
    _line("parse refusals", ms, calls)
    ms, calls, per_text = [], [], []
    for _ in range(repeat):
        for text in th.BOUNDED_INPUTS:
            mathparse._parse_cached.cache_clear()
            sympy.core.cache.clear_cache()
            out, t_ms = _timed(_refused, mathparse.parse_math, text, v)
            ms.append(t_ms)
            mathparse._parse_cached.cache_clear()
            sympy.core.cache.clear_cache()
            calls.append(count_calls(_refused, mathparse.parse_math, text, v)[1])
            per_text.append((t_ms, calls[-1], "refused" if isinstance(out, AnswerParseError) else "parsed", text))
    _line("parse bounded (cold cache)", ms, calls)
    for t_ms, n, outcome, text in sorted(per_text, reverse=True)[:3]:
        print(f"    {t_ms:8.2f} ms  {n:>8} calls  {outcome:<7}  {text[:50]!r}")


def bench_grade(hg, repeat: int, limit: float) -> None:
    sandbox.get_pool().start()
    for _ in range(sandbox.get_pool().size):
        check_symbolic("x + 1", "1 + x", hg.V)
    sentinel = Path(tempfile.mkdtemp()) / "sentinel"
    cases: dict[str, list] = {kind: [] for kind in hg.SPECS}
    for kind in hg.SPECS:
        cases[kind] += [hg._text(t, sentinel) if isinstance(t, str) else t for _, t in hg.HOSTILE]
        cases[kind] += [raw for _, raw in hg.NON_TEXT]
    cases["derivation"] += [raw for _, raw in hg.DERIVATIONS]
    cases["array"] += [raw for _, raw in hg.ARRAYS]
    cases["choice"] += [raw for _, raw in hg.CHOICES]
    cases["numeric"] += list(hg.NUMERIC_STRINGS)
    for kind, raws in cases.items():
        ms, statuses = [], {}
        for _ in range(repeat):
            for raw in raws:
                verdict, t_ms = _timed(grading.grade, raw, hg.SPECS[kind], {}, timeout=limit)
                ms.append(t_ms)
                statuses[verdict.status] = statuses.get(verdict.status, 0) + 1
        _line(f"grade {kind}", ms)
        print(f"    verdicts: {dict(sorted(statuses.items()))}")
    if sentinel.exists():
        print("WARNING: a hostile answer created the sentinel file", sentinel)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--limit", type=float, default=grading.DEFAULT_TIMEOUT,
                    help="hard limit per sandboxed answer, seconds")
    args = ap.parse_args()
    sandbox.set_inprocess(False)
    th = _load("tests/mathparse/test_hostile.py")
    hg = _load("tests/checkers/test_hostile_grading.py")
    bench_parse(th, args.repeat)
    bench_grade(hg, args.repeat, args.limit)


if __name__ == "__main__":
    main()
