"""Operations endpoints and limits: /healthz, /readyz (and what makes it 503), request ids, Prometheus
metrics (request latency per endpoint, grading latency per kind, sandbox kills) and the rate limits on
submitting and checking (429 with Retry-After per learner and per address; off with RATELIMIT_ENABLED)."""

import json

import pytest

from checkers import sandbox
import quiz_testing as testing
from quizapp.ops import limits

QID = testing.SAMPLE_QUESTION["id"]


def _submit(client, variant=1, **kw):
    return client.post(f"/api/v1/questions/{QID}/attempts",
                       json={"variant": variant, "answers": {"a": "1.0", "b": "yes"}}, **kw)


def test_healthz_and_readyz(client):
    r = client.get("/healthz")
    assert r.status_code == 200 and r.get_json() == {"status": "ok"}
    r = client.get("/readyz")
    body = r.get_json()
    assert r.status_code == 200 and body["status"] == "ready", body
    assert body["checks"]["database"]["ok"] and body["checks"]["grader"]["ok"]
    assert body["checks"]["migrations"]["current"] == body["checks"]["migrations"]["head"]


def test_readyz_is_503_before_the_database_is_migrated(tmp_path):
    app = testing.make_app(tmp_path, migrate=False)
    r = app.test_client().get("/readyz")
    body = r.get_json()
    assert r.status_code == 503 and body["status"] == "not_ready"
    assert body["checks"]["migrations"] == {"ok": False, "current": None, "head": body["checks"]["migrations"]["head"]}
    assert body["checks"]["migrations"]["head"]  # the checkout has migrations


def test_request_id_is_echoed_or_made(client):
    r = client.get("/api/v1/questions", headers={"X-Request-ID": "abc-123.x"})
    assert r.headers["X-Request-ID"] == "abc-123.x"
    made = client.get("/api/v1/questions", headers={"X-Request-ID": "no spaces; or <tags>"}).headers["X-Request-ID"]
    assert len(made) == 32 and int(made, 16) >= 0
    other = client.get("/nowhere").headers["X-Request-ID"]  # a 404 gets one too
    assert other != made


def test_made_request_ids_differ_across_forked_workers():
    """A made request id is a per-process prefix and a counter: a forked worker makes a prefix of its own
    (a copied one would repeat its siblings' ids)."""
    from quizapp.ops.request_id import _ids

    mine = [_ids.next() for _ in range(3)]
    assert len(set(mine)) == 3 and len({m[:20] for m in mine}) == 1
    theirs = testing.from_forked_child(_ids.next)  # one id made in a forked child
    assert len(theirs) == 32 and theirs[:20] != mine[0][:20]
    assert _ids.next()[:20] == mine[0][:20]  # the parent's own prefix stays


def test_access_log_names_the_request_id(client, caplog):
    import logging

    from quizapp.ops.request_id import JsonFormatter, RequestIdFilter

    with caplog.at_level(logging.INFO, logger="quizapp.access"):
        client.get("/healthz", headers={"X-Request-ID": "trace-42"})
    record = [r for r in caplog.records if r.name == "quizapp.access"][-1]
    RequestIdFilter().filter(record)
    line = json.loads(JsonFormatter().format(record))
    assert line["path"] == "/healthz" and line["status"] == 200 and line["endpoint"] == "ops_health.healthz"
    assert line["request_id"] == "trace-42" and line["ms"] >= 0


def _value(text, series):
    """The value of one series in the exposition text (0 when absent: nothing counted yet)."""
    for line in text.splitlines():
        if line.startswith(series + " "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def test_metrics_count_requests_grading_and_kills(client):
    # Metrics are per process (as Prometheus counts them): compare before and after.
    series = ['quizapp_requests_total{endpoint="api.submit_attempt",method="POST",status="201"}',
              'quizapp_request_seconds_count{endpoint="api.list_questions",method="GET"}',
              # The sample question has a numeric part and a choice part: one grading observation each.
              'quizapp_grading_seconds_count{kind="numeric"}',
              'quizapp_grading_seconds_count{kind="choice"}',
              'quizapp_sandbox_kills_total{reason="timeout"}']
    before = client.get("/metrics").get_data(as_text=True)
    assert _submit(client).status_code == 201
    client.get("/api/v1/questions")
    sandbox.notify_kill("timeout")
    r = client.get("/metrics")
    assert r.status_code == 200 and r.mimetype == "text/plain"
    after = r.get_data(as_text=True)
    assert [_value(after, s) - _value(before, s) for s in series] == [1.0, 1.0, 1.0, 1.0, 1.0]


def test_a_value_file_being_created_does_not_fail_the_scrape(tmp_path, monkeypatch):
    """During a rolling restart a new worker's file may exist before its header does: the scrape skips it
    and still sums the others."""
    import json

    from prometheus_client.mmap_dict import MmapedDict

    from quizapp.ops import metrics

    key = json.dumps(["quizapp_worker_restarts", "quizapp_worker_restarts_total", {}, "Server workers that exited"])
    settled = MmapedDict(str(tmp_path / "counter_101.db"))
    settled.write_value(key, 3.0, 0.0)
    settled.close()
    (tmp_path / "counter_102.db").write_bytes(b"")       # created, not yet sized
    (tmp_path / "histogram_103.db").write_bytes(b"\x01")  # not even a header
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    body, _type = metrics.render()
    assert "quizapp_worker_restarts_total 3.0" in body.decode()


def test_share_of_a_limit_per_worker():
    assert limits._share("30/minute", 1) == "30/minute"
    assert limits._share("30/minute", 4) == "7/1 minute"
    assert limits._share("1/second;10/minute", 3) == "1/1 second;3/1 minute"


@pytest.fixture
def limited_app(tmp_path):
    app = testing.make_app(tmp_path, RATELIMIT_ENABLED=True, RATELIMIT_SUBMIT="3/minute",
                           RATELIMIT_SUBMIT_PER_ADDRESS="5/minute", RATELIMIT_CHECK="2/minute",
                           RATELIMIT_CHECK_PER_ADDRESS="100/minute")
    testing.load_sample(app)
    return app


def _learner_client(app):
    """A client holding a signed learner cookie of its own (as after its first visit)."""
    import uuid

    from quizapp.learner_cookie import learner_serializer

    client = app.test_client()
    with app.test_request_context():
        client.set_cookie(app.config["LEARNER_COOKIE"], learner_serializer().dumps(uuid.uuid4().hex))
    return client


def test_submit_is_limited_per_learner(limited_app):
    first = _learner_client(limited_app)
    assert [_submit(first, v).status_code for v in range(4)] == [201, 201, 201, 429]
    r = _submit(first, 9)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert r.get_json()["error"]["code"] == "too_many_requests"
    assert _submit(_learner_client(limited_app), 1).status_code == 201  # another learner has its own budget


def test_submit_is_limited_per_address(limited_app):
    # Five learners behind one address: the address's budget of 5 covers the first five only.
    codes = [_submit(_learner_client(limited_app), v).status_code for v in range(6)]
    assert codes == [201] * 5 + [429]
    other = _learner_client(limited_app)
    assert _submit(other, 1, environ_base={"REMOTE_ADDR": "10.0.0.7"}).status_code == 201


def test_check_endpoints_are_limited_and_reads_are_not(limited_app):
    client = _learner_client(limited_app)
    body = {"expected": "1", "answer": "1"}
    codes = [client.post("/api/v1/check/symbolic", json=body).status_code for _ in range(3)]
    assert 429 not in codes[:2] and codes[2] == 429
    assert all(client.get("/api/v1/questions").status_code == 200 for _ in range(5))


def test_limits_off(app, monkeypatch):
    from flask_limiter import Limiter

    def counted(*_args, **_kwargs):
        raise AssertionError("limits checked while turned off")

    # Off means not checked at all: the extension would otherwise look for limits at every submit.
    monkeypatch.setattr(Limiter, "_check_request_limit", counted)
    client = app.test_client()
    assert app.config["RATELIMIT_ENABLED"] is False
    assert all(_submit(client, v).status_code == 201 for v in range(40))


class _Unreadable:
    """A request body that fails the test if anything reads it."""

    def read(self, *_args):
        raise AssertionError("the body was read")

    readline = read


def test_content_length_over_the_limit_is_refused_unread(app, client):
    huge = app.config["MAX_CONTENT_LENGTH"] + 1
    r = client.post("/api/v1/reference/kl.k3", environ_overrides={
        "wsgi.input": _Unreadable(), "CONTENT_LENGTH": str(huge), "CONTENT_TYPE": "application/json"})
    assert r.status_code == 413 and r.get_json()["error"]["code"] == "payload_too_large"
    small = app.config["SMALL_BODY_LIMIT"] + 1  # every endpoint other than the engine's takes 1 MiB
    r = client.post(f"/api/v1/questions/{QID}/attempts", environ_overrides={
        "wsgi.input": _Unreadable(), "CONTENT_LENGTH": str(small), "CONTENT_TYPE": "application/json"})
    assert r.status_code == 413


def test_too_many_engine_elements_are_refused_before_parsing(app, client, monkeypatch):
    from quizapp import config

    def no_parse(*_a, **_k):
        raise AssertionError("the body was parsed")

    monkeypatch.setattr(app.json, "loads", no_parse)
    n = config.REFERENCE_MAX_ELEMENTS + 2
    body = b'{"log_ratio": [' + b",".join([b"0"] * n) + b"]}"
    assert len(body) < app.config["MAX_CONTENT_LENGTH"]
    r = client.post("/api/v1/reference/kl.k3", data=body, content_type="application/json")
    assert r.status_code == 413 and json.loads(r.data)["error"]["code"] == "too_many_elements"
