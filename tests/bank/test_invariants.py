"""Invariants: statements in a question's text that depend on its numbers hold in every variant.

The whole bank's invariants are evaluated over 20 seeds; a tiny question in a temporary folder shows that
a violated invariant is reported with the question, the variant and the condition; the schema refuses a
malformed entry.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from checkers.bank import load_question_file, selftest
from checkers.bank.invariants import evaluate
from checkers.bank.fields import BankError
from checkers.bank.variants import params_for

ROOT = Path(__file__).resolve().parents[2] / "questions"
FILES = sorted(ROOT.rglob("*.yaml"))
SEEDS = range(20)
#: Files whose text states something that depends on the numbers (issue 29): each must carry invariants.
MUST_HAVE = ("v2-a-kl-estimator-variance", "v2-b-grpo-variants-one-batch")


def _with_invariants() -> list[Path]:
    out = []
    for path in FILES:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and data.get("invariants"):
            out.append(path)
    return out


@pytest.mark.parametrize("path", _with_invariants(), ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_every_invariant_of_the_bank_holds_over_20_seeds(path: Path):
    question = load_question_file(path)
    broken = []
    for seed in SEEDS:
        params = params_for(question, seed)
        for entry in question["invariants"]:
            holds, left, right = evaluate(entry, params)
            if not holds:
                broken.append(f"{question['id']} variant {seed}: {entry['id']}: {left} {entry['op']} {right}")
    assert not broken, "\n".join(broken)


def test_the_questions_the_review_named_carry_invariants():
    ids = {p.stem for p in _with_invariants()}
    assert set(MUST_HAVE) <= ids, sorted(set(MUST_HAVE) - ids)


QUESTION = {
    "id": "inv-fixture",
    "level": "L1",
    "tags": ["kl-divergence"],
    "title": {"en": "Fixture", "zh": "测试题"},
    "prompt": {"en": "p = {{p}}; is p above one half?", "zh": "p = {{p}}；p 大于二分之一吗？"},
    "params": {"p": {"uniform": [0.2, 0.8], "round": 2}, "lp": {"value": [-0.5, -1.0]}},
    "invariants": [
        {"id": "p-above-half", "claim": "the key 'yes' needs p > 0.5", "left": "{{p}}", "op": ">", "right": 0.5},
        {"id": "k1-sum", "claim": "an engine call as one side",
         "left": {"call": "kl.k1", "args": {"log_prob": "{{lp}}", "ref_log_prob": [-0.5, -1.0]}, "output": "kl"},
         "op": "==", "right": [0.0, 0.0]},
    ],
    "parts": [{"id": "a", "kind": "numeric", "prompt": {"en": "2p?", "zh": "2p？"},
               "expected": {"expr": "2*p"}}],
    "solution": {"key_points": {"en": ["2p"], "zh": ["2p"]}, "pitfalls": {"en": ["none"], "zh": ["无"]},
                 "worked": {"en": "2p", "zh": "2p"}},
}


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "inv-fixture.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
    return path


def test_a_violated_invariant_is_reported_with_question_variant_and_condition(tmp_path: Path):
    question = load_question_file(_write(tmp_path, QUESTION))
    report = selftest(question, seeds=SEEDS)
    low = [s for s in SEEDS if params_for(question, s)["p"] <= 0.5]
    assert low and len(low) < 20  # the fixture's range straddles 0.5, so both outcomes occur
    bad = [f for f in report.failures if f["status"] == "invariant"]
    assert not report.ok
    assert [f["seed"] for f in bad] == low
    assert all(f["message"] == "invariant-false" and f["args"]["invariant"] == "p-above-half" for f in bad)
    first = bad[0]
    assert "inv-fixture" in first["reason"] and f"variant {low[0]}" in first["reason"]
    assert "p > 0.5" in first["reason"] and ">" in first["computed"]
    # nothing else failed: the engine-call invariant holds (k1 of equal log-probs is zero)
    assert [f for f in report.failures if f["status"] != "invariant"] == []


def test_the_same_question_with_a_true_invariant_passes(tmp_path: Path):
    data = dict(QUESTION, params=dict(QUESTION["params"], p={"uniform": [0.55, 0.8], "round": 2}))
    report = selftest(load_question_file(_write(tmp_path, data)), seeds=SEEDS)
    assert report.ok, report.summary()


def test_an_invariant_that_cannot_be_computed_is_reported(tmp_path: Path):
    data = dict(QUESTION, invariants=[{"id": "lengths", "claim": "two sides of different lengths",
                                       "left": [1, 2, 3], "op": "<", "right": [4, 5]}])
    report = selftest(load_question_file(_write(tmp_path, data)), seeds=range(2))
    assert [(f["message"], f["args"]["invariant"], f["seed"]) for f in report.failures] == [
        ("invariant-fail", "lengths", 0), ("invariant-fail", "lengths", 1)]


def test_lists_compare_element_by_element_and_broadcast_a_number():
    params = {"x": [0.1, 0.9]}
    assert evaluate({"left": "{{x}}", "op": "<", "right": 1}, params)[0] is True
    assert evaluate({"left": "{{x}}", "op": "<", "right": 0.5}, params)[0] is False
    assert evaluate({"left": [1, 2], "op": "<=", "right": [1, 3]}, {})[0] is True
    assert evaluate({"left": {"expr": "0.1 + 0.2"}, "op": "==", "right": 0.3}, {})[0] is True
    assert evaluate({"left": math.inf, "op": ">", "right": 0}, {})[0] is False


@pytest.mark.parametrize("entry, field", [
    ({"id": "x", "claim": "c", "left": 1, "op": "=<", "right": 2}, "invariants[0].op"),
    ({"id": "x", "claim": "c", "left": 1, "op": "<"}, "invariants[0].right"),
    ({"id": "x", "claim": "c", "left": "{{nope}}", "op": "<", "right": 2}, "invariants[0].left"),
    ({"id": "X!", "claim": "c", "left": 1, "op": "<", "right": 2}, "invariants[0].id"),
    ({"id": "x", "claim": "c", "left": 1, "op": "<", "right": 2, "why": "?"}, "invariants[0].why"),
])
def test_the_schema_refuses_a_malformed_invariant(tmp_path: Path, entry: dict, field: str):
    with pytest.raises(BankError) as info:
        load_question_file(_write(tmp_path, dict(QUESTION, invariants=[entry])))
    assert info.value.field == field
