"""Test cases of a code exercise: inputs drawn per parameter role, expected outputs from the engine.

A case is the learner function's keyword arguments (tensors and the exercise's scalars), plus the engine
arguments that pin the convention. Tensor inputs are generated from the parameter's *role*, declared in
the engine registry or read off its name and shape (:mod:`.roles`: a log-probability is negative, a mask
is 0/1, an ``index`` groups rows, a probability vector sums to 1), so one generator serves every engine
function. The case set is a pure function of the part and a seed:

* ``visible`` — two small readable cases shown by **Check**;
* ``hidden`` — random cases plus the edge cases that break real implementations, each only where the
  function has the parameter it concerns: masks with holes and an all-zero row, batch of one, groups of
  size one, identical rewards in a group, extreme log-ratios, a probability of zero, float32 inputs, a
  gradient case, and last 0/1 rewards tied inside groups; then, for two probability vectors, zeros in both
  at the same entries (0·log(0/0) counts as 0) and a second distribution that is 0 where the first is not
  (KL and cross-entropy +inf), and for logits, values near ±1e4 (a log-sum-exp that does not subtract the
  maximum overflows to inf or underflows to log 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import torch

from ...reference import call as engine_call
from ...i18n import msg
from ...reference import describe
from . import roles
from .roles import GROUP_SIZE

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
    #: Passed to the learner's function only where its signature names them (fixed hyperparameters of a
    #: stand-alone check); the engine receives them through ``engine_fixed`` or its defaults.
    optional: dict[str, Any] = field(default_factory=dict)

    def learner_kwargs(self) -> dict[str, Any]:
        return {**self.tensors, **self.scalars}


@dataclass
class Reference:
    """The engine's answer for one case: outputs (on the CPU), gradients, and which outputs are in the
    autograd graph (False: the engine detaches that output, as upstream computes it under ``no_grad``)."""

    outputs: dict[str, torch.Tensor]
    grads: dict[str, torch.Tensor]
    attached: dict[str, bool]


#: Size of the logits in the "large-logits" case: exp(±1e4) overflows (underflows) in float64 and float32.
LARGE_LOGIT = 1e4


def large_logit_offsets(shape: tuple[int, ...], shift: int = 0) -> torch.Tensor:
    """Offsets (multiples of :data:`LARGE_LOGIT`) added to drawn logits of ``shape`` (last axis: vocabulary).

    One pattern per position, cycled (``shift`` rotates the cycle, so that two logits inputs differ at
    each position): two near-tied logits at +1e4 and one at −1e4 beside ordinary ones; every logit near
    −1e4; one dominant logit at +1e4; ordinary logits.
    """
    v = shape[-1]
    patterns = torch.zeros(4, v, dtype=torch.float64)
    patterns[0, 0] = patterns[0, min(1, v - 1)] = 1.0
    if v > 3:
        patterns[0, 3] = -1.0
    patterns[1] = -1.0
    patterns[2, -1] = 1.0
    rows = math.prod(shape[:-1])
    return (patterns[(torch.arange(rows) + shift) % 4] * LARGE_LOGIT).reshape(shape)


def with_zeros(p: torch.Tensor, entries: list[tuple[int, int]]) -> torch.Tensor:
    """Probability rows ``p`` (B, K) with the ``(row, column)`` entries set to 0, each row renormalised."""
    out = p.clone()
    for row, col in entries:
        out[row, col] = 0.0
    return out / out.sum(-1, keepdim=True)


#: The zeros of the two-distribution cases, for (B, K) = (4, 4) rows. "zeros-in-both": row 0 p = q with a
#: shared zero, row 1 a shared zero and a zero of p alone, row 2 a shared zero, row 3 none.
#: "second-zero-where-first-positive": q zero at one or two entries of rows 0, 1, 3 (p has no zero).
ZEROS_IN_BOTH = {"p": [(0, 0), (1, 1), (1, 2), (2, 3)], "q": [(0, 0), (1, 1), (2, 3)]}
Q_ZERO_WHERE_P_POSITIVE = [(0, 0), (1, 1), (1, 2), (3, 3)]


def _round(t: torch.Tensor) -> torch.Tensor:
    return torch.round(t * 100) / 100 if t.is_floating_point() else t


class CaseBuilder:
    """Builds the cases of one exercise (``spec`` is the part's ``code`` block).

    Besides an exercise's keys (``function``, ``args``, ``scalars``, ``fixed``, ``gradients``), a spec may
    carry ``draw`` (names of scalar arguments drawn per case from their registry range and passed to the
    learner) and ``optional`` (fixed hyperparameters passed to the learner's function where its signature
    names them): the stand-alone check (:mod:`.standalone`) writes both.
    """

    def __init__(self, spec: Mapping[str, Any]):
        self.function = spec["function"]
        self.args: list[str] = list(spec["args"])
        self.scalars: dict[str, Any] = dict(spec.get("scalars") or {})
        self.fixed: dict[str, Any] = dict(spec.get("fixed") or {})
        self.gradients: list[str] = list(spec.get("gradients") or [])
        self.draw: list[str] = list(spec.get("draw") or [])
        self.optional: dict[str, Any] = dict(spec.get("optional") or {})
        self.skip = frozenset(spec.get("skip") or ())     # edge cases the engine refuses for this function
        self.params = {p["name"]: p for p in describe(self.function)["params"]}
        self.tensor_args = [a for a in self.args if is_tensor_param(self.params[a])]
        self.roles = {a: roles.role_of(self.params[a]) for a in self.tensor_args}
        self.grouped = any(r == "group_ids" for r in self.roles.values())
        self._scalar_index = 0

    def _with_role(self, role: str) -> list[str]:
        return [a for a in self.tensor_args if self.roles[a] == role]

    # -------------------------------------------------------------------------------- generation

    def _batch(self, b: int, gen: torch.Generator, t: int = 5) -> dict[str, torch.Tensor]:
        if self.grouped:
            b = max(GROUP_SIZE, b - b % GROUP_SIZE)
        out: dict[str, torch.Tensor] = {}
        shapes: dict[str, tuple[int, ...]] = {}
        previous: str | None = None
        for a in self.tensor_args:
            symbols = roles.shape_symbols(self.params[a], shapes, previous)
            shape = shapes[symbols] if isinstance(symbols, str) else \
                tuple(roles.axis_size(s, b, t) for s in symbols)
            out[a] = roles.draw_tensor(self.params[a], shape, gen)
            shapes[a] = shape
            previous = a
        return out

    def _drawn_scalars(self, visible: bool) -> dict[str, Any]:
        """The exercise's fixed scalars plus this case's draw of each ``draw`` scalar (own generator: the
        tensors of a case do not depend on whether scalars are drawn)."""
        out = dict(self.scalars)
        if self.draw:
            index = self._scalar_index
            self._scalar_index += 1
            gen = torch.Generator().manual_seed(5000 + 17 * index + (1 if visible else 0))
            for name in self.draw:
                value = roles.draw_scalar(self.params[name], gen, index)
                out[name] = round(value, 2) if visible and isinstance(value, float) else value
        return out

    def _case(self, cid: str, label: dict[str, str], tensors: dict[str, torch.Tensor], *,
              dtype: str = "float64", grad: bool = False, visible: bool = False) -> Case:
        return Case(cid, label, tensors, self._drawn_scalars(visible), dtype, grad,
                    dict(self.fixed), dict(self.optional))

    def visible(self) -> list[Case]:
        gen = torch.Generator().manual_seed(7)
        self._scalar_index = 0
        cases = []
        for i in range(2):
            tensors = {k: _round(v) if self.roles[k] not in ("probs", "log_probs") else v
                       for k, v in self._batch(3 if self.grouped else 2, gen, t=4).items()}
            cases.append(self._case(f"visible-{i + 1}", msg("a small example"), tensors, visible=True))
        return [c for c in cases if c.id not in self.skip]

    def hidden(self, seed: int = 0) -> list[Case]:
        gen = torch.Generator().manual_seed(1000 + int(seed))
        self._scalar_index = 0
        out: list[Case] = []
        for i in range(3):
            out.append(self._case(f"random-{i + 1}", msg("random inputs"),
                                  self._batch(6 + 3 * i, gen, t=4 + 3 * i)))
        one = self._batch(1, gen, t=6)
        out.append(self._case("batch-of-one", msg("a batch with a single row"), one))
        masks = self._with_role("mask")
        if masks:
            holes = self._batch(6, gen, t=7)
            for a in masks:
                m = holes[a]
                if m.dim() == 2 and m.shape[1] == 7:
                    m[0] = torch.tensor([1, 0, 1, 0, 0, 1, 0], dtype=torch.float64)
                    m[-1] = 0.0
            out.append(self._case("mask-holes", msg("a mask with holes and an all-zero row"), holes))
        if self.grouped:
            singles = self._batch(6, gen)
            for a in self._with_role("group_ids"):
                singles[a] = torch.tensor([0, 0, 0, 1, 2, 2], dtype=torch.int64)
            out.append(self._case("group-of-one", msg("a group with a single member"), singles))
            same = self._batch(6, gen)
            for a in self._with_role("scores"):
                same[a][:GROUP_SIZE] = 1.0
            out.append(self._case("identical-rewards", msg("a group whose rewards are all equal"), same))
        logp = [a for a in self._with_role("logprob")]
        pair = next(((x, y) for i, x in enumerate(logp) for y in logp[i + 1:]), None)
        if pair is not None:
            ext = self._batch(4, gen)
            first, second = pair
            if ext[first].shape == ext[second].shape and ext[first].dim() >= 1 and ext[first].shape[0] == 4:
                ext[first] = ext[second] + torch.tensor([12.0, -12.0, 0.0, 3.0], dtype=torch.float64).reshape(
                    (-1,) + (1,) * (ext[second].dim() - 1)).expand_as(ext[second])
                out.append(self._case("extreme-log-ratio", msg("log-ratios as large as ±12"), ext))
        probs = self._with_role("probs")
        if probs:
            zero = self._batch(4, gen)
            p = zero[probs[0]]
            p[..., 0] = 0.0          # a token the distribution never produces: 0·log 0 counts as 0
            zero[probs[0]] = p / p.sum(-1, keepdim=True)
            out.append(self._case("zero-probability", msg("a probability vector with a zero entry"), zero))
        f32 = self._batch(6, gen)
        out.append(self._case("float32", msg("float32 inputs"), f32, dtype="float32"))
        if self.gradients:
            out.append(self._case("gradient", msg("gradients of the output"),
                                  self._batch(6, gen), grad=True))
        scores = self._with_role("scores")
        if self.grouped and scores:
            # Last, so that the cases before it (and the diagnoses they give) stay as they were: pass/fail
            # rewards tie inside a group, and a group may be all 0 or all 1.
            ties = self._batch(9, gen)
            for a in scores:
                ties[a] = torch.tensor([1, 0, 1, 0, 0, 0, 1, 1, 1][:ties[a].shape[0]], dtype=torch.float64)
            out.append(self._case("binary-rewards", msg("0/1 rewards, tied inside groups"), ties))
        # After every case above, so that their draws (and the diagnoses they give) stay as they were.
        out.extend(self._zero_pairs(gen))
        logits = self._with_role("logits")
        if logits:
            big = self._batch(4, gen, t=3)
            for i, a in enumerate(logits):
                big[a] = big[a] + large_logit_offsets(tuple(big[a].shape), shift=i)
            out.append(self._case("large-logits", msg("logits as large as ±1e4"), big, grad=bool(self.gradients)))
        return [c for c in out if c.id not in self.skip]

    def _zero_pairs(self, gen: torch.Generator) -> list[Case]:
        """Where the function takes two probability vectors p, q: zeros in both at the same entries (each
        such term is 0), and q = 0 at entries where p > 0 (KL(p‖q) and the cross-entropy are +inf there)."""
        probs = self._with_role("probs")
        if len(probs) < 2:
            return []
        first, second = probs[:2]
        both = self._batch(4, gen)
        alone = self._batch(4, gen)
        if both[first].shape != (4, roles.SUPPORT) or both[second].shape != both[first].shape:
            return []
        both[first] = with_zeros(both[first], ZEROS_IN_BOTH["p"])
        both[second] = with_zeros(both[second], ZEROS_IN_BOTH["q"])
        both[second][0] = both[first][0]     # p = q with a shared zero: KL exactly 0, 0·log(0/0) = nan naively
        alone[second] = with_zeros(alone[second], Q_ZERO_WHERE_P_POSITIVE)
        return [self._case("zeros-in-both", msg("both distributions zero at the same entries"), both),
                self._case("second-zero-where-first-positive",
                           msg("the second distribution zero where the first is positive"), alone)]

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
        ref = self.reference_full(case, outputs, overrides)
        return ref.outputs, ref.grads

    def reference_full(self, case: Case, outputs: list[str], overrides: Mapping[str, Any] | None = None
                       ) -> Reference:
        """:meth:`reference` plus which outputs the engine keeps in the autograd graph.

        The engine may run on CUDA (``QUIZ_DEVICE``): the inputs are built on the CPU, moved by the
        engine, and every output and gradient is brought back to the CPU, where the learner's numbers are
        compared.
        """
        tensors, kwargs = self._engine_kwargs(case, overrides)
        result = engine_call(self.function, **kwargs)
        outs = {n: result[n] for n in outputs}
        attached = {n: bool(case.grad and outs[n].requires_grad) for n in outputs}
        grads: dict[str, torch.Tensor] = {}
        live = [n for n in outputs if attached[n]]
        if case.grad and live:
            total = sum((outs[n].to(torch.float64) * cotangent(outs[n]).to(outs[n].device)).sum() for n in live)
            got = torch.autograd.grad(total, [tensors[g] for g in self.gradients], allow_unused=True)
            grads = {g: (torch.zeros_like(tensors[g]) if d is None else d.detach().cpu())
                     for g, d in zip(self.gradients, got)}
        return Reference({n: v.detach().cpu() for n, v in outs.items()}, grads, attached)

    def returned(self, case: Case) -> list[str]:
        """The outputs the engine returns for this case (some depend on the arguments)."""
        return list(engine_call(self.function, **self._engine_kwargs(case, None)[1]))

    def _engine_kwargs(self, case: Case, overrides: Mapping[str, Any] | None
                       ) -> tuple[dict[str, torch.Tensor], dict[str, Any]]:
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
        return tensors, kwargs


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
