"""Fixtures of the learner-memory tests: the sample app (the root conftest.py) and helpers to answer it."""

import pytest

from checkers.bank import params_for
from checkers.params import resolve_value
from quiz_testing import SAMPLE_QUESTION

QID = SAMPLE_QUESTION["id"]
PASSWORD = "a long passphrase 42"


def right_answers(variant: int) -> dict:
    """Both parts right: 2p computed by the engine's own parameter resolution, and 'no'."""
    value = resolve_value(SAMPLE_QUESTION["parts"][0]["expected"], params_for(SAMPLE_QUESTION, variant))
    return {"a": repr(float(value)), "b": "no"}


def answer(client, variant: int, right: bool, headers=None):
    answers = right_answers(variant) if right else {"a": "0", "b": "yes"}
    resp = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": variant, "answers": answers},
                       headers=headers or {})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


def error(resp, status: int, field):
    assert resp.status_code == status, resp.get_data(as_text=True)
    body = resp.get_json()["error"]
    assert body["field"] == field, body
    return body


class Helpers:
    QID = QID
    PASSWORD = PASSWORD
    answer = staticmethod(answer)
    error = staticmethod(error)
    right_answers = staticmethod(right_answers)


@pytest.fixture
def lm():
    """The helpers above (test modules cannot import conftest under --import-mode=importlib)."""
    return Helpers


@pytest.fixture
def signed_up(client):
    resp = client.post("/api/v1/account/signup", json={"email": "ada@example.org", "password": PASSWORD})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return client
