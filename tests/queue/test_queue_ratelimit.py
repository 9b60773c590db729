"""Rate limits with ``RATELIMIT_STORAGE_URI=redis://...``: every app instance (worker, host) counts in one
store, so a second instance sees the budget the first one used."""

from __future__ import annotations

import redis

import quiz_testing as testing

CHECK = "/api/v1/check/symbolic"
BODY = {"expected": "x**2", "answer": "x*x"}


def _app(tmp_path, name: str, storage: str):
    (tmp_path / name).mkdir()
    # Per address only (the test client's 127.0.0.1), so both instances count the same key.
    return testing.make_app(tmp_path / name, RATELIMIT_ENABLED=True, RATELIMIT_STORAGE_URI=storage,
                            RATELIMIT_CHECK="1000/minute", RATELIMIT_CHECK_PER_ADDRESS="3/minute")


def test_a_second_app_sees_the_counts_of_the_first_through_redis(tmp_path, redis_url):
    storage = redis_url.rsplit("/", 1)[0] + "/1"
    first, second = (_app(tmp_path, n, storage).test_client() for n in ("first", "second"))
    for _ in range(3):
        assert first.post(CHECK, json=BODY).status_code == 200
    resp = second.post(CHECK, json=BODY)
    assert resp.status_code == 429, resp.get_json()
    assert resp.get_json()["error"]["code"] == "too_many_requests" and int(resp.headers["Retry-After"]) >= 1
    assert first.post(CHECK, json=BODY).status_code == 429
    # the counters are in that Redis database
    assert redis.Redis.from_url(storage).dbsize() > 0
    # the same three requests with counters in each process leave a second instance its own budget
    mem_first, mem_second = (_app(tmp_path, n, "memory://").test_client() for n in ("mem-first", "mem-second"))
    for _ in range(3):
        assert mem_first.post(CHECK, json=BODY).status_code == 200
    assert mem_first.post(CHECK, json=BODY).status_code == 429
    assert mem_second.post(CHECK, json=BODY).status_code == 200
