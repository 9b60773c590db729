"""32 threads submit attempts at once to a live waitress server on a SQLite file: every 201 is stored
and no request fails with "database is locked"."""

import json
import threading
import urllib.error
import urllib.request

import pytest
from sqlalchemy import select

from quizapp import testing
from quizapp.db import get_db
from quizapp.models import Attempt

N = 32


@pytest.mark.slow
def test_32_concurrent_attempts(app):
    import waitress.server

    server = waitress.server.create_server(app, host="127.0.0.1", port=0, threads=16)
    port = server.effective_port
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    barrier = threading.Barrier(N)
    results: list = [None] * N

    def submit(i):
        body = json.dumps({"variant": i, "answers": {"a": "1.0", "b": "no" if i % 2 else "yes"}}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/questions/svc-sample-double/attempts",
                                     data=body, headers={"Content-Type": "application/json"}, method="POST")
        barrier.wait()
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                results[i] = (r.status, json.load(r))
        except urllib.error.HTTPError as err:
            results[i] = (err.code, err.read().decode())
        except Exception as exc:  # noqa: BLE001
            results[i] = (None, repr(exc))

    try:
        workers = [threading.Thread(target=submit, args=(i,)) for i in range(N)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(180)
    finally:
        server.close()
        thread.join(10)

    failures = [r for r in results if r is None or r[0] != 201]
    assert not failures, failures[:3]
    assert not any("locked" in json.dumps(r[1]) for r in results)
    ids = {r[1]["attempt_id"] for r in results}
    assert len(ids) == N
    with app.app_context():
        session = get_db(app).Session()
        stored = set(session.scalars(select(Attempt.id)))
        session.close()
    assert ids <= stored and len(stored) == N
