"""Unbiased pass@k from n samples of which c are correct (contract §6, ``bon.pass_at_k``).

Authority: openai/human-eval ``human_eval/evaluation.py::estimate_pass_at_k`` at commit 6d43fb98
(Chen et al. 2021, "Evaluating Large Language Models Trained on Code", arXiv:2107.03374, §2.1 and its
numerically stable estimator in Figure 3). Re-implemented with torch, not copied.
"""

from __future__ import annotations

import torch

from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext

#: Elements of the (rows × longest product) factor table built at once; longer inputs are done in slices.
_TABLE_BUDGET = 1 << 22


def _check_counts(t: torch.Tensor, name: str) -> None:
    """A count is a finite, non-negative whole number."""
    with torch.no_grad():
        if not torch.isfinite(t).all().item():
            raise ReferenceInputError(name, "must be finite")
        if (t < 0).any().item():
            raise ReferenceInputError(name, "counts must be non-negative")
        if (t != torch.round(t)).any().item():
            raise ReferenceInputError(name, "counts must be whole numbers")


def _product_rows(n: torch.Tensor, c: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """Π_{i=n−c+1}^{n} (1 − k/i) for 1-D n, c, k (an empty product is 1).

    Row r holds the factors for j = 0..c_r − 1 at i = n_r − c_r + 1 + j and 1 beyond; rows are taken
    in slices so the table stays within ``_TABLE_BUDGET`` elements.
    """
    out = torch.ones_like(n)
    width = int(c.max().item()) if c.numel() else 0
    if width == 0:
        return out
    step = max(1, _TABLE_BUDGET // width)
    j = torch.arange(width, dtype=n.dtype, device=n.device)
    for lo in range(0, n.numel(), step):
        n_s, c_s, k_s = n[lo:lo + step, None], c[lo:lo + step, None], k[lo:lo + step, None]
        i = n_s - c_s + 1 + j
        inside = j < c_s
        # Outside a row's range i may be 0: the factor is replaced by 1 before it is ever used.
        factors = torch.where(inside, 1.0 - k_s / torch.where(inside, i, torch.ones_like(i)),
                              torch.ones_like(i))
        out[lo:lo + step] = torch.prod(factors, dim=1)
    return out


def pass_at_k_t(n: torch.Tensor, c: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """pass@k for broadcast counts (see ``bon.pass_at_k``); not differentiable (counts)."""
    for t, name in ((n, "n"), (c, "c"), (k, "k")):
        _check_counts(t, name)
    try:
        n_b, c_b, k_b = torch.broadcast_tensors(n.detach(), c.detach(), k.detach())
    except RuntimeError:
        raise ReferenceInputError("c", f"shapes {tuple(n.shape)}, {tuple(c.shape)} and {tuple(k.shape)} "
                                       "of n, c and k do not broadcast") from None
    with torch.no_grad():
        if (c_b > n_b).any().item():
            raise ReferenceInputError("c", "cannot exceed n (more correct samples than samples)")
        flat_n, flat_c, flat_k = n_b.reshape(-1), c_b.reshape(-1), k_b.reshape(-1)
        certain = (flat_n - flat_c) < flat_k          # every size-k draw holds a correct sample
        # Only rows that need the product contribute to its width (c can be huge where it is certain).
        need = ~certain
        prod = torch.ones_like(flat_n)
        if need.any().item():
            prod[need] = _product_rows(flat_n[need], flat_c[need], flat_k[need])
        result = torch.where(certain, torch.ones_like(flat_n), 1.0 - prod)
    return result.reshape(n_b.shape)


@register("bon.pass_at_k",
          params=[Param("n", "tensor", shape="(...) broadcast", role="count", range=(10, 20),
                        doc="samples drawn per problem"),
                  Param("c", "tensor", shape="(...) broadcast", role="count", range=(0, 10),
                        doc="correct samples among them"),
                  Param("k", "tensor", shape="(...) broadcast", role="count", range=(1, 10),
                        doc="draws counted by pass@k")],
          outputs=["pass_at_k"],
          examples=[{"n": [10, 10, 10, 5], "c": [0, 1, 3, 3], "k": [1, 5, 5, 3]}])
def bon_pass_at_k(ctx: TensorContext, n: torch.Tensor, c: torch.Tensor, k: torch.Tensor) -> dict[str, torch.Tensor]:
    """Unbiased pass@k estimate from n samples with c correct (Chen et al. 2021, §2.1).

    pass@k = 1 − C(n − c, k)/C(n, k), evaluated as human-eval ``estimate_pass_at_k`` (openai/human-eval
    ``human_eval/evaluation.py`` at 6d43fb98) does, as the product 1 − Π_{i=n−c+1}^{n} (1 − k/i), with
    1.0 whenever n − c < k (every draw of k samples contains a correct one). So k = 0 gives 0.0, c = 0
    gives 0.0 (empty product) and, as upstream, k > n gives 1.0 even for c = 0 (n − c < k holds).
    n, c and k broadcast against each other (upstream takes one k per call). Counts must be finite,
    non-negative whole numbers and c ≤ n, else a ``ReferenceInputError`` (upstream truncates n and c with
    ``int``). Upstream works in numpy float64; here the product is in the requested dtype. The result
    is not differentiable (it is a function of counts).
    """
    return {"pass_at_k": pass_at_k_t(n, c, k)}
