import pytest

from checkers import sandbox
from checkers.kinds.derivation import checker as derivation_checker

#: The hard limit a derivation graded in this process gets when its test gives none (its soft budget is
#: most of it). These tests are about verdicts, not time: the library's default of one second can run out
#: when a cold sympy cache and a garbage collection of the test worker's large heap fall in one answer,
#: which the service never meets (it grades with its own, longer ``GRADE_TIMEOUT``). Tests of running out
#: pass their own budget or limit.
VERDICT_TEST_LIMIT = 10.0


@pytest.fixture
def inprocess(monkeypatch):
    """Grade pure functions in this process (no hard time limit) and restore the switch afterwards."""
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(True)
    monkeypatch.setattr(derivation_checker, "GRADE_TIMEOUT", VERDICT_TEST_LIMIT)
    yield
    sandbox.set_inprocess(before)
