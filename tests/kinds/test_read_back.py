"""A stored verdict is read back through its kind (``Kind.read_back``): a derivation attempt shows each
line's verdict and the first line that does not follow beside the part's verdict, in the request's
language; a kind that lifts nothing adds no such field."""

from __future__ import annotations

from checkers.bank import load_question_file, params_for
from checkers.kinds import get_kind, kind_names


def _starter(name: str) -> dict:
    return load_question_file(get_kind(name).starter_file)


def test_a_derivation_attempt_reads_back_its_steps(kinds_app):
    data = _starter("derivation")
    part = data["parts"][0]
    kind = get_kind(part["kind"])
    ex = kind.examples(part, params_for(data, 0))
    wrong = ex.incorrect[0][0]
    app = kinds_app(data)
    client = app.test_client()
    r = client.post(f"/api/v1/questions/{data['id']}/attempts?lang=zh",
                    json={"variant": 0, "answers": {part["id"]: wrong}, "lang": "zh"})
    assert r.status_code == 201, r.get_json()
    shown = r.get_json()["parts"][part["id"]]
    assert shown["steps"] == shown["details"]["steps"] and len(shown["steps"]) == len(wrong)
    assert shown["first_error"] == shown["details"]["first_error"]
    assert all(isinstance(s["feedback"], str) for s in shown["steps"])  # one language, the request's
    again = client.get(f"/api/v1/attempts/{r.get_json()['attempt_id']}?lang=zh").get_json()["parts"][part["id"]]
    assert again["steps"] == shown["steps"] and again["first_error"] == shown["first_error"]


def test_a_kind_that_lifts_nothing_adds_nothing(kinds_app):
    name = next(n for n in kind_names() if get_kind(n).read_back({"steps": [], "first_error": 0}) == {})
    data = _starter(name)
    part = data["parts"][0]
    raw = get_kind(name).examples(part, params_for(data, 0)).correct or ["x"]
    app = kinds_app(data)
    r = app.test_client().post(f"/api/v1/questions/{data['id']}/attempts",
                               json={"variant": 0, "answers": {part["id"]: raw[0]}})
    assert r.status_code == 201 and "steps" not in r.get_json()["parts"][part["id"]]
