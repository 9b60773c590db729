"""The code-check endpoints look the answer kind up once per request and hand it along, as a submit does
(``quizapp.services.attempts.part_kinds``): ``POST /api/v1/check/code`` (the stand-alone check against the
engine) and ``POST /api/v1/questions/<id>/check`` (a part's practice check) each ask the kinds' registry
for the ``code`` kind exactly once: the route's shape check, the backend choice
(``quizapp.grading_backends``), the checkers' facade and the local backend's practice check use that one.

The lookups are counted at the registry itself (``checkers.kinds.base._KINDS``, which ``get_kind`` and
``find_kind`` read), so a lookup through any module's own binding of either function is counted too.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import quiz_testing as testing
from checkers.bank import load_question_file
from checkers.kinds import base

K3_FILE = Path(__file__).resolve().parents[2] / "questions" / "L1" / "code-k3-per-token.yaml"
#: A correct k3 (Schulman's low-variance KL estimator, r - log r - 1 with r = p_ref / p).
GOOD = ("import torch\n\n\ndef k3(log_prob, ref_log_prob):\n"
        "    log_ratio = ref_log_prob - log_prob\n"
        "    return torch.exp(log_ratio) - log_ratio - 1\n")


class CountingRegistry(dict):
    """The kinds' registry, counting each lookup of a name (``registry[name]`` and ``registry.get(name)``)."""

    def __init__(self, kinds):
        super().__init__(kinds)
        self.looked_up: list[str] = []

    def __getitem__(self, name):
        self.looked_up.append(name)
        return super().__getitem__(name)

    def get(self, name, default=None):
        self.looked_up.append(name)
        return super().get(name, default)


@pytest.fixture()
def counting(monkeypatch) -> CountingRegistry:
    registry = CountingRegistry(base._KINDS)
    monkeypatch.setattr(base, "_KINDS", registry)
    return registry


def _k3_question() -> dict:
    loaded = load_question_file(K3_FILE)
    return loaded if isinstance(loaded, dict) else loaded[0]


@pytest.fixture()
def k3_client(tmp_path):
    """A client of an app (SQLite: the lookups do not depend on the database) serving the k3 code question."""
    app = testing.make_app(tmp_path)
    testing.load_sample(app, _k3_question())
    yield app.test_client()
    from quizapp.storage.db import get_db

    get_db(app).dispose()


def test_the_counting_registry_sees_a_lookup_through_any_binding(counting):
    from checkers import grading
    from quizapp import grading_backends

    grading.get_kind("code")  # the facade's own binding of get_kind
    grading_backends.find_kind("code")  # the backends' binding of find_kind
    assert counting.looked_up == ["code", "code"]


def test_a_stand_alone_code_check_looks_the_kind_up_once(k3_client, counting):
    r = k3_client.post("/api/v1/check/code", json={"function": "kl.k3", "source": GOOD})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "correct"  # graded through the whole path, not refused early
    assert counting.looked_up == ["code"]

    counting.looked_up.clear()
    r = k3_client.post("/api/v1/check/code", json={"function": "kl.k3", "source": GOOD + "\x00"})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "source"  # the code kind's accept
    assert counting.looked_up == ["code"]


def test_a_parts_practice_check_looks_the_kind_up_once(k3_client, counting):
    data = _k3_question()
    (part,) = [p for p in data["parts"] if p["kind"] == "code"]
    k3_client.get(f"/api/v1/questions/{data['id']}?variant=0")  # the question cache is filled before counting
    counting.looked_up.clear()
    r = k3_client.post(f"/api/v1/questions/{data['id']}/check",
                       json={"variant": 0, "part": part["id"], "answer": GOOD})
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["status"] == "correct"  # the visible cases, graded
    assert counting.looked_up == ["code"]
