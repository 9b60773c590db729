"""The hidden cases that catch the two classic numerics slips: zeros of probability vectors and large logits.

* ``zeros-in-both`` and ``second-zero-where-first-positive`` (functions of two distributions p, q): a
  naive ``p * log(p / q)`` gives 0·log(0/0) = nan where both are zero (the term is 0: Cover & Thomas
  §2.3), and ``F.kl_div(log q, p)`` likewise (its ``− p·log q`` is 0·(−inf)); clamping q to a small ε turns
  the +inf of p > 0 = q into a finite number.
* ``large-logits`` (functions of logits): values near ±1e4, where ``log(exp(z).sum())`` overflows to inf
  or underflows to log 0 and ``softmax(z).log()`` gives 0·(−inf) = nan, while ``log_softmax`` (which
  subtracts the maximum first) is exact.

Each implementation below is judged case by case in this process, exactly as the sealed child's reply
would be (:func:`reply_of` mirrors ``checkers.coderun.template._run_case``), so a test names every case an
implementation fails, not only the first; three end-to-end grades through the sandbox check the
verdict the learner sees for the bank's exercises.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable

import pytest
import torch
import torch.nn.functional as F

from checkers.bank import load_bank_files
from checkers.kinds.code.cases import LARGE_LOGIT, CaseBuilder, cotangent
from checkers.kinds.code.checker import CodeChecker
from checkers.kinds.code.judge import judge_case

QUESTIONS = Path(__file__).resolve().parents[4] / "questions"
KL = {"function": "kl.exact", "args": ["p", "q"], "outputs": ["kl"]}
ENTROPY = {"function": "ppo.entropy", "args": ["logits", "mask"], "fixed": {"loss_agg_mode": "token-mean"},
           "outputs": ["entropy", "entropy_loss"], "gradients": ["logits"]}
FULL_KL = {"function": "kl.full_vocab", "args": ["logits", "ref_logits", "mask"], "outputs": ["kl"],
           "gradients": ["logits"]}
ZERO_CASES = ("zeros-in-both", "second-zero-where-first-positive")


def _plain(t: torch.Tensor) -> dict[str, Any]:
    data = [x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
            for x in t.detach().to(torch.float64).reshape(-1).tolist()]
    return {"shape": list(t.shape), "data": data}


def reply_of(fn: Callable[..., Any], builder: CaseBuilder, case, outputs: list[str], ref) -> dict[str, Any]:
    """What the sealed child would send back for ``fn`` on ``case``: outputs, and for a gradient case the
    gradient of Σ cotangent·output over the outputs the engine keeps in the graph."""
    inputs = {k: v.clone() for k, v in builder.typed(case).items()}
    if case.grad:
        for name in builder.gradients:
            inputs[name].requires_grad_(True)
    result = fn(**inputs, **case.scalars)
    outs = result if isinstance(result, dict) else {outputs[0]: result}
    reply: dict[str, Any] = {"outputs": {n: _plain(outs[n]) for n in outputs}}
    if case.grad:
        reply["attached"] = {n: bool(outs[n].requires_grad) for n in outputs}
        total = sum((outs[n].to(torch.float64) * cotangent(ref.outputs[n])).sum() for n in outputs
                    if ref.attached[n])
        grads = torch.autograd.grad(total, [inputs[g] for g in builder.gradients], allow_unused=True)
        reply["grads"] = {g: (None if d is None else _plain(d)) for g, d in zip(builder.gradients, grads)}
    return reply


def failing_cases(spec: dict, fn: Callable[..., Any], seed: int = 0) -> dict[str, dict]:
    """Every hidden case ``fn`` fails, by id, with its judged row."""
    builder = CaseBuilder(spec)
    failed = {}
    for case in builder.hidden(seed):
        ref = builder.reference_full(case, spec["outputs"])
        row = judge_case(builder, case, reply_of(fn, builder, case, spec["outputs"], ref), ref, spec["outputs"])
        if not row["ok"]:
            failed[case.id] = row
    return failed


# ------------------------------------------------------------------------------- implementations

def kl_where(p, q):
    safe = torch.where(p > 0, p, torch.ones_like(p))
    return torch.where(p > 0, p * (torch.log(safe) - torch.log(q)), torch.zeros_like(p)).sum(-1)


def kl_xlogy(p, q):
    return (torch.special.xlogy(p, p) - torch.special.xlogy(p, q)).sum(-1)


def kl_naive(p, q):
    return (p * torch.log(p / q)).sum(-1)


def kl_div_form(p, q):
    return F.kl_div(torch.log(q), p, reduction="none").sum(-1)


def kl_clamped(p, q):
    safe = torch.where(p > 0, p, torch.ones_like(p))
    return torch.where(p > 0, p * (torch.log(safe) - torch.log(q.clamp_min(1e-12))), torch.zeros_like(p)).sum(-1)


def _entropy_result(h, mask):
    return {"entropy": h, "entropy_loss": (h * mask).sum() / mask.sum()}


def entropy_log_softmax(logits, mask):
    lp = torch.log_softmax(logits, -1)
    return _entropy_result(-(lp.exp() * lp).sum(-1), mask)


def entropy_verl_form(logits, mask):
    # verl entropy_from_logits as written upstream (no shift): exact enough in float64 at 1e4
    return _entropy_result(torch.logsumexp(logits, -1) - (torch.softmax(logits, -1) * logits).sum(-1), mask)


def entropy_naive_lse(logits, mask):
    lp = logits - torch.log(torch.exp(logits).sum(-1, keepdim=True))
    return _entropy_result(-(lp.exp() * lp).sum(-1), mask)


def entropy_softmax_log(logits, mask):
    p = torch.softmax(logits, -1)
    return _entropy_result(-(p * p.log()).sum(-1), mask)


def full_kl_log_softmax(logits, ref_logits, mask):
    lp, lr = torch.log_softmax(logits, -1), torch.log_softmax(ref_logits, -1)
    return (lp.exp() * (lp - lr)).sum(-1) * mask


def full_kl_naive_lse(logits, ref_logits, mask):
    lp = logits - torch.log(torch.exp(logits).sum(-1, keepdim=True))
    lr = ref_logits - torch.log(torch.exp(ref_logits).sum(-1, keepdim=True))
    return (lp.exp() * (lp - lr)).sum(-1) * mask


# ------------------------------------------------------------------------------------- the cases

def test_the_zero_cases_hold_the_zeros_they_are_named_after():
    builder = CaseBuilder(KL)
    cases = {c.id: c for c in builder.hidden()}
    assert list(cases)[-2:] == list(ZERO_CASES)          # appended: the earlier cases are drawn as before
    both, alone = cases["zeros-in-both"].tensors, cases["second-zero-where-first-positive"].tensors
    for t in (*both.values(), *alone.values()):
        assert torch.allclose(t.sum(-1), torch.ones(t.shape[0], dtype=torch.float64), rtol=0, atol=1e-15)
        assert (t >= 0).all()
    shared = (both["p"] == 0) & (both["q"] == 0)
    assert shared.any(dim=-1).tolist() == [True, True, True, False]
    assert ((both["p"] == 0) & (both["q"] > 0)).any()      # a zero of p alone as well (row 1)
    assert (alone["p"] > 0).all() and (alone["q"] == 0).any(dim=-1).tolist() == [True, True, False, True]
    # the engine's values: KL exactly 0 on row 0 (p = q), finite on the others; +inf where q alone is zero
    kl_both = builder.reference(cases["zeros-in-both"], ["kl"])[0]["kl"]
    assert kl_both[0].item() == 0.0 and torch.isfinite(kl_both).all()
    kl_alone = builder.reference(cases["second-zero-where-first-positive"], ["kl"])[0]["kl"]
    assert torch.isinf(kl_alone).tolist() == [True, True, False, True]


def test_only_functions_of_two_distributions_get_the_zero_cases():
    assert not set(ZERO_CASES) & {c.id for c in CaseBuilder(
        {"function": "divergence.entropy", "args": ["p"], "outputs": ["entropy"]}).hidden()}
    assert set(ZERO_CASES) <= {c.id for c in CaseBuilder(
        {"function": "divergence.chi2", "args": ["p", "q"], "outputs": ["chi2"]}).hidden()}


def test_the_large_logits_case_mixes_overflowing_and_ordinary_logits():
    builder = CaseBuilder(FULL_KL)
    case = builder.hidden()[-1]
    assert case.id == "large-logits" and case.grad and case.dtype == "float64"
    for name in ("logits", "ref_logits"):
        z = case.tensors[name]
        top = z.amax(-1)
        assert (top > LARGE_LOGIT / 2).any() and (top < -LARGE_LOGIT / 2).any() and (top.abs() < 50).any()
        assert not torch.isfinite(torch.log(torch.exp(z).sum(-1))).all()   # the naive form overflows here
    ref = builder.reference_full(case, ["kl"])
    assert torch.isfinite(ref.outputs["kl"]).all() and torch.isfinite(ref.grads["logits"]).all()
    assert ref.outputs["kl"].max().item() > LARGE_LOGIT / 2                # mass where the reference has ~none


# ------------------------------------------------------------------- who fails which case (in process)

@pytest.mark.parametrize("seed", [0, 3])
def test_kl_implementations_fail_exactly_the_cases_their_slip_concerns(seed):
    assert failing_cases(KL, kl_where, seed) == {}
    assert failing_cases(KL, kl_xlogy, seed) == {}
    assert set(failing_cases(KL, kl_naive, seed)) == {"zero-probability", "zeros-in-both"}
    assert set(failing_cases(KL, kl_div_form, seed)) == {"zeros-in-both"}
    assert set(failing_cases(KL, kl_clamped, seed)) == {"second-zero-where-first-positive"}


def test_the_naive_kl_reads_nan_against_zero_on_the_shared_zero_row():
    row = failing_cases(KL, kl_naive)["zeros-in-both"]
    cmp = row["outputs"]["kl"]
    assert cmp["first_mismatch"] == [0] and cmp["got_value"] == "nan" and cmp["expected_value"] == 0.0
    clamped = failing_cases(KL, kl_clamped)["second-zero-where-first-positive"]["outputs"]["kl"]
    assert clamped["expected_value"] == "inf" and isinstance(clamped["got_value"], float)


def test_entropy_implementations_and_large_logits():
    assert failing_cases(ENTROPY, entropy_log_softmax) == {}
    assert failing_cases(ENTROPY, entropy_verl_form) == {}
    for slip in (entropy_naive_lse, entropy_softmax_log):
        failed = failing_cases(ENTROPY, slip)
        assert set(failed) == {"large-logits"}, slip.__name__
        assert failed["large-logits"]["outputs"]["entropy"]["got_value"] == "nan"


def test_full_vocab_kl_implementations_and_large_logits():
    assert failing_cases(FULL_KL, full_kl_log_softmax) == {}
    failed = failing_cases(FULL_KL, full_kl_naive_lse)
    assert set(failed) == {"large-logits"}
    assert failed["large-logits"]["outputs"]["kl"]["got_value"] == "nan"


# ------------------------------------------------------------------ end to end through the sandbox

def _bank_part(qid: str) -> dict:
    for _, question in load_bank_files(QUESTIONS):
        if question["id"] == qid:
            return next(p for p in question["parts"] if p["kind"] == "code")
    raise LookupError(qid)


@pytest.mark.parametrize("qid, source, case_id, output, label", [
    ("code-kl-exact",
     "import torch\nimport torch.nn.functional as F\n\ndef kl(p, q):\n"
     "    return F.kl_div(torch.log(q), p, reduction='none').sum(-1)\n",
     "zeros-in-both", "kl", "both distributions zero at the same entries"),
    ("code-entropy-from-logits",
     "import torch\n\ndef entropy(logits, mask):\n"
     "    lp = logits - torch.log(torch.exp(logits).sum(-1, keepdim=True))\n"
     "    h = -(lp.exp() * lp).sum(-1)\n"
     "    return {'entropy': h, 'entropy_loss': (h * mask).sum() / mask.sum()}\n",
     "large-logits", "entropy", "logits as large as ±1e4"),
    ("code-kl-full-vocab",
     "import torch\n\ndef full_kl(logits, ref_logits, mask):\n"
     "    lp = logits - torch.log(torch.exp(logits).sum(-1, keepdim=True))\n"
     "    lr = ref_logits - torch.log(torch.exp(ref_logits).sum(-1, keepdim=True))\n"
     "    return (lp.exp() * (lp - lr)).sum(-1) * mask\n",
     "large-logits", "kl", "logits as large as ±1e4"),
])
def test_the_bank_exercise_names_the_new_case(qid, source, case_id, output, label):
    checker = CodeChecker()
    part = _bank_part(qid)
    verdict = checker.grade(checker.parse(source, part), part, {})
    assert verdict.status == "incorrect" and verdict.note == "mismatch", (verdict.note, verdict.feedback)
    first = verdict.details["first_failure"]
    assert first["id"] == case_id
    assert all(row["ok"] for row in verdict.details["cases"][:-1])      # every case before it passes
    assert first["outputs"][output]["got_value"] == "nan"
    assert f"Case “{label}” fails" in verdict.feedback["en"]
    assert label not in verdict.feedback["zh"] and "未通过" in verdict.feedback["zh"]
