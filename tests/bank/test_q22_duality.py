"""Q22: the implicit-reward gap at the RL optimum is r(y1) - r(y2) (ln Z and the reference terms
cancel), and the RL weight is accepted up to an offset that depends only on the given constant beta."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from checkers import grading
from checkers.bank import load_question_file, params_for, selftest

Q22 = load_question_file(Path(__file__).resolve().parents[2] / "questions" / "L3" / "q22-dpo-rl-duality.yaml")
PARTS = {p["id"]: p for p in Q22["parts"]}
SEEDS = range(20)


@pytest.fixture(autouse=True)
def _inprocess():
    from checkers import sandbox
    before = sandbox.is_inprocess()
    sandbox.set_inprocess(True)
    yield
    sandbox.set_inprocess(before)


@pytest.mark.parametrize("seed", SEEDS)
def test_margin_is_the_reward_gap_on_every_variant(seed):
    params = params_for(Q22, seed)
    part = PARTS["margin"]
    # The gap of implicit rewards, derived: beta*ln(pi*_i/pi_ref_i) = w_i - beta*ln Z for every token.
    gap = params["w1"] - params["w2"]
    assert grading.grade(f"{params['w1']} - {params['w2']}", part, params).status == "correct"
    assert grading.grade(repr(gap), part, params).status == "correct"
    # The old key, beta*ln(pi*(y1)/pi*(y2)), drops the reference terms: wrong whenever pi_ref differs.
    dropped = params["beta"] * math.log(params["r0"] / params["r1"])
    if abs(dropped - gap) > 1e-2:
        v = grading.grade(repr(dropped), part, params)
        assert (v.status, v.note) == ("incorrect", "dropped-reference")


def test_rlgrad_accepts_an_offset_in_beta_only():
    part, params = PARTS["rlgrad"], params_for(Q22, 0)
    assert part["constants"] == ["beta"]
    for answer in ("r - beta*(lt - lr + 1)", "r - beta*(lt - lr) + 3*beta^2", "r - beta*lt + beta*lr + 7"):
        assert grading.grade(answer, part, params).status == "correct", answer
    for answer in ("r - beta*(lt - lr) + lt", "r - beta*lt", "r*beta - beta*(lt - lr)"):
        assert grading.grade(answer, part, params).status == "incorrect", answer


def test_q22_selftest_passes():
    report = selftest(Q22, seeds=SEEDS)
    assert report.ok, report.summary()
