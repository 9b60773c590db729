"""Hints are counted per (learner, question) since the last reveal, like tries: reading a hint on one variant
and answering another must not earn full credit (the sample question: part a has two hints, part b none)."""

from datetime import datetime, timedelta

from checkers.bank import params_for
from checkers.bank.variants import part_hints
from checkers.params import resolve_value
from quiz_testing import SAMPLE_QUESTION

from quizapp.study.credit import credit
from quizapp.study.policy import ATTEMPT, HINT, REQUEST, walk

QID = SAMPLE_QUESTION["id"]
PART_A = SAMPLE_QUESTION["parts"][0]
WRONG = {"a": "0", "b": "yes"}


def _right(variant: int) -> dict:
    value = resolve_value(PART_A["expected"], params_for(SAMPLE_QUESTION, variant))
    return {"a": repr(float(value)), "b": "no"}


def _submit(client, variant, answers):
    resp = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": variant, "answers": answers})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


def _hint(client, variant, lang="en"):
    return client.post(f"/api/v1/questions/{QID}/hints", json={"variant": variant, "part": "a", "lang": lang})


def _practice(client, variant):
    resp = client.get(f"/api/v1/questions/{QID}/practice?variant={variant}")
    assert resp.status_code == 200
    return resp.get_json()


def test_a_hint_on_one_variant_lowers_the_credit_on_another(client):
    assert _hint(client, 40).status_code == 201
    # the gaming path: every hint read on variant 40, the answer typed on variant 41
    body = _submit(client, 41, _right(41))
    part = body["parts"]["a"]
    assert part["status"] == "correct" and part["hints_used"] == 1
    assert abs(part["score"] - credit(1)) < 1e-9 and part["score"] < 1
    assert abs(body["score"] - (credit(1) + 1)) < 1e-9 and body["score"] < body["max_score"]
    assert body["practice"]["hints_shown"] == {"a": 1}
    assert body["review"]["last_rating"] == "hard"  # helped, so not Good


def test_the_ladder_goes_on_with_the_new_variants_texts(client):
    first = _hint(client, 50).get_json()
    assert first["index"] == 0
    second = _hint(client, 51, "zh").get_json()
    assert second["index"] == 1 and second["credit"] == credit(2)
    zh_texts = part_hints(PART_A, "zh", params_for(SAMPLE_QUESTION, 51))
    assert second["hint"] == zh_texts[1] and second["practice"]["hints_shown"] == {"a": 2}
    assert _practice(client, 52)["hints"] == {"a": part_hints(PART_A, "en", params_for(SAMPLE_QUESTION, 52))}
    none_left = _hint(client, 52)  # two hints in all, whatever the variant they were read on
    assert none_left.status_code == 409 and none_left.get_json()["error"]["code"] == "no_more_hints"


def test_a_reveal_starts_a_fresh_hint_count(client):
    _hint(client, 60)
    solved = _submit(client, 61, _right(61))  # reveals variant 61, which keeps the hint it was helped by
    assert solved["practice"]["solution_reason"] == "correct" and solved["parts"]["a"]["hints_used"] == 1
    assert _practice(client, 61)["practice"]["hints_shown"] == {"a": 1}
    # the variant the hint was read on, and any other, start afresh after the reveal
    assert _practice(client, 60)["practice"]["hints_shown"] == {}
    fresh = _submit(client, 62, _right(62))
    assert fresh["parts"]["a"]["hints_used"] == 0 and fresh["score"] == fresh["max_score"]


def test_hints_on_a_revealed_variant_count_for_it_alone(client):
    _submit(client, 70, WRONG)
    assert client.post(f"/api/v1/questions/{QID}/solution", json={"variant": 70}).status_code == 201
    assert _hint(client, 70).get_json()["index"] == 0  # re-reading a shown variant, hint and all
    assert _practice(client, 70)["practice"]["hints_shown"] == {"a": 1}
    assert _practice(client, 71)["practice"]["hints_shown"] == {}
    other = _submit(client, 71, _right(71))
    assert other["parts"]["a"]["hints_used"] == 0 and other["score"] == other["max_score"]


def _timeline(*steps):
    """``(variant, "hint" | "wrong" | "right" | "ask")`` -> the rows :func:`walk` reads, one second apart."""
    t0 = datetime(2026, 1, 1)
    rows = []
    for i, (variant, what) in enumerate(steps):
        at = t0 + timedelta(seconds=i)
        if what == "hint":
            rows.append((at, HINT, variant, "a", None))
        elif what == "ask":
            rows.append((at, REQUEST, variant, None, None))
        else:
            status = "correct" if what == "right" else "incorrect"
            rows.append((at, ATTEMPT, variant, {"a": {"status": status}, "b": {"status": status}}, True))
    return rows


def test_walk_rule_table_for_hints():
    walked = walk(_timeline((1, "hint"), (2, "hint"), (3, "wrong")), SAMPLE_QUESTION)
    assert walked.hints == {"a": 2} and walked.revealed == {}
    walked = walk(_timeline((1, "hint"), (2, "right"), (1, "hint")), SAMPLE_QUESTION)
    assert walked.revealed_hints == {2: {"a": 1}} and walked.hints == {"a": 1}
    walked = walk(_timeline((1, "ask"), (1, "hint"), (1, "hint"), (2, "hint")), SAMPLE_QUESTION)
    assert walked.revealed_hints == {1: {"a": 2}} and walked.hints == {"a": 1}
    # a hint and an answer in the same instant: the hint was read first
    at = datetime(2026, 1, 1)
    rows = sorted([(at, ATTEMPT, 1, {"a": {"status": "correct"}, "b": {"status": "correct"}}, True),
                   (at, HINT, 1, "a", None)], key=lambda it: (it[0], it[1]))
    assert walk(rows, SAMPLE_QUESTION).revealed_hints == {1: {"a": 1}}
