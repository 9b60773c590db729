""""Interpreted as" for a derivation shows every line as typed (order, grouping, typed digits), with only
the implicit products written out -- in the checker's preview, in a graded verdict and in the API fields."""

import pytest

from checkers import grading
from quiz_testing import load_sample, sample_question

SPEC = {"kind": "derivation", "variables": {"a": {}, "b": {}, "x": {"positive": True}, "y": {"positive": True}},
        "start": "b + a", "goal": "a + b"}


def _lines(raw):
    result = grading.validate(raw, SPEC)
    assert result["valid"], result
    return result["interpreted_as"]


@pytest.mark.parametrize("typed, shown", [
    ("b + a", "b + a"),                 # sympy would print a + b
    ("x/2/y", "x/2/y"),                 # sympy would print x/(2*y)
    ("2x", "2*x"),                      # the one change: the implicit product written out
    ("(b + a)*x", "(b + a)*x"),         # a bracket that groups is kept, its terms in typed order
    ("y*x - 0.50", "y*x - 0.50"),       # factors in typed order, typed digits
])
def test_each_line_reads_as_typed(typed, shown):
    assert _lines([typed])["text"] == shown


def test_continuation_and_equation_lines_keep_their_form():
    interp = _lines(["b + a", "= 1*b + a", "2x = b + a"])
    assert interp["text"].split("\n") == ["b + a", "= 1*b + a", "2*x = b + a"]
    latex = interp["latex"].split(r" \\ ")
    assert latex[0] == "b + a" and latex[1].startswith("= ") and r"2 \cdot x" in latex[2]
    # one top-level <mrow> per line, so the page can show one formula per step
    assert interp["mathml"].count("<mrow><mrow>") + interp["mathml"].count("<mrow><mo>=</mo>") >= 3
    assert "&#183;" in interp["mathml"]  # 2·x


def test_a_graded_verdict_carries_the_typed_lines():
    verdict = grading.grade(["b + a", "= 2b/2 + a", "= a + b"], SPEC, {})
    assert verdict.status == "correct", verdict.feedback
    assert verdict.interpreted_as.text == "b + a\n= 2*b/2 + a\n= a + b"


DERIVATION_Q = sample_question(id="svc-derivation-typed", parts=[{
    "id": "d", "kind": "derivation",
    "prompt": {"en": "Rewrite $b + a$ as $a + b$.", "zh": "把 $b + a$ 写成 $a + b$。"},
    "variables": {"a": {}, "b": {}}, "start": "b + a", "goal": "a + b",
    "reference": ["b + a", "= 2*b/2 + a", "= a + b"]}])


def test_the_api_preview_and_attempt_show_the_typed_lines(app, client):
    load_sample(app, DERIVATION_Q)
    qid = DERIVATION_Q["id"]
    resp = client.post(f"/api/v1/questions/{qid}/validate",
                       json={"variant": 0, "part": "d", "answer": ["b + a", "= 2b/2 + a"]})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.get_json()["interpreted_as"]["text"] == "b + a\n= 2*b/2 + a"
    resp = client.post(f"/api/v1/questions/{qid}/attempts",
                       json={"variant": 0, "answers": {"d": ["b + a", "= 2b/2 + a"]}})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    assert resp.get_json()["parts"]["d"]["interpreted_as"]["text"] == "b + a\n= 2*b/2 + a"
