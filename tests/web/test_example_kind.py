"""A new answer kind is one folder plus one registration line (docs/architecture.md, "Adding a kind").

The example kind ``integer`` lives in tests/fixtures/example_kind/ (its Kind subclass and partial.html);
registered here, it is validated by the bank schema, graded through the attempt API, listed in the
OpenAPI document and rendered on the question page, with no other file naming it.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import pytest

from checkers.bank import BankError, validate_question
from checkers.kinds import base

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "fixtures"))
from example_kind import IntegerKind  # noqa: E402

T = {"en": "x", "zh": "x"}
QUESTION = {
    "id": "example-integer", "level": "L1", "tags": ["example"],
    "title": {"en": "Count the heads", "zh": "数正面"},
    "prompt": {"en": "A coin is flipped {{n}} times and always lands heads.", "zh": "硬币抛 {{n}} 次，全是正面。"},
    "params": {"n": {"randint": [3, 9]}},
    "parts": [{"id": "a", "kind": "integer", "prompt": {"en": "How many heads?", "zh": "几次正面？"},
               "expected": "{{n}}"}],
    "solution": {"key_points": {"en": ["Every flip is a head."], "zh": ["每次都是正面。"]},
                 "pitfalls": {"en": ["None."], "zh": ["无。"]}, "worked": {"en": "n heads.", "zh": "n 次正面。"}},
}


@pytest.fixture()
def integer_kind():
    kind = base.register_kind(IntegerKind())  # the one line that adds a kind
    yield kind
    base.unregister_kind(kind.name)


def test_bank_schema_checks_the_new_kinds_keys(integer_kind):
    validate_question(copy.deepcopy(QUESTION))
    bad = copy.deepcopy(QUESTION)
    bad["parts"][0]["tolerance"] = 1
    with pytest.raises(BankError) as exc:
        validate_question(bad)
    assert "tolerance" in str(exc.value)


def test_unregistered_kind_is_refused_by_the_schema():
    with pytest.raises(BankError) as exc:
        validate_question(copy.deepcopy(QUESTION))
    assert exc.value.field == "parts[0].kind"


def test_attempt_api_page_and_openapi_use_the_new_kind(integer_kind, tmp_path, web_make_app):
    from checkers.bank import params_for

    app = web_make_app(tmp_path / "kind.sqlite3", questions=[copy.deepcopy(QUESTION)])
    client = app.test_client()
    n = int(params_for(QUESTION, 7)["n"])

    r = client.post("/api/v1/questions/example-integer/attempts", json={"variant": 7, "answers": {"a": str(n)}})
    assert r.status_code == 201, r.get_json()
    part = r.get_json()["parts"]["a"]
    assert part["status"] == "correct" and part["score"] == 1.0
    assert r.get_json()["solution"]["expected"]["a"] == n

    r = client.post("/api/v1/questions/example-integer/attempts", json={"variant": 7, "answers": {"a": str(n + 1)}})
    assert r.get_json()["parts"]["a"]["status"] == "incorrect"

    r = client.post("/api/v1/questions/example-integer/attempts", json={"variant": 7, "answers": {"a": [1]}})
    assert r.status_code == 422 and r.get_json()["error"]["field"] == "answers.a"

    view = client.get("/api/v1/questions/example-integer?variant=7").get_json()
    assert view["parts"][0]["kind"] == "integer" and view["parts"][0]["digits_only"] is True

    spec = client.get("/api/v1/openapi.json").get_json()
    assert "integer" in spec["components"]["schemas"]["PublicPart"]["properties"]["kind"]["enum"]

    html = client.get("/questions/example-integer?variant=7&lang=en").get_data(as_text=True)
    assert 'class="answer answer-integer"' in html and 'data-digits-only="1"' in html
    assert 'data-kind="integer"' in html
