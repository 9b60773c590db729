"""A learner's Nth submit on one question against the first ones (a script that prints figures, not a test).

In process (Flask test client, a temporary SQLite database holding the sample question, grading in
process, rate limits off), one learner submits ``--submits`` attempts on the sample question over four
variants. Printed: the median wall time and the SQL statements of the submits 2-11 and of the last ten,
and their ratio. With the stored per-(learner, question) summary (quizapp.study.summary) the ratio is
about 1 and the statement count the same; reading the whole history made each submit cost more than the
one before.

The practice endpoints are measured the same way after the first submit and after the last: ``--rounds``
rounds, each on a variant not used before, of ``GET /practice``, ``POST /hints`` (part a) and
``POST /solution`` (which reveals that variant, so the next round starts with no hint shown). They read the
same stored summary, so their late / early ratio is about 1 too.

    python benchmarks/bench_history.py --submits 300
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path


OPERATIONS = ("practice", "hint", "solution")


def _median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1e3:.2f} ms"


def _practice_rounds(client, engine, testing, qid: str, first_variant: int, rounds: int) -> dict:
    """``rounds`` rounds of the practice endpoints on fresh variants: per operation, wall times and counts of
    SQL statements."""
    out: dict[str, dict[str, list]] = {name: {"times": [], "statements": []} for name in OPERATIONS}
    for k in range(rounds):
        variant = first_variant + k
        calls = {"practice": lambda: client.get(f"/api/v1/questions/{qid}/practice?variant={variant}"),
                 "hint": lambda: client.post(f"/api/v1/questions/{qid}/hints", json={"variant": variant, "part": "a"}),
                 "solution": lambda: client.post(f"/api/v1/questions/{qid}/solution", json={"variant": variant})}
        for name in OPERATIONS:
            with testing.sql_seen(engine) as seen:
                started = time.perf_counter()
                resp = calls[name]()
                out[name]["times"].append(time.perf_counter() - started)
            assert resp.status_code in (200, 201), (name, resp.get_data(as_text=True))
            out[name]["statements"].append(len([s for s in seen.statements if "count(" not in s]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--submits", type=int, default=300)
    ap.add_argument("--rounds", type=int, default=10, help="rounds of the practice endpoints, early and late")
    args = ap.parse_args()
    os.environ.setdefault("CHECKERS_SANDBOX", "inprocess")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
    import quiz_testing as testing

    from quizapp.storage.db import get_db

    app = testing.make_app(tempfile.mkdtemp(prefix="bench-history-"))
    testing.load_sample(app)
    client = app.test_client()
    qid = testing.SAMPLE_QUESTION["id"]
    url = f"/api/v1/questions/{qid}/attempts"
    engine = get_db(app).engine
    times: list[float] = []
    statements: list[int] = []
    practice: dict[str, dict] = {}
    total = max(args.submits, 21)
    for i in range(total):
        with testing.sql_seen(engine) as seen:
            started = time.perf_counter()
            resp = client.post(url, json={"variant": i % 4, "answers": {"a": "1.0", "b": "yes"}})
            times.append(time.perf_counter() - started)
        assert resp.status_code == 201, resp.get_data(as_text=True)
        statements.append(len([s for s in seen.statements if "count(" not in s]))  # minus the set's recheck
        if i in (0, total - 1):  # after the first submit, and after the last
            practice[i] = _practice_rounds(client, engine, testing, qid, 1000 + 100 * bool(i), args.rounds)
    early, late = times[1:11], times[-10:]
    print(f"submits 2-11:      median {_median_ms(early)}, statements {sorted(set(statements[1:11]))}")
    print(f"submits {len(times) - 9}-{len(times)}: median {_median_ms(late)}, "
          f"statements {sorted(set(statements[-10:]))}")
    print(f"late / early: {statistics.median(late) / statistics.median(early):.2f}")
    first, last = practice[0], practice[total - 1]
    for name in OPERATIONS:
        a, b = first[name], last[name]
        print(f"{name:9s} after submit 1: median {_median_ms(a['times'])}, statements {sorted(set(a['statements']))}; "
              f"after submit {total}: median {_median_ms(b['times'])}, statements {sorted(set(b['statements']))}; "
              f"ratio {statistics.median(b['times']) / statistics.median(a['times']):.2f}")


if __name__ == "__main__":
    main()
