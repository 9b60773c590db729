"""Heavy grading through the queue (``GRADING_BACKEND=rq``) on a real Redis with a real ``rq worker``.

The code exercise's answers are the question file's own solution and buggy sources, so every verdict here
comes from the engine; the queue path must give exactly what in-process grading gives. Without a worker or
without Redis the answer is a bounded 503 (checks) or an ``undecided`` part that is stored and not counted
(attempts) — never a 500, never a hang, never a job left queued for a worker that comes later.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import redis
from rq import Queue
from rq.registry import FinishedJobRegistry
from rq.serializers import JSONSerializer

from checkers.bank import load_question_file
import quiz_testing as testing

from .conftest import free_port

ROOT = Path(__file__).resolve().parents[2]
K3_FILE = ROOT / "questions" / "L1" / "code-k3-per-token.yaml"
QID, PART = "code-k3-per-token", "implement"
SYNTAX_ERROR = "def k3(log_prob, ref_log_prob:\n    return 0\n"


def _question() -> dict:
    loaded = load_question_file(K3_FILE)
    return loaded if isinstance(loaded, dict) else loaded[0]


def _sources() -> dict[str, str]:
    """The part's reference solution, each of its buggy sources (by note) and a syntax error."""
    part = next(p for p in _question()["parts"] if p["id"] == PART)
    sources = {"solution": part["solution"], "syntax-error": SYNTAX_ERROR}
    sources.update({b["note"]: b["source"] for b in part["buggy"]})
    return sources


def _app(tmp_path, name: str, **config):
    (tmp_path / name).mkdir()
    app = testing.make_app(tmp_path / name, **config)
    testing.load_sample(app, _question(), testing.SAMPLE_QUESTION)
    return app


@pytest.fixture
def apps(tmp_path):
    made = []

    def make(name: str, **config):
        app = _app(tmp_path, name, **config)
        made.append(app)
        return app

    yield make
    from quizapp.storage.db import get_db
    for app in made:
        get_db(app).dispose()


def _queue(redis_url: str, name: str) -> Queue:
    return Queue(name, connection=redis.Redis.from_url(redis_url), serializer=JSONSerializer)


def _graded(client, source: str) -> dict:
    """The three ways a code answer is graded over the API, each verdict without per-request fields."""
    check = client.post(f"/api/v1/questions/{QID}/check", json={"part": PART, "answer": source})
    assert check.status_code == 200, check.get_data(as_text=True)
    standalone = client.post("/api/v1/check/code", json={"function": "kl.k3", "source": source})
    assert standalone.status_code == 200, standalone.get_data(as_text=True)
    attempt = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": 0, "answers": {PART: source}})
    assert attempt.status_code == 201, attempt.get_data(as_text=True)
    return {"check": check.get_json(), "standalone": standalone.get_json(),
            "attempt": attempt.get_json()["parts"][PART]}


def test_the_job_module_imports_no_web_app():
    # A grading host runs checkers.jobs with the engine and the sandbox only: no Flask, no quizapp.
    code = ("import sys, checkers.jobs; bad = sorted(m for m in sys.modules if m.split('.')[0] in "
            "('flask', 'quizapp', 'werkzeug', 'sqlalchemy')); print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_code_answers_graded_through_the_queue_match_in_process_grading(apps, redis_url, rq_worker):
    local = apps("local", GRADING_BACKEND="local").test_client()
    queued = apps("rq", GRADING_BACKEND="rq", REDIS_URL=redis_url, GRADING_QUEUE=rq_worker["queue"],
                  GRADING_QUEUE_WAIT=120).test_client()
    finished = FinishedJobRegistry(queue=_queue(redis_url, rq_worker["queue"]))
    before = finished.count
    sources = _sources()
    assert {"solution", "wrong-sign", "syntax-error"} <= set(sources)
    for name, source in sources.items():
        want, got = _graded(local, source), _graded(queued, source)
        assert got == want, name
    # every answer really went through the worker: check, stand-alone check and attempt, one job each
    assert finished.count - before == 3 * len(sources), rq_worker["log"].read_text(errors="replace")[-3000:]
    statuses = {name: _graded(queued, source)["attempt"]["status"] for name, source in sources.items()}
    assert statuses["solution"] == "correct" and statuses["wrong-sign"] == "incorrect"
    assert statuses["syntax-error"] == "error"


def test_a_function_once_refused_is_graded_the_same_way_on_the_queue(apps, redis_url, rq_worker):
    # divergence.tv takes probability vectors, which the case generator once could not draw (a 422): every
    # engine function is checkable now, and a grading host answers what in-process grading answers.
    queued = apps("rq", GRADING_BACKEND="rq", REDIS_URL=redis_url, GRADING_QUEUE=rq_worker["queue"],
                  GRADING_QUEUE_WAIT=120).test_client()
    local = apps("local").test_client()
    for source, status in (("def tv(p, q):\n    return (p - q).abs().sum(-1) / 2\n", "correct"),
                           ("def tv(p, q):\n    return (p - q).abs().sum(-1)\n", "incorrect")):
        body = {"function": "divergence.tv", "source": source}
        want = local.post("/api/v1/check/code", json=body)
        assert want.status_code == 200 and want.get_json()["status"] == status, want.get_json()
        got = queued.post("/api/v1/check/code", json=body)
        assert (got.status_code, got.get_json()) == (want.status_code, want.get_json())


def test_no_worker_is_a_bounded_503_and_an_uncounted_stored_attempt(apps, redis_url):
    nobody = "no-grading-host"
    own_db = redis_url.rsplit("/", 1)[0] + "/3"  # a database of its own: the worker's finished jobs are elsewhere
    client = apps("rq", GRADING_BACKEND="rq", REDIS_URL=own_db, GRADING_QUEUE=nobody,
                  GRADING_QUEUE_WAIT=1).test_client()
    source = _sources()["solution"]
    resp = client.post(f"/api/v1/questions/{QID}/check", json={"part": PART, "answer": source})
    assert resp.status_code == 503 and resp.headers["Retry-After"] == "1"
    assert resp.get_json()["error"]["code"] == "grading_timeout"
    resp = client.post("/api/v1/check/code", json={"function": "kl.k3", "source": source})
    assert resp.status_code == 503 and resp.get_json()["error"]["code"] == "grading_timeout"
    # the attempt is kept (its answer stored), not counted, and says why
    resp = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": 0, "answers": {PART: source}})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    body = resp.get_json()
    part = body["parts"][PART]
    assert part["status"] == "undecided" and part["note"] == "grading_timeout" and part["counted"] is False
    assert body["counted"] is False and body["score"] == 0
    stored = client.get(f"/api/v1/attempts/{body['attempt_id']}")
    assert stored.status_code == 200 and stored.get_json()["parts"][PART]["status"] == "undecided"
    # no job is left for a worker that starts later: each was taken off the queue when its wait ended
    queue = _queue(own_db, nobody)
    assert queue.count == 0 and queue.connection.keys("rq:job:*") == []


def test_redis_down_is_a_503_and_other_kinds_still_grade(apps):
    closed = f"redis://127.0.0.1:{free_port()}/0"
    client = apps("down", GRADING_BACKEND="rq", REDIS_URL=closed, GRADING_QUEUE_WAIT=1).test_client()
    resp = client.post("/api/v1/check/code", json={"function": "kl.k3", "source": _sources()["solution"]})
    assert resp.status_code == 503 and resp.get_json()["error"]["code"] == "grading_unavailable"
    resp = client.post(f"/api/v1/questions/{QID}/attempts",
                       json={"variant": 0, "answers": {PART: _sources()["solution"]}})
    assert resp.status_code == 201
    part = resp.get_json()["parts"][PART]
    assert part["status"] == "undecided" and part["note"] == "grading_unavailable" and not part["counted"]
    # light kinds never go to the queue: the sample question grades in the web process as before
    sample = testing.SAMPLE_QUESTION
    local = apps("local").test_client()
    answers = {p["id"]: "0.5" for p in sample["parts"]}
    url = f"/api/v1/questions/{sample['id']}/attempts"
    got, want = (c.post(url, json={"variant": 0, "answers": answers}).get_json() for c in (client, local))
    assert [got["parts"][p]["status"] for p in answers] == [want["parts"][p]["status"] for p in answers]
    assert all(got["parts"][p]["note"] != "grading_unavailable" for p in answers)


def test_an_unknown_backend_is_a_startup_error(monkeypatch, tmp_path):
    from quizapp import config
    monkeypatch.setenv("GRADING_BACKEND", "celery")
    with pytest.raises(RuntimeError, match="GRADING_BACKEND"):
        config.from_env(str(tmp_path))
    monkeypatch.setenv("GRADING_BACKEND", "RQ")
    assert config.from_env(str(tmp_path))["GRADING_BACKEND"] == "rq"


def test_a_job_that_fails_on_the_grading_host_is_grading_failed(redis_url, rq_worker):
    # A job the worker cannot run (here: a job function the grading host does not have) ends in RQ's failed
    # registry with its traceback; the web host answers grading_failed instead of waiting or crashing.
    from quizapp.grading_backends import GradingUnavailable
    from quizapp.grading_backends.rq_queue import RQBackend
    from rq.registry import FailedJobRegistry

    backend = RQBackend(url=redis_url, queue=rq_worker["queue"], wait=120)
    failed = FailedJobRegistry(queue=backend.queue)
    before = failed.count
    with pytest.raises(GradingUnavailable) as caught:
        backend._run("checkers.jobs.no_such_job", "x", {"kind": "code", "id": "a"}, {})
    assert caught.value.code == "grading_failed" and caught.value.status == 503
    assert failed.count == before + 1


def test_readyz_reports_the_queue_and_its_grading_hosts(apps, redis_url, rq_worker):
    served = apps("ready", GRADING_BACKEND="rq", REDIS_URL=redis_url, GRADING_QUEUE=rq_worker["queue"]).test_client()
    resp = served.get("/readyz")
    queue = resp.get_json()["checks"]["grading_queue"]
    assert resp.status_code == 200 and queue["ok"] is True and queue["workers"] >= 1
    # no grading host listens on this queue: every code answer would come back undecided, so not ready
    idle = apps("idle", GRADING_BACKEND="rq", REDIS_URL=redis_url, GRADING_QUEUE="nobody-listens").test_client()
    resp = idle.get("/readyz")
    assert resp.status_code == 503 and resp.get_json()["checks"]["grading_queue"] == {
        "ok": False, "queue": "nobody-listens", "workers": 0}
    down = apps("down", GRADING_BACKEND="rq", REDIS_URL=f"redis://127.0.0.1:{free_port()}/0").test_client()
    resp = down.get("/readyz")
    assert resp.status_code == 503 and resp.get_json()["checks"]["grading_queue"]["ok"] is False
    # the single-host path adds no queue check
    assert "grading_queue" not in apps("local").test_client().get("/readyz").get_json()["checks"]


def test_queue_errors_speak_the_readers_language(apps):
    client = apps("zh", GRADING_BACKEND="rq", REDIS_URL=f"redis://127.0.0.1:{free_port()}/0",
                  GRADING_QUEUE_WAIT=1).test_client()
    body = {"function": "kl.k3", "source": _sources()["solution"]}
    en = client.post("/api/v1/check/code?lang=en", json=body).get_json()["error"]
    zh = client.post("/api/v1/check/code?lang=zh", json=body).get_json()["error"]
    assert en["code"] == zh["code"] == "grading_unavailable"
    assert en["message"] == "the grading queue is unreachable; retry shortly" and zh["message"] != en["message"]
