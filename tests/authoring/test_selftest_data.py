"""The self-test's failures are data: a message id and the args that identify the failure, next to a reason
written for people. Consumers (the authoring report, distinct_failures) read the fields, so rewording a
reason changes no verdict and no grouping."""

from __future__ import annotations

import copy
import dataclasses

from checkers.bank import distinct_failures, selftest
from checkers.bank.selftest import MESSAGES, failure, failure_key
from checkers.bank import report as bank_report
from quizapp.authoring import validation

from tests.authoring.conftest import author_question


def _same_as_correct() -> dict:
    data = author_question("auth-data-same")
    data["parts"][0]["mistakes"].append({"expr": "p + p", "note": "same-as-correct",
                                         "feedback": {"en": "Same.", "zh": "Same (zh)."}})
    data["parts"][1]["mistakes"].append({"answer": "no", "note": "choice-same",
                                         "feedback": {"en": "Same.", "zh": "Same (zh)."}})
    return data


def test_a_mistake_equal_to_the_answer_is_reported_with_its_note_and_grade():
    report = selftest(_same_as_correct(), seeds=range(3))
    by_note = {}
    for f in report.failures:
        by_note.setdefault(f["args"].get("note"), []).append(f)
    assert set(by_note) == {"same-as-correct", "choice-same"}
    # the symbolic kind leaves the mistake out of its examples; the choice kind grades it, and it is correct
    assert [(f["part"], f["seed"], f["message"]) for f in by_note["same-as-correct"]] == [
        ("a", s, "mistake-not-exercised") for s in range(3)]
    graded = [f for f in by_note["choice-same"] if f["message"] == "incorrect-graded-wrong"]
    assert [f["seed"] for f in graded] == [0, 1, 2]
    assert all(f["args"]["graded"] == "correct" and f["status"] == "known-mistake" for f in graded)
    assert all(f["message"] in MESSAGES for f in report.failures)


def test_the_authoring_report_never_reads_reasons(monkeypatch):
    """With every reason replaced by the same meaningless text, the report still explains the mistake
    (its fields say which records it replaces) and still tells the failures apart."""
    real = selftest

    def reworded(question, seeds):
        report = real(question, seeds=seeds)
        return dataclasses.replace(report, failures=[dict(f, reason="(reworded)") for f in report.failures])

    monkeypatch.setattr(bank_report, "selftest", reworded)
    report = validation.selftest_report(_same_as_correct(), 20)
    for part in ("a", "b"):
        mine = [f for f in report["failures"] if f["part"] == part]
        assert len(mine) == 1 and mine[0]["seeds"] == list(range(20)), mine
        assert mine[0]["check"] == "known-mistake" and "equals the correct answer" in mine[0]["reason"]
        assert (mine[0]["expected"], mine[0]["computed"]) == ("incorrect", "correct")


def test_distinct_failures_group_by_message_and_identifying_args():
    records = [failure("a", s, "expected-fail", f"cannot compute at x={s / 10}", "expected", error="ValueError")
               for s in range(4)]
    records += [failure("a", 9, "expected-fail", "cannot compute at x=0.9", "expected", error="ZeroDivisionError"),
                failure("b", 2, "mistake-not-exercised", "same words", note="n1"),
                failure("b", 3, "mistake-not-exercised", "same words", note="n2")]
    groups = distinct_failures(copy.deepcopy(records))
    assert [(g["part"], g["args"].get("error") or g["args"].get("note"), g["seeds"]) for g in groups] == [
        ("a", "ValueError", [0, 1, 2, 3]), ("a", "ZeroDivisionError", [9]), ("b", "n1", [2]), ("b", "n2", [3])]
    assert groups[0]["count"] == 4 and [e["seed"] for e in groups[0]["examples"]] == [0, 1, 2]
    # the reason is not part of what makes two records one failure
    assert failure_key(records[0]) == failure_key(dict(records[1], reason="anything else"))


def test_an_unknown_message_id_is_refused():
    try:
        failure("a", 0, "no-such-message", "text")
    except KeyError as exc:
        assert "no-such-message" in str(exc)
    else:
        raise AssertionError("a failure must name one of the known messages")
