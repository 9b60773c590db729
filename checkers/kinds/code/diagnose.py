"""Why a code exercise's case fails, in words: the feedback and note of an ``incorrect`` verdict.

The first failing case is named with where it differs (output or gradient, index, expected and received
values, the error measures of :mod:`checkers.tensor_compare`) and, where one fits, a diagnosis, tried in
this order: values right but an output not detached; values right but gradients wrong (a detach in the
wrong place); one of the part's known mistakes (its engine arguments overridden reproduce the output);
another convention of the engine function; every value of the wrong sign. Otherwise the note is
``mismatch``.
"""

from __future__ import annotations

from typing import Any, Mapping

import torch

from ...i18n import empty
from ...reference import describe
from ...verdict import msg
from .cases import Case, CaseBuilder
from .judge import replies_match


def _plain(case: Case) -> Case:
    """The case without gradients (a diagnosis compares values only)."""
    return Case(case.id, case.label, case.tensors, case.scalars, case.dtype, False, case.engine_fixed)


def _matches(builder: CaseBuilder, case: Case, reply: dict, outputs: list[str], overrides) -> bool:
    try:
        alt, _ = builder.reference(_plain(case), outputs, overrides)
    except Exception:  # an override that does not apply to this case is simply not the diagnosis
        return False
    return replies_match(alt, reply, outputs, case.dtype)


def _negated(builder: CaseBuilder, case: Case, outputs: list[str]) -> dict[str, torch.Tensor]:
    expected = builder.reference(_plain(case), outputs)[0]
    return {n: -v for n, v in expected.items()}


def diagnose(builder: CaseBuilder, case: Case, reply: dict, outputs: list[str], row: dict,
             spec: Mapping[str, Any]) -> tuple[dict[str, str], str]:
    """``(feedback, note)`` of the failing case ``row``."""
    values_ok = all(cmp["match"] for cmp in row["outputs"].values())
    if values_ok and row.get("not_detached"):
        names = ", ".join(row["not_detached"])
        return msg("Case “%(case)s” fails: the values are right, but %(names)s still carries a gradient back "
                   "to the inputs. The reference computes it without gradient (upstream: under "
                   "torch.no_grad()); detach it, or a loss built on it would also train what it was "
                   "computed from (for advantages: the critic).", case=case.label, names=names), "not_detached"
    head = msg("Case “%(case)s” fails: %(where)s", case=case.label, where=_where(row))
    if values_ok and row["grads"]:
        return msg("%(head)s The values are right but the gradients are not: check where you detach "
                   "(a detached term, or one that should be detached and is not).", head=head), \
            "gradient-mismatch"
    for m in spec.get("mistakes") or []:
        if _matches(builder, case, reply, outputs, m["overrides"]):
            return msg("%(head)s %(mistake)s", head=head, mistake=m["feedback"]), m["note"]
    params = {p["name"]: p for p in describe(builder.function)["params"]}
    conv = params.get("convention")
    if conv is not None:
        current = (spec.get("fixed") or {}).get("convention", conv.get("default"))
        for other in conv.get("allowed") or []:
            if other != current and _matches(builder, case, reply, outputs, {"convention": other}):
                return msg("%(head)s Your output follows the %(other)s convention; this exercise asks for "
                           "%(current)s.", head=head, other=other, current=current), \
                    f"convention-{other}"
    # at the float32 tolerance: a sign flip is the diagnosis even where the values carry float32 rounding
    if replies_match(_negated(builder, case, outputs), reply, outputs, "float32"):
        return msg("%(head)s Every value has the wrong sign.", head=head), "wrong-sign"
    return head, "mismatch"


def _g(x: Any) -> str:
    """An error measure for a sentence: 3 significant digits ("inf" as it came)."""
    return f"{x:.3g}" if isinstance(x, float) else str(x)


def _where(row: dict) -> dict[str, str]:
    for what, block in ((msg("output"), row["outputs"]), (msg("gradient of"), row["grads"])):
        for name, cmp in block.items():
            if cmp["match"]:
                continue
            if cmp.get("reason") == "shape":
                return msg("%(what)s %(name)s has shape %(shape)s, expected %(expected)s.", what=what, name=name,
                           shape=str(cmp["shape"]), expected=str(cmp["expected_shape"]))
            if cmp.get("reason") == "not_a_tensor":
                return msg("%(what)s %(name)s is missing or not a tensor of numbers.", what=what, name=name)
            idx = "".join(f"[{i}]" for i in cmp["first_mismatch"])
            return msg("%(what)s %(name)s%(index)s is %(got)s, expected %(expected)s (%(count)s element(s) differ; "
                       "largest absolute error %(abs_err)s, relative %(rel_err)s).", what=what, name=name, index=idx,
                       got=str(cmp["got_value"]), expected=str(cmp["expected_value"]), count=cmp["mismatches"],
                       abs_err=_g(cmp["max_abs_err"]), rel_err=_g(cmp["max_rel_err"]))
    return empty()
