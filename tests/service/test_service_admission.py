"""Grading slots (quizapp.ops.admission): while every slot of the process is taken, a grading request waits
and then gets 503 ``busy`` with Retry-After, storing nothing, and reads are served meanwhile."""

import pytest

import quiz_testing as testing
from quizapp.storage.db import get_db
from quizapp.storage.models import Attempt
from quizapp.ops import admission

QID = testing.SAMPLE_QUESTION["id"]
BODY = {"variant": 3, "answers": {"a": "1.0", "b": "yes"}}


@pytest.fixture
def one_slot_app(tmp_path, db_url):
    # the wait is what a request spends blocked before its 503: short, so the test does not linger
    app = testing.make_app(tmp_path, database_url=db_url, GRADING_SLOTS=1, GRADING_SLOT_WAIT=0.05)
    testing.load_sample(app)
    yield app
    get_db(app).dispose()


def _attempts(app) -> int:
    with app.app_context():
        session = get_db(app).Session()
        try:
            return session.query(Attempt).count()
        finally:
            session.close()


def test_a_full_house_answers_busy_and_stores_nothing_while_reads_pass(one_slot_app):
    client = one_slot_app.test_client()
    slot = one_slot_app.extensions[admission.EXTENSION_KEY].semaphore()
    assert slot.acquire(blocking=False)  # another request of this process is grading
    try:
        r = client.post(f"/api/v1/questions/{QID}/attempts", json=BODY)
        assert r.status_code == 503 and int(r.headers["Retry-After"]) >= 1
        assert r.get_json()["error"]["code"] == "busy"
        check = client.post("/api/v1/check/symbolic", json={"expected": "x", "answer": "x"})
        assert check.status_code == 503 and check.get_json()["error"]["code"] == "busy"
        assert _attempts(one_slot_app) == 0
        # reads take no slot
        assert client.get(f"/api/v1/questions/{QID}").status_code == 200
        assert client.get(f"/questions/{QID}?variant=3").status_code == 200
    finally:
        slot.release()
    r = client.post(f"/api/v1/questions/{QID}/attempts", json=BODY)
    assert r.status_code == 201 and _attempts(one_slot_app) == 1
    assert slot.acquire(blocking=False)  # the request gave its slot back
    slot.release()


def test_a_submit_holds_its_slot_while_grading_and_not_while_storing(one_slot_app, monkeypatch):
    """Storing waits for the database's writer turn, not for the interpreter: the slot is free by then, so
    another answer can be graded meanwhile."""
    from quizapp.services import attempts

    slot = one_slot_app.extensions[admission.EXTENSION_KEY].semaphore()
    seen = []
    grade, store = attempts.grade_answers, attempts.write_together

    def grading(*args, **kwargs):
        seen.append(("grading", slot.acquire(blocking=False)))  # False: this request holds the one slot
        return grade(*args, **kwargs)

    def storing(session, work, rows=()):
        free = slot.acquire(blocking=False)
        if free:
            slot.release()
        seen.append(("storing", free))
        return store(session, work, rows)

    monkeypatch.setattr(attempts, "grade_answers", grading)
    monkeypatch.setattr(attempts, "write_together", storing)
    r = one_slot_app.test_client().post(f"/api/v1/questions/{QID}/attempts", json=BODY)
    assert r.status_code == 201 and _attempts(one_slot_app) == 1
    assert seen == [("grading", False), ("storing", True)]


def test_the_busy_message_is_translated(one_slot_app):
    client = one_slot_app.test_client()
    slot = one_slot_app.extensions[admission.EXTENSION_KEY].semaphore()
    assert slot.acquire(blocking=False)
    try:
        en = client.post(f"/api/v1/questions/{QID}/attempts", json=BODY).get_json()["error"]["message"]
        zh = client.post(f"/api/v1/questions/{QID}/attempts?lang=zh", json=BODY).get_json()["error"]["message"]
    finally:
        slot.release()
    assert "busy" in en and zh != en


def test_no_slots_turns_admission_off(tmp_path, db_url):
    app = testing.make_app(tmp_path, database_url=db_url, GRADING_SLOTS=0)
    testing.load_sample(app)
    try:
        assert admission.EXTENSION_KEY not in app.extensions
        assert app.test_client().post(f"/api/v1/questions/{QID}/attempts", json=BODY).status_code == 201
    finally:
        get_db(app).dispose()


def test_a_forked_worker_gets_fresh_slots():
    slots = admission._Slots(1)
    held = slots.semaphore()
    assert held.acquire(blocking=False)
    slots._pid = -1  # as if this process were the child of the one that holds the slot
    fresh = slots.semaphore()
    assert fresh is not held and fresh.acquire(blocking=False)


@pytest.mark.parametrize("raw", [{"GRADING_SLOTS": "two"}, {"GRADING_SLOTS": "-1"}, {"GRADING_SLOT_WAIT": "0"}])
def test_bad_settings_are_refused_at_start(monkeypatch, raw):
    for key, value in raw.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(RuntimeError, match="GRADING_SLOT"):
        admission.config_from_env()
