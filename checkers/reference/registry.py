"""One registry of engine functions, keyed by dotted name ``family.function``.

Each engine function is written as a plain typed function of tensors and registered with
:func:`register`, which records a parameter schema (used by ``describe`` and the HTTP API) and wraps
the function so that *every* entry point, direct call or :func:`call`, goes through the same argument
checking and conversion (lists -> float64 tensors on the chosen device; tensors kept in the autograd
graph).
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import torch

from .errors import ReferenceInputError, UnknownFunction
from .tensors import TensorContext, coerce_argument, resolve_device

REQUIRED: Any = inspect.Parameter.empty

#: Parameter kinds understood by the coercion layer (contract §1 plus ``labels`` for group ids and
#: ``tensor_or_float`` for arguments such as ``kl_coef`` that may be a scalar or a per-row tensor).
KINDS = ("tensor", "float", "int", "bool", "str", "choice", "labels", "tensor_or_float", "list")

#: What a tensor parameter holds, so that a test-case generator (the ``code`` kind's stand-alone check)
#: draws meaningful inputs for it. Declared with ``role=`` on a :class:`Param`; where none is declared the
#: generator infers one from the name, kind and shape (``checkers.kinds.code.roles``).
ROLES = (
    "logprob",      # log-probabilities of sampled tokens or sequences: negative numbers
    "mask",         # 0/1 response mask (may have holes and, in an edge case, an all-zero row)
    "group_ids",    # the group (prompt) of each row: groups of one and of several
    "scores",       # one reward per sequence, with ties
    "rewards",      # token-level rewards
    "values",       # critic values or any real-valued tensor
    "advantages",   # advantages (real-valued)
    "probs",        # probability vectors over the last axis (each row sums to 1, entries > 0)
    "logits",       # unnormalised logits over a vocabulary axis
    "log_probs",    # log-softmax over a vocabulary axis
    "mean",         # a Gaussian's mean
    "std",          # a Gaussian's (positive) standard deviation
    "lengths",      # token counts of sequences (positive integers, as floats)
    "count",        # a sample count such as best-of-n's n (a positive integer, as a float)
    "ratio",        # a positive probability ratio near 1
    "nonnegative",  # any non-negative number (a KL, its square root)
    "positive",     # any positive number
    "binary",       # 0/1 labels (e.g. desirable or not), both present
    "real",         # any real number
)


@dataclass(frozen=True)
class Param:
    """Schema of one keyword argument."""

    name: str
    kind: str
    default: Any = REQUIRED
    shape: str | None = None
    choices: tuple[Any, ...] | None = None
    doc: str = ""
    optional: bool = False  # True: may be None (absent) even though it has no default value
    #: What the tensor holds (one of :data:`ROLES`); None: inferred from the name and shape.
    role: str | None = None
    #: Inclusive (low, high) of the values a test-case generator draws for this parameter: a scalar's
    #: values, or a tensor's elements. None: the role's (or the kind's) usual values.
    range: tuple[float, float] | None = None
    #: For an optional tensor: True when a stand-alone code check gives it to the learner's function
    #: (e.g. ``index`` of the group-relative advantages, beside ``scores``); None: inferred.
    standalone: bool | None = None
    #: For a tensor: whether a training loss is differentiated through it, so that a stand-alone check
    #: compares gradients with respect to it (True), or it is data a trainer holds fixed, such as old
    #: log-probabilities, advantages or returns (False); None: inferred from the role and name.
    grad: bool | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise TypeError(f"unknown parameter kind {self.kind!r} for {self.name}")
        if self.role is not None and self.role not in ROLES:
            raise TypeError(f"unknown parameter role {self.role!r} for {self.name}")
        if self.range is not None and not (len(self.range) == 2 and self.range[0] <= self.range[1]):
            raise TypeError(f"range of {self.name} must be (low, high) with low <= high")

    @property
    def required(self) -> bool:
        return self.default is REQUIRED and not self.optional

    def schema(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "required": self.required}
        if self.shape:
            out["shape"] = self.shape
        if self.default is not REQUIRED:
            out["default"] = list(self.default) if isinstance(self.default, tuple) else self.default
        if self.choices is not None:
            out["allowed"] = list(self.choices)
        if self.doc:
            out["doc"] = self.doc
        if self.role is not None:
            out["role"] = self.role
        if self.range is not None:
            out["range"] = list(self.range)
        if self.standalone is not None:
            out["standalone"] = self.standalone
        if self.grad is not None:
            out["grad"] = self.grad
        return out


#: Arguments every function accepts (contract §1): the compute dtype and the device.
COMMON_PARAMS = (
    Param("dtype", "choice", "float64", choices=("float64", "float32"), doc="compute dtype"),
    Param("device", "str", None, doc="torch device; default QUIZ_DEVICE, else CUDA if available, else CPU"),
)


@dataclass(frozen=True)
class Example:
    """One documented call of a function: its keyword arguments (tiny tensors as nested lists).

    Only the arguments are recorded: the outputs are whatever the engine returns for them when the
    reference page is generated (scripts/gen_reference_doc.py), so a documented value cannot drift from
    the engine. ``title`` says what the example shows (e.g. which loss variant).
    """

    args: Mapping[str, Any]
    title: str = ""


@dataclass
class RefFunction:
    name: str
    impl: Callable[..., dict[str, torch.Tensor]]
    params: tuple[Param, ...]
    outputs: tuple[str, ...]
    doc: str
    examples: tuple[Example, ...] = ()
    wrapper: Callable[..., dict[str, torch.Tensor]] = field(init=False, repr=False)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "doc": self.doc,
            "params": [p.schema() for p in self.params + COMMON_PARAMS],
            "outputs": list(self.outputs),
        }


_REGISTRY: dict[str, RefFunction] = {}


def _examples(name: str, params: tuple[Param, ...],
              examples: tuple[Example | Mapping[str, Any], ...] | list[Example | Mapping[str, Any]]
              ) -> tuple[Example, ...]:
    """The examples as :class:`Example` (a bare mapping is the arguments), each naming known parameters."""
    known = {p.name for p in params} | {p.name for p in COMMON_PARAMS}
    out = []
    for ex in examples:
        ex = ex if isinstance(ex, Example) else Example(dict(ex))
        unknown = set(ex.args) - known
        if unknown:  # a programming error in the registration, caught at import
            raise TypeError(f"{name}: example names undeclared parameters {sorted(unknown)}")
        out.append(ex)
    return tuple(out)


def register(name: str, *, params: tuple[Param, ...] | list[Param], outputs: tuple[str, ...] | list[str],
             examples: tuple[Example | Mapping[str, Any], ...] | list[Example | Mapping[str, Any]] = ()):
    """Register ``impl`` under ``name``.

    ``impl`` receives every declared parameter already coerced (tensors as tensors of the context dtype
    on the context device, labels as int64 group ids, ``None`` for absent optionals) plus ``ctx``, a
    :class:`TensorContext`. It returns a dict whose keys are a subset of ``outputs``. ``examples`` are
    small documented calls (:class:`Example`, or a mapping of arguments) shown, with the outputs the
    engine gives for them, in docs/reference.md.
    """
    params = tuple(params)
    outputs = tuple(outputs)
    documented = _examples(name, params, examples)

    def deco(impl: Callable[..., dict[str, torch.Tensor]]):
        if name in _REGISTRY:
            raise RuntimeError(f"reference function {name!r} registered twice")
        declared = {p.name for p in params}
        sig = inspect.signature(impl)
        missing = declared - set(sig.parameters)
        if missing or "ctx" not in sig.parameters:
            raise TypeError(f"{name}: implementation must accept {sorted(missing | {'ctx'})}")
        entry = RefFunction(name, impl, params, outputs, inspect.getdoc(impl) or "", documented)

        @functools.wraps(impl)
        def wrapper(**kwargs: Any) -> dict[str, torch.Tensor]:
            return _invoke(entry, kwargs)

        entry.wrapper = wrapper
        _REGISTRY[name] = entry
        wrapper.reference_name = name  # type: ignore[attr-defined]
        return wrapper

    return deco


def _invoke(entry: RefFunction, kwargs: Mapping[str, Any]) -> dict[str, torch.Tensor]:
    known = {p.name for p in entry.params} | {p.name for p in COMMON_PARAMS}
    for key in kwargs:
        if key not in known:
            raise ReferenceInputError(key, f"unexpected argument for {entry.name}")
    dtype_name = kwargs.get("dtype", "float64")
    if dtype_name not in ("float64", "float32"):
        raise ReferenceInputError("dtype", "must be 'float64' or 'float32'")
    ctx = TensorContext(
        dtype=torch.float64 if dtype_name == "float64" else torch.float32,
        device=resolve_device(kwargs.get("device")),
    )
    coerced: dict[str, Any] = {}
    for p in entry.params:
        if p.name in kwargs and kwargs[p.name] is not None:
            coerced[p.name] = coerce_argument(p, kwargs[p.name], ctx)
        elif not p.required:
            value = kwargs.get(p.name, None if p.default is REQUIRED else p.default)
            coerced[p.name] = None if value is None else coerce_argument(p, value, ctx)
        else:  # absent, or an explicit None (JSON null): a required argument has no "absent" value
            raise ReferenceInputError(p.name, f"missing required argument of {entry.name}")
    try:
        result = entry.impl(ctx=ctx, **coerced)
    except ReferenceInputError:
        raise
    except (RuntimeError, IndexError, TypeError, ValueError, OverflowError) as exc:  # last line of defence: never leak torch errors
        raise ReferenceInputError(None, f"{entry.name} could not run on these inputs: {exc}") from None
    unknown = set(result) - set(entry.outputs)
    if unknown:  # a programming error, not a user error
        raise RuntimeError(f"{entry.name} returned undeclared outputs {sorted(unknown)}")
    return result


def names() -> list[str]:
    """Every registered function name, sorted."""
    return sorted(_REGISTRY)


def get(name: str) -> RefFunction:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise UnknownFunction(name, names()) from None


def describe(name: str) -> dict[str, Any]:
    """Docstring, parameter schema and output names of ``name``."""
    return get(name).describe()


def call(name: str, **kwargs: Any) -> dict[str, torch.Tensor]:
    """Validate ``kwargs`` and run the function registered as ``name``."""
    return get(name).wrapper(**kwargs)
