"""What each engine parameter holds, and how a test case draws a value for it.

The registry may declare a parameter's ``role`` (``Param(role="probs")``) and the ``range`` of its values
(``Param(range=(0.05, 0.5))``); where it does not, :func:`role_of` infers the role from the parameter's
name, kind and shape, so that a function added to the engine later gets sensible inputs without an edit
here. Every draw is a pure function of a ``torch.Generator`` (CPU, float64), so a case set is reproducible.

Shapes are read from the registry's ``shape`` strings: ``(B, T)``, ``(B,)``, ``(B, T, V)``, ``(..., K)``
(one batch axis then the support), ``same`` / ``same as values`` (the shape of that tensor), ``(N_c,)``
(each symbol its own size, so KTO's desirable and undesirable sets differ in size).
"""

from __future__ import annotations

import re
from typing import Any, Mapping

import torch

from ...reference.registry import ROLES

#: Roles of which a gradient is compared (real-valued inputs a loss is differentiated with respect to).
#: A mask, group ids, counts, lengths and probability vectors (constrained to the simplex, where only the
#: tangent part of a gradient is defined) are left out.
DIFFERENTIABLE = frozenset({"logprob", "scores", "rewards", "values", "advantages", "logits", "log_probs",
                            "mean", "std", "ratio", "nonnegative", "positive", "real"})
#: Old name-based lists (kept: the exercises' hidden cases are drawn exactly as before for these names).
LOG_PROB_NAMES = frozenset({"log_prob", "ref_log_prob", "old_log_prob", "policy_chosen_logps",
                            "policy_rejected_logps", "ref_chosen_logps", "ref_rejected_logps"})
MASK_NAMES = frozenset({"mask", "response_mask"})
GROUP_SIZE = 3
VOCAB = 5          # size of a vocabulary axis V
SUPPORT = 4        # size of a probability vector's support K
OTHER_AXIS = 3     # any other symbol

_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def role_of(param: Mapping[str, Any]) -> str:
    """The declared role of a registry parameter (``describe()``'s entry), else the one its name suggests."""
    declared = param.get("role")
    if declared in ROLES:
        return str(declared)
    name = str(param.get("name", "")).lower()
    shape = str(param.get("shape") or "")
    if param.get("kind") == "labels":
        return "group_ids"
    if "mask" in name:
        return "mask"
    if name in LOG_PROB_NAMES or name.endswith(("logps", "log_prob", "logp")):
        return "logprob"
    if "logits" in name:
        return "logits"
    if "log_probs" in name:
        return "log_probs"
    if name in ("p", "q", "pi", "probs") or name.endswith(("_probs", "_prob_vector")) or "K)" in shape \
            and "..." in shape:
        return "probs"
    if name == "scores":
        return "scores"
    if "score" in name or "reward" in name:
        return "rewards"
    if "advantage" in name:
        return "advantages"
    if name in ("values", "vpreds", "returns") or name.endswith("values"):
        return "values"
    if "length" in name:
        return "lengths"
    if name.startswith(("sigma", "std")) or name.endswith(("_std", "_sigma")):
        return "std"
    if name.startswith(("mu", "mean")):
        return "mean"
    if "ratio" in name:
        return "ratio"
    if name in ("n", "k", "num_samples"):
        return "count"
    if name in ("kl", "d"):
        return "nonnegative"
    return "real"


#: Inputs a trainer holds fixed: a loss is never differentiated through them, and an implementation may
#: detach them (``old_log_prob.detach()``) without being wrong.
DATA_PREFIXES = ("ref_", "old_")
DATA_NAMES = frozenset({"advantages", "returns"})


def differentiable(param: Mapping[str, Any]) -> bool:
    """Whether a stand-alone check differentiates with respect to this input: declared by ``grad=``, else
    a real-valued role that is not held fixed in training (reference and old log-probs, advantages and
    returns are data)."""
    if param.get("kind") != "tensor":
        return False
    if param.get("grad") is not None:
        return bool(param["grad"])
    name = str(param.get("name", ""))
    if name.startswith(DATA_PREFIXES) or name in DATA_NAMES:
        return False
    return role_of(param) in DIFFERENTIABLE


def shape_symbols(param: Mapping[str, Any], known: Mapping[str, tuple[int, ...]],
                  previous: str | None) -> tuple[str, ...] | str:
    """The symbols of a parameter's shape, or the name of the tensor whose shape it shares."""
    shape = str(param.get("shape") or "").strip()
    if shape.startswith("same"):
        other = shape[len("same"):].strip()
        other = other[3:].strip() if other.startswith("as ") else other
        if other in known:
            return other
        return previous if previous is not None else ("B", "T")
    if shape == "(...)":
        return ("B", "T")
    if shape.startswith("(...,"):
        return ("B",) + tuple(_SYMBOL.findall(shape[len("(...,"):].split(")")[0]))
    symbols = tuple(_SYMBOL.findall(shape.split(" or ")[0].split(")")[0]))
    return symbols or ("B",)


def axis_size(symbol: str, b: int, t: int) -> int:
    if symbol == "B":
        return b
    if symbol == "T":
        return t
    if symbol == "V":
        return VOCAB
    if symbol == "K":
        return SUPPORT
    if symbol in ("N_c", "N_chosen"):
        return b
    if symbol in ("N_r", "N_rejected"):
        return b + 1        # a different size: the two sets of an unpaired loss need not match
    if symbol == "N_kl":
        return 2 * b + 1
    return OTHER_AXIS


def draw_tensor(param: Mapping[str, Any], shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    """A float64 (int64 for group ids) tensor of ``shape`` for the parameter's role and range."""
    role = role_of(param)
    lo_hi = param.get("range")
    if role == "group_ids":
        return torch.arange(shape[0], dtype=torch.int64) // GROUP_SIZE
    if lo_hi is not None and role not in ("mask", "binary"):
        lo, hi = float(lo_hi[0]), float(lo_hi[1])
        u = torch.rand(shape, generator=gen, dtype=torch.float64)
        if role in ("lengths", "count"):
            return torch.floor(lo + u * (hi - lo + 1)).clamp(max=hi)
        return lo + u * (hi - lo)
    rand = lambda: torch.rand(shape, generator=gen, dtype=torch.float64)  # noqa: E731
    if role == "logprob":
        return -(rand() * 2.5 + 0.05)
    if role == "mask":
        m = (rand() > 0.25).to(torch.float64)
        if m.dim() == 2:
            m[:, 0] = 1.0   # a typical response mask starts counted
        return m
    if role == "scores":
        return torch.randint(0, 2, shape, generator=gen).to(torch.float64) + rand() * 0.5
    if role == "probs":
        return torch.softmax(torch.randn(shape, generator=gen, dtype=torch.float64) * 1.2, dim=-1)
    if role == "logits":
        return torch.randn(shape, generator=gen, dtype=torch.float64) * 2.0
    if role == "log_probs":
        return torch.log_softmax(torch.randn(shape, generator=gen, dtype=torch.float64) * 2.0, dim=-1)
    if role == "std":
        return rand() * 1.5 + 0.3
    if role == "lengths":
        return torch.randint(1, 21, shape, generator=gen).to(torch.float64)
    if role == "count":
        return torch.randint(1, 33, shape, generator=gen).to(torch.float64)
    if role == "ratio":
        return torch.exp(torch.randn(shape, generator=gen, dtype=torch.float64) * 0.2)
    if role == "nonnegative":
        return rand() * 4.0
    if role == "positive":
        return rand() * 2.0 + 0.1
    if role == "binary":
        out = torch.randint(0, 2, shape, generator=gen).to(torch.float64)
        if out.numel() >= 2:      # both labels present
            out.view(-1)[0], out.view(-1)[-1] = 1.0, 0.0
        return out
    return torch.randn(shape, generator=gen, dtype=torch.float64)


# ------------------------------------------------------------------------------------------- scalars

#: Usual values of a scalar hyperparameter by name, where the registry declares no ``range``.
_NAMED_RANGES: dict[str, tuple[float, float]] = {
    "beta": (0.05, 0.5), "gamma": (0.9, 1.0), "lam": (0.9, 1.0), "kl_coef": (0.01, 0.2),
    "epsilon": (0.1, 0.3), "clip_ratio": (0.1, 0.3), "alpha": (0.2, 0.8), "tau": (0.5, 2.0),
    "temperature": (0.5, 2.0), "target_kl": (0.01, 0.2), "current_kl": (0.0, 0.4),
}


def scalar_range(param: Mapping[str, Any]) -> tuple[float, float]:
    declared = param.get("range")
    if declared is not None:
        return float(declared[0]), float(declared[1])
    name = str(param.get("name", ""))
    for key, rng in _NAMED_RANGES.items():
        if name == key or name.endswith("_" + key) or name.startswith(key + "_"):
            return rng
    return (1.0, 4.0) if param.get("kind") == "int" else (0.1, 1.0)


def draw_scalar(param: Mapping[str, Any], gen: torch.Generator, index: int) -> Any:
    """One value of a scalar parameter for case ``index``: from its range (a choice: cycled through)."""
    kind = param.get("kind")
    if kind == "choice":
        allowed = list(param.get("allowed") or [])
        return allowed[index % len(allowed)]
    if kind == "bool":
        return bool(index % 2)
    lo, hi = scalar_range(param)
    u = float(torch.rand((), generator=gen, dtype=torch.float64))
    if kind == "int":
        return int(min(hi, lo + int(u * (hi - lo + 1))))
    # three decimals: readable in a failing case's report, and exactly what both sides receive
    return round(lo + u * (hi - lo), 3)


def is_scalar_param(param: Mapping[str, Any]) -> bool:
    return param.get("kind") in ("float", "int", "bool", "choice", "str", "tensor_or_float", "list")
