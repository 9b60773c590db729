"""A learner's Nth submit on one question against the first ones (a script that prints figures, not a test).

In process (Flask test client, a temporary SQLite database holding the sample question, grading in
process, rate limits off), one learner submits ``--submits`` attempts on the sample question over four
variants. Printed: the median wall time and the SQL statements of the submits 2-11 and of the last ten,
and their ratio. With the stored per-(learner, question) summary (quizapp.study.summary) the ratio is
about 1 and the statement count the same; reading the whole history made each submit cost more than the
one before.

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--submits", type=int, default=300)
    args = ap.parse_args()
    os.environ.setdefault("CHECKERS_SANDBOX", "inprocess")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "support"))  # the service test helpers
    import quiz_testing as testing

    from quizapp.db import get_db

    app = testing.make_app(tempfile.mkdtemp(prefix="bench-history-"))
    testing.load_sample(app)
    client = app.test_client()
    url = f"/api/v1/questions/{testing.SAMPLE_QUESTION['id']}/attempts"
    engine = get_db(app).engine
    times: list[float] = []
    statements: list[int] = []
    for i in range(max(args.submits, 21)):
        with testing.sql_seen(engine) as seen:
            started = time.perf_counter()
            resp = client.post(url, json={"variant": i % 4, "answers": {"a": "1.0", "b": "yes"}})
            times.append(time.perf_counter() - started)
        assert resp.status_code == 201, resp.get_data(as_text=True)
        statements.append(len([s for s in seen.statements if "count(" not in s]))  # minus the set's recheck
    early, late = times[1:11], times[-10:]
    print(f"submits 2-11:      median {statistics.median(early) * 1e3:.2f} ms, "
          f"statements {sorted(set(statements[1:11]))}")
    print(f"submits {len(times) - 9}-{len(times)}: median {statistics.median(late) * 1e3:.2f} ms, "
          f"statements {sorted(set(statements[-10:]))}")
    print(f"late / early: {statistics.median(late) / statistics.median(early):.2f}")


if __name__ == "__main__":
    main()
