"""Tries are counted per (learner, question) since the last reveal, not per variant: asking for another
variant must not reset the count before the solution was shown (the sample question allows 3 tries)."""

from datetime import datetime, timedelta

from quiz_testing import SAMPLE_QUESTION

from quizapp.study.policy import tries_allowed, walk

QID = SAMPLE_QUESTION["id"]
WRONG = {"a": "0", "b": "yes"}


def _submit(client, variant, answers=WRONG):
    resp = client.post(f"/api/v1/questions/{QID}/attempts", json={"variant": variant, "answers": answers})
    assert resp.status_code == 201, resp.get_data(as_text=True)
    return resp.get_json()


def _practice(client, variant):
    resp = client.get(f"/api/v1/questions/{QID}/practice?variant={variant}")
    assert resp.status_code == 200
    return resp.get_json()


def test_switching_variant_keeps_the_count(client):
    assert tries_allowed(SAMPLE_QUESTION) == 3
    assert _submit(client, 5)["practice"]["tries_used"] == 1
    second = _submit(client, 6)  # a new variant before the solution was shown: no fresh tries
    assert second["practice"]["tries_used"] == 2 and second["practice"]["tries_left"] == 1
    assert "solution" not in second
    assert _practice(client, 7)["practice"]["tries_left"] == 1  # nor does merely opening another one
    third = _submit(client, 7)  # the gaming path: the third wrong answer, on a third variant
    assert third["practice"]["solution_reason"] == "tries" and "solution" in third
    # the variants left before the reveal do not show their solution, and start a fresh count now
    before = _practice(client, 5)
    assert "solution" not in before and before["practice"]["tries_used"] == 0
    assert "solution" in _practice(client, 7)  # the revealed one stays revealed


def test_a_fresh_count_after_show_solution(client):
    _submit(client, 20)
    assert client.post(f"/api/v1/questions/{QID}/solution", json={"variant": 20}).status_code == 201
    after = _practice(client, 21)
    assert after["practice"]["tries_used"] == 0 and "solution" not in after
    # practising the revealed variant again does not eat into the count of the next one
    again = _submit(client, 20)
    assert again["practice"]["solution_reason"] == "requested" and "solution" in again
    assert _submit(client, 21)["practice"]["tries_used"] == 1


def test_unreadable_attempts_use_no_try_on_any_variant(client):
    _submit(client, 30)
    body = _submit(client, 31, {"a": "(("})
    assert body["counted"] is False and body["practice"]["tries_used"] == 1


def _timeline(*steps):
    """``(variant, "wrong" | "right" | "ask")`` -> the rows :func:`replay` walks, one second apart."""
    t0 = datetime(2026, 1, 1)
    rows = []
    for i, (variant, what) in enumerate(steps):
        at = t0 + timedelta(seconds=i)
        if what == "ask":
            rows.append((at, 1, variant, None, None))
        else:
            status = "correct" if what == "right" else "incorrect"
            rows.append((at, 0, variant, {"a": {"status": status}, "b": {"status": status}}, True))
    return rows


def replay(items: list[tuple], data: dict) -> tuple[int, dict]:
    """The walked timeline's running tries and revealed variants."""
    walked = walk(items, data)
    return walked.running, walked.revealed


def test_replay_rule_table():
    run, shown = replay(_timeline((1, "wrong"), (2, "wrong")), SAMPLE_QUESTION)
    assert (run, shown) == (2, {})
    run, shown = replay(_timeline((1, "wrong"), (2, "right"), (3, "wrong")), SAMPLE_QUESTION)
    assert run == 1 and shown == {2: {"tries_used": 2, "solved": True, "requested": False}}
    run, shown = replay(_timeline((1, "ask"), (1, "wrong"), (1, "right"), (2, "wrong")), SAMPLE_QUESTION)
    assert run == 1 and shown == {1: {"tries_used": 2, "solved": True, "requested": True}}
    run, shown = replay(_timeline(*[(v, "wrong") for v in range(7)]), SAMPLE_QUESTION)
    assert run == 1 and set(shown) == {2, 5}  # every third wrong answer reveals the variant it was on
