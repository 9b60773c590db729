"""A verdict that depends on the machine's state (a time-out or a resource limit under load, no sandbox) is
``undecided``, costs no try, and is never remembered: once the machine is free the same source is graded again
and gets its real verdict. A decided verdict is still remembered (the sandbox runs once per source)."""

from __future__ import annotations

from pathlib import Path

import pytest

from checkers import coderun
from checkers.bank import load_question_file
from checkers.coderun.runner import RunOutcome
from checkers.kinds.code import grade as code_grade
from checkers.kinds.code.checker import CodeChecker

QUESTIONS = Path(__file__).resolve().parents[4] / "questions"
PART = next(p for p in load_question_file(QUESTIONS / "L1" / "code-k3-per-token.yaml")["parts"] if p["kind"] == "code")
CHECKER = CodeChecker()


@pytest.fixture(autouse=True)
def fresh_memo():
    code_grade.VERDICTS.clear()
    yield
    code_grade.VERDICTS.clear()


def _under_load(outcome: RunOutcome | Exception):
    def run(*args, **kwargs):
        if isinstance(outcome, Exception):
            raise outcome
        return outcome
    return run


@pytest.mark.parametrize("outcome, note", [
    (RunOutcome(cases={}, fatal=None, output="", timed_out=True, died=True, too_large=False), "timeout"),
    (RunOutcome(cases={}, fatal=None, output="", timed_out=False, died=True, too_large=False), "resource_limit"),
    (coderun.SandboxUnavailable("no sealed child"), "sandbox_unavailable"),
])
def test_a_machine_state_verdict_is_undecided_and_not_remembered(monkeypatch, outcome, note):
    real_run = coderun.run
    monkeypatch.setattr(coderun, "run", _under_load(outcome))
    busy = CHECKER.grade(PART["solution"], PART, {})
    assert (busy.status, busy.note) == ("undecided", note)
    assert not busy.consumes_attempt
    monkeypatch.setattr(coderun, "run", real_run)
    free = CHECKER.grade(PART["solution"], PART, {})
    assert free.status == "correct", free.feedback["en"]


def test_a_decided_verdict_is_remembered(monkeypatch):
    first = CHECKER.grade(PART["solution"], PART, {})
    assert first.status == "correct"
    monkeypatch.setattr(coderun, "run", _under_load(AssertionError("the sandbox ran again")))
    assert CHECKER.grade(PART["solution"], PART, {}).status == "correct"
