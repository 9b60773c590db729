"""Test cases of a code exercise: inputs drawn per parameter role, expected outputs from the engine.

A case is the learner function's keyword arguments (tensors and the exercise's scalars), plus the engine
arguments that pin the convention. Tensor inputs are generated from the parameter's *role*, read off its
name in the engine registry (a log-probability is negative, a mask is 0/1, an ``index`` groups rows), so
one generator serves every engine function. The case set is a pure function of the part and a seed:

* ``visible`` — two small readable cases shown by **Check**;
* ``hidden`` — random cases plus the edge cases that break real implementations, each only where the
  function has the parameter it concerns: masks with holes and an all-zero row, batch of one, groups of
  size one, identical rewards in a group, extreme log-ratios, float32 inputs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import torch

from ...reference import call as engine_call
from ...i18n import msg
from ...reference import describe

LOG_PROB_NAMES = {"log_prob", "ref_log_prob", "old_log_prob", "policy_chosen_logps",
                  "policy_rejected_logps", "ref_chosen_logps", "ref_rejected_logps"}
MASK_NAMES = {"mask", "response_mask"}
SCORE_NAMES = {"scores"}
GROUP_SIZE = 3
# In a mistake's overrides, "@ones_like:NAME" is an all-ones tensor shaped like input NAME (a plain mean
# for a masked one) and "@NAME" is input NAME itself (arguments swapped).
ONES_LIKE = "@ones_like:"
# Registry parameter kinds that are tensor inputs of a code exercise: ``labels`` (a group id per row, such
# as ``index`` of the group-relative advantages) is an int64 tensor the learner receives like any other.
TENSOR_KINDS = ("tensor", "labels")


def is_tensor_param(param: Mapping[str, Any]) -> bool:
    return param.get("kind") in TENSOR_KINDS


@dataclass
class Case:
    id: str
    label: dict[str, str]                      # what makes this case special, en/zh
    tensors: dict[str, torch.Tensor]
    scalars: dict[str, Any]
    dtype: str = "float64"
    grad: bool = False
    engine_fixed: dict[str, Any] = field(default_factory=dict)

    def learner_kwargs(self) -> dict[str, Any]:
        return {**self.tensors, **self.scalars}


def _shape_of(param: Mapping[str, Any], b: int, t: int) -> tuple[int, ...]:
    shape = str(param.get("shape", ""))
    if shape.startswith("(B, T)") or shape in ("same as values", "(...)"):
        return (b, t)
    if shape.startswith("(B,)"):
        return (b,)
    return (b, t)


def _tensor_for(name: str, shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    if name in LOG_PROB_NAMES:
        return -(torch.rand(shape, generator=gen, dtype=torch.float64) * 2.5 + 0.05)
    if name in MASK_NAMES:
        m = (torch.rand(shape, generator=gen, dtype=torch.float64) > 0.25).to(torch.float64)
        if m.dim() == 2:
            m[:, 0] = 1.0   # a typical response mask starts counted
        return m
    if name == "index":
        return torch.arange(shape[0], dtype=torch.int64) // GROUP_SIZE
    if name in SCORE_NAMES:
        return torch.randint(0, 2, shape, generator=gen).to(torch.float64) + \
            torch.rand(shape, generator=gen, dtype=torch.float64) * 0.5
    return torch.randn(shape, generator=gen, dtype=torch.float64)


def _round(t: torch.Tensor) -> torch.Tensor:
    return torch.round(t * 100) / 100 if t.is_floating_point() else t


class CaseBuilder:
    """Builds the cases of one exercise (``spec`` is the part's ``code`` block)."""

    def __init__(self, spec: Mapping[str, Any]):
        self.function = spec["function"]
        self.args: list[str] = list(spec["args"])
        self.scalars: dict[str, Any] = dict(spec.get("scalars") or {})
        self.fixed: dict[str, Any] = dict(spec.get("fixed") or {})
        self.gradients: list[str] = list(spec.get("gradients") or [])
        self.params = {p["name"]: p for p in describe(self.function)["params"]}
        self.tensor_args = [a for a in self.args if is_tensor_param(self.params[a])]
        self.grouped = "index" in self.tensor_args

    # -------------------------------------------------------------------------------- generation

    def _batch(self, b: int, gen: torch.Generator, t: int = 5) -> dict[str, torch.Tensor]:
        if self.grouped:
            b = max(GROUP_SIZE, b - b % GROUP_SIZE)
        return {a: _tensor_for(a, _shape_of(self.params[a], b, t), gen) for a in self.tensor_args}

    def _case(self, cid: str, label: dict[str, str], tensors: dict[str, torch.Tensor], *,
              dtype: str = "float64", grad: bool = False) -> Case:
        return Case(cid, label, tensors, dict(self.scalars), dtype, grad,
                    dict(self.fixed))

    def visible(self) -> list[Case]:
        gen = torch.Generator().manual_seed(7)
        cases = []
        for i in range(2):
            tensors = {k: _round(v) for k, v in self._batch(3 if self.grouped else 2, gen, t=4).items()}
            cases.append(self._case(f"visible-{i + 1}", msg("a small example"), tensors))
        return cases

    def hidden(self, seed: int = 0) -> list[Case]:
        gen = torch.Generator().manual_seed(1000 + int(seed))
        out: list[Case] = []
        for i in range(3):
            out.append(self._case(f"random-{i + 1}", msg("random inputs"),
                                  self._batch(6 + 3 * i, gen, t=4 + 3 * i)))
        one = self._batch(1, gen, t=6)
        out.append(self._case("batch-of-one", msg("a batch with a single row"), one))
        if any(a in MASK_NAMES for a in self.tensor_args):
            holes = self._batch(6, gen, t=7)
            for a in self.tensor_args:
                if a in MASK_NAMES and holes[a].dim() == 2:
                    holes[a][0] = torch.tensor([1, 0, 1, 0, 0, 1, 0], dtype=torch.float64)
                    holes[a][-1] = 0.0
            out.append(self._case("mask-holes", msg("a mask with holes and an all-zero row"), holes))
        if self.grouped:
            singles = self._batch(6, gen)
            singles["index"] = torch.tensor([0, 0, 0, 1, 2, 2], dtype=torch.int64)
            out.append(self._case("group-of-one", msg("a group with a single member"), singles))
            same = self._batch(6, gen)
            for a in self.tensor_args:
                if a in SCORE_NAMES:
                    same[a][:GROUP_SIZE] = 1.0
            out.append(self._case("identical-rewards", msg("a group whose rewards are all equal"), same))
        logp = [a for a in self.tensor_args if a in LOG_PROB_NAMES]
        if len(logp) >= 2:
            ext = self._batch(4, gen)
            ext[logp[0]] = ext[logp[1]] + torch.tensor([12.0, -12.0, 0.0, 3.0], dtype=torch.float64).reshape(
                (-1,) + (1,) * (ext[logp[1]].dim() - 1)).expand_as(ext[logp[1]])
            out.append(self._case("extreme-log-ratio", msg("log-ratios as large as ±12"), ext))
        f32 = self._batch(6, gen)
        out.append(self._case("float32", msg("float32 inputs"), f32, dtype="float32"))
        if self.gradients:
            out.append(self._case("gradient", msg("gradients of the output"),
                                  self._batch(6, gen), grad=True))
        return out

    # ---------------------------------------------------------------------------------- engine

    def typed(self, case: Case) -> dict[str, torch.Tensor]:
        """The case's tensors in its dtype (integer indices keep theirs)."""
        dt = torch.float32 if case.dtype == "float32" else torch.float64
        return {k: (v.to(dt) if v.is_floating_point() else v) for k, v in case.tensors.items()}

    def reference(self, case: Case, outputs: list[str], overrides: Mapping[str, Any] | None = None
                  ) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
        """The engine's outputs for a case and, for a gradient case, its gradients w.r.t. ``gradients``.

        ``overrides`` replace engine arguments (another convention, or a known mistake).
        """
        tensors = {k: v.clone() for k, v in self.typed(case).items()}
        if case.grad:
            for name in self.gradients:
                tensors[name].requires_grad_(True)
        kwargs: dict[str, Any] = {**tensors, **case.scalars, **case.engine_fixed}
        if case.dtype == "float32" and "dtype" in self.params:
            kwargs["dtype"] = "float32"
        for k, v in (overrides or {}).items():
            if isinstance(v, str) and v.startswith(ONES_LIKE):     # e.g. a plain mean for a masked one
                v = torch.ones_like(tensors[v[len(ONES_LIKE):]])
            elif isinstance(v, str) and v.startswith("@") and v[1:] in tensors:   # inputs swapped
                v = tensors[v[1:]]
            kwargs[k] = v
        result = engine_call(self.function, **kwargs)
        outs = {n: result[n] for n in outputs}
        grads: dict[str, torch.Tensor] = {}
        if case.grad:
            total = sum((outs[n].to(torch.float64) * cotangent(outs[n])).sum() for n in outputs)
            got = torch.autograd.grad(total, [tensors[g] for g in self.gradients], allow_unused=True)
            grads = {g: (torch.zeros_like(tensors[g]) if d is None else d.detach())
                     for g, d in zip(self.gradients, got)}
        return {n: v.detach() for n, v in outs.items()}, grads


def cotangent(out: torch.Tensor) -> torch.Tensor:
    """A fixed, non-uniform weight per output element, so a gradient check sees every element."""
    n = max(out.numel(), 1)
    w = torch.linspace(0.5, 1.5, n, dtype=torch.float64)
    return w.reshape(out.shape) if out.numel() else torch.ones((), dtype=torch.float64)


def tensor_json(t: torch.Tensor, requires_grad: bool = False) -> dict[str, Any]:
    dtype = str(t.dtype).replace("torch.", "")
    data = [x if math.isfinite(x) else ("nan" if math.isnan(x) else ("inf" if x > 0 else "-inf"))
            for x in t.detach().to(torch.float64).reshape(-1).tolist()]
    return {"tensor": {"dtype": dtype, "shape": list(t.shape), "data": data, "requires_grad": requires_grad}}
