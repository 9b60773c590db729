"""Advantages and returns (contract §4, "Advantages and returns").

Every upstream computes advantages under ``torch.no_grad`` (verl ``core_algos.compute_*_advantage``,
OpenRLHF ``get_advantages_and_returns``/``get_cumulative_returns``, TRL's rollout phase), so every output
here is detached as well.

Reverse recurrences x_t = b_t + a_t·x_{t+1} are evaluated by :func:`reverse_linear_scan`, a chunked scan
that needs no division (so a_t = 0 is fine) and no per-timestep Python loop.
"""

from __future__ import annotations

import math
from typing import Callable

import torch

from .errors import ReferenceInputError
from .groupwise import grpo_vectorized_t
from .masked import CONVENTIONS, check_convention, masked_whiten_t
from .registry import Example, Param, register
from .tensors import TensorContext, require_mask, require_ndim, require_same_shape

SCAN_CHUNK = 64
GRPO_IMPLEMENTATION_NAMES = ("loop", "vectorized")
GRPO_EPS = {"verl": 1e-6, "trl": 1e-4, "openrlhf": 1e-9}
RLOO_NORMALIZE_EPS = 1e-4
OPENRLHF_WHITEN_EPS = 1e-8


# --- the scan ------------------------------------------------------------------------------------

def _all_finite(*tensors: torch.Tensor) -> bool:
    return all(bool(torch.isfinite(t).all().item()) for t in tensors)


def _sequential_reverse_scan(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """x_t = b_t + a_t·x_{t+1}, one step at a time, as the upstream loops evaluate it.

    The fast scans below weight every b_k by a (possibly zero) product, so a non-finite b_k would leak
    into x_t for t > k through 0·inf = nan; with a non-finite input this loop is used instead, and x_t
    depends on b_k (k ≥ t) only, with IEEE arithmetic exactly as the upstream loop.
    """
    out = torch.empty_like(b)
    x = torch.zeros(b.shape[0], dtype=b.dtype, device=b.device)
    for t in reversed(range(b.shape[1])):
        x = b[:, t] + a[:, t] * x
        out[:, t] = x
    return out


def reverse_linear_scan(a: torch.Tensor, b: torch.Tensor, chunk: int = SCAN_CHUNK) -> torch.Tensor:
    """x_t = b_t + a_t·x_{t+1} along the last axis with x_T = 0, for (B, T) tensors.

    Within a chunk of C steps, x_t = Σ_{k≥t} W[t, k]·b_k + (Π_{j=t}^{end} a_j)·x_{end+1} with
    W[t, k] = Π_{j=t}^{k−1} a_j, built by a cumulative product over a (B, C, C) triangle -- products of
    the a's themselves, never ratios of prefix products, which would overflow or divide by zero. The
    chunks are then chained from the end, T/C Python steps instead of T.
    """
    if a.shape != b.shape:
        a = a.expand_as(b)
    if not _all_finite(a, b):
        return _sequential_reverse_scan(a, b)
    B, T = b.shape
    out = torch.empty_like(b)
    carry = torch.zeros(B, dtype=b.dtype, device=b.device)
    n_chunks = math.ceil(T / chunk) if T else 0
    for c in reversed(range(n_chunks)):
        lo, hi = c * chunk, min(T, (c + 1) * chunk)
        C = hi - lo
        a_c, b_c = a[:, lo:hi], b[:, lo:hi]
        # tri[t, j] = a_j for j ≥ t else 1, so its cumprod along j is Π_{j'=t}^{j} a_j'.
        upper = torch.ones(C, C, dtype=torch.bool, device=b.device).triu()
        tri = torch.where(upper, a_c.unsqueeze(1).expand(B, C, C), torch.ones((), dtype=b.dtype, device=b.device))
        prods = torch.cumprod(tri, dim=-1)
        weights = torch.cat([torch.ones(B, C, 1, dtype=b.dtype, device=b.device), prods[:, :, :-1]], dim=-1)
        weights = torch.where(upper, weights, torch.zeros((), dtype=b.dtype, device=b.device))
        local = torch.bmm(weights, b_c.unsqueeze(-1)).squeeze(-1)
        x = local + prods[:, :, -1] * carry.unsqueeze(-1)
        out[:, lo:hi] = x
        carry = x[:, 0]
    return out


def constant_reverse_scan(b: torch.Tensor, c: float, chunk: int = SCAN_CHUNK) -> torch.Tensor:
    """x_t = b_t + c·x_{t+1} along the last axis with x_T = 0, for a (B, T) tensor and a constant c.

    With a constant coefficient each chunk is one matrix product with the fixed upper-triangular
    Toeplitz matrix M[k, t] = c^(k−t) (k ≥ t), which BLAS evaluates far faster than T Python steps; the
    chunks are then chained from the end through their first elements (T/C scalar-vector steps).
    Full-size temporaries are kept to a minimum: on CPU, fresh allocations cost as much as the arithmetic.
    """
    B, T = b.shape
    if T == 0:
        return b.clone()
    if not (math.isfinite(c) and _all_finite(b)):
        return _sequential_reverse_scan(torch.full_like(b, c), b)
    C = min(chunk, T)
    n = math.ceil(T / C)
    padded = b if n * C == T else torch.nn.functional.pad(b, (0, n * C - T))
    steps = torch.arange(C, device=b.device, dtype=b.dtype)
    expo = steps.unsqueeze(1) - steps.unsqueeze(0)  # k − t
    coef = torch.full((), c, dtype=b.dtype, device=b.device)
    toeplitz = torch.where(expo >= 0, coef ** expo.clamp(min=0), torch.zeros((), dtype=b.dtype, device=b.device))
    local = padded.reshape(B, n, C) @ toeplitz  # local[:, j, t] = Σ_{k≥t} c^(k−t)·b[:, j, k]
    # start[:, j] is x at the first step of chunk j; start[:, n] = 0.
    start = torch.zeros(B, n + 1, dtype=b.dtype, device=b.device)
    c_chunk = coef ** C
    heads = local[:, :, 0]
    for j in reversed(range(n)):
        torch.add(heads[:, j], start[:, j + 1], alpha=float(c_chunk), out=start[:, j])
    tail_pow = coef ** (C - steps)  # c^(C−t): from step t to the next chunk's first step
    local.addcmul_(start[:, 1:].unsqueeze(-1), tail_pow)
    out = local.reshape(B, n * C)
    return out if n * C == T else out[:, :T]


def _shift_left(x: torch.Tensor) -> torch.Tensor:
    """y_t = x_{t+1}, y_{T−1} = 0."""
    return torch.cat([x[:, 1:], torch.zeros_like(x[:, :1])], dim=1)


# --- GAE -----------------------------------------------------------------------------------------

def _openrlhf_whiten(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    n = mask.sum()
    mean = (x * mask).sum() / n
    var = ((x - mean).pow(2) * mask).sum() / n
    return (x - mean) * var.clamp(min=OPENRLHF_WHITEN_EPS).rsqrt()


def _discounted_scan(b: torch.Tensor, gamma: float, lam: float | torch.Tensor) -> torch.Tensor:
    """x_t = b_t + γλ·x_{t+1}: one constant coefficient, or one per row when ``lam`` is a (B,) tensor."""
    if isinstance(lam, torch.Tensor):
        coef = (gamma * lam).to(b.dtype).unsqueeze(1).expand_as(b)
        return reverse_linear_scan(coef, b)
    return constant_reverse_scan(b, gamma * lam)


def _gae_skipping_holes(r: torch.Tensor, v: torch.Tensor, m: torch.Tensor, gamma: float,
                        lam: float | torch.Tensor) -> torch.Tensor:
    """verl GAE: the counted tokens of each row are compacted to the left, where the recurrence is the
    plain one with a constant coefficient; a hole takes the advantage of the next counted token (0 after
    the last one), which is what verl's carried ``lastgaelam`` holds there. Values and rewards at holes
    are never read (verl multiplies them by 0, so only a non-finite value there would differ)."""
    B, T = r.shape
    counted = m != 0
    before = torch.cumsum(counted, dim=1)                     # int64: counted tokens at or before t
    # Compact slots 0..T-1 hold counted tokens, slot T stays 0 (the end of every row); holes are
    # dumped into the last slot, which is cleared before it is read. The length is a multiple of the
    # scan chunk so the scan needs no padding copy.
    L = math.ceil((T + 2) / SCAN_CHUNK) * SCAN_CHUNK
    slot = torch.where(counted, before - 1, L - 1)
    comp = torch.zeros(B, L, dtype=r.dtype, device=r.device)
    comp.scatter_(1, slot, v)
    comp[:, L - 1] = 0
    # For a counted token at compact slot k the next counted value sits at slot k + 1 = ``before``.
    delta = torch.gather(comp, 1, before)
    delta.mul_(gamma).add_(r).sub_(v)
    comp.zero_()
    comp.scatter_(1, slot, delta)
    comp[:, L - 1] = 0
    comp_a = _discounted_scan(comp, gamma, lam)
    # Counted t reads its own slot (before − 1); a hole reads the next counted slot (before).
    before.sub_(counted.to(torch.int64))
    return torch.gather(comp_a, 1, before)


def _gae_lambda(lam: float | torch.Tensor | None, name: str, rows: int) -> float | torch.Tensor | None:
    """A GAE λ: a number, or one per row (a (B,) tensor, detached); a 0-d tensor counts as a number."""
    if lam is None or not isinstance(lam, torch.Tensor):
        if lam is not None and not math.isfinite(lam):
            raise ReferenceInputError(name, "must be finite")
        return lam
    if lam.dim() == 0:
        return _gae_lambda(float(lam.detach().item()), name, rows)
    if lam.dim() != 1 or lam.shape[0] != rows:
        raise ReferenceInputError(name, f"must be a number or one value per row, shape ({rows},); "
                                        f"got shape {tuple(lam.shape)}")
    if not bool(torch.isfinite(lam).all().item()):
        raise ReferenceInputError(name, "must be finite")
    return lam.detach()


def gae_t(rewards: torch.Tensor, values: torch.Tensor, mask: torch.Tensor, gamma: float = 1.0,
          lam: float | torch.Tensor = 1.0, whiten: bool = False, whiten_rewards: bool = False,
          convention: str = "verl",
          lam_critic: float | torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """GAE advantages and returns (see ``advantages.gae``); returns (advantages, returns), detached.

    ``lam`` and ``lam_critic`` are numbers or (B,) tensors (one λ per row); the returns use
    ``lam_critic`` (default ``lam``).
    """
    check_convention(convention)
    require_ndim(rewards, "rewards", 2)
    require_same_shape(rewards=rewards, values=values, mask=mask)
    require_mask(mask)
    lam_actor = _gae_lambda(lam, "lam", rewards.shape[0])
    lam_value = _gae_lambda(lam_critic, "lam_critic", rewards.shape[0])
    with torch.no_grad():
        r, v, m = rewards.detach(), values.detach(), mask.detach()
        if convention != "verl":
            r, v = r * m, v * m
        if whiten_rewards:
            r = masked_whiten_t(r, m, shift_mean=False, convention=convention)

        def run(lam_: float | torch.Tensor) -> torch.Tensor:
            if convention == "verl":
                return _gae_skipping_holes(r, v, m, gamma, lam_)
            delta = r + gamma * _shift_left(v) - v
            return _discounted_scan(delta, gamma, lam_)

        adv = run(lam_actor)
        # VC-PPO's decoupled λ: the value targets come from a second pass with the critic's λ.
        returns = (adv if lam_value is None else run(lam_value)) + v
        if whiten:
            adv = _openrlhf_whiten(adv, m) if convention == "openrlhf" else masked_whiten_t(adv, m, True, convention)
    return adv, returns


_CONV = Param("convention", "choice", "verl", choices=CONVENTIONS)
_BT = "(B, T)"


@register("advantages.gae",
          params=[Param("rewards", "tensor", shape=_BT), Param("values", "tensor", shape=_BT),
                  Param("mask", "tensor", shape=_BT), Param("gamma", "float", 1.0),
                  Param("lam", "tensor_or_float", 1.0, shape="scalar or (B,)", range=(0.0, 1.0),
                        doc="GAE λ of the advantages; one per row for VAPO's length-adaptive λ"),
                  Param("whiten", "bool", False), Param("whiten_rewards", "bool", False), _CONV,
                  Param("lam_critic", "tensor_or_float", None, shape="scalar or (B,)", range=(0.0, 1.0),
                        doc="VC-PPO: λ of the value targets (returns); None: lam")],
          outputs=["advantages", "returns"],
          examples=[Example({"rewards": [[0.0, 0.0, 1.0]], "values": [[0.5, 0.6, 0.7]], "mask": [[1, 1, 1]],
                             "lam": 0.95}),
                    Example({"rewards": [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0]], "values": [[0.5, 0.6, 0.7], [0.2, 0.4, 0.0]],
                             "mask": [[1, 1, 1], [1, 1, 0]], "lam": [0.95, 0.9], "lam_critic": 1.0},
                            "VC-PPO decoupled λ (critic 1.0) with a per-row actor λ (VAPO)")])
def advantages_gae(ctx: TensorContext, rewards: torch.Tensor, values: torch.Tensor, mask: torch.Tensor,
                   gamma: float, lam: float | torch.Tensor, whiten: bool, whiten_rewards: bool,
                   convention: str, lam_critic: float | torch.Tensor | None) -> dict[str, torch.Tensor]:
    """Generalised advantage estimation (Schulman et al. 2016, arXiv:1506.02438).

    δ_t = r_t + γ·V_next − V_t, A_t = δ_t + γλ·A_next, returns = A + V (before any whitening).

    * verl (``core_algos.compute_gae_advantage_return``): tokens with m = 0 are skipped -- V_next and
      A_next come from the next *counted* token (bootstrapping across holes), and at a masked position A
      is the carried advantage of the next counted token; returns = raw A + V everywhere.
    * trl (v0.11 PPO trainer) / openrlhf (``get_advantages_and_returns``): r and V are multiplied by m
      first and the plain recurrence runs over every position (holes are zeros).

    ``whiten=True``: verl/trl ``masked.whiten`` of A with this convention (batch-wide, not re-masked);
    openrlhf: (A − μ)·rsqrt(max(σ²_biased, 1e-8)) batch-wide, not re-masked. ``whiten_rewards=True``
    (TRL v0.11): after the mask multiply r ← masked.whiten(r, m, shift_mean=False, convention).
    Outputs are detached (upstream runs under no_grad).

    Decoupled λ (VC-PPO's "decoupled GAE", Yuan et al. 2025, arXiv:2503.01491): the advantages use
    ``lam`` and the value targets use ``lam_critic`` (VC-PPO trains the critic with λ = 1, so its
    targets do not decay the terminal reward), i.e. returns = A(λ_critic) + V (verl) or
    A(λ_critic) + V·m (trl/openrlhf), computed before any whitening; ``lam_critic=None`` means ``lam``.
    Either may be a (B,) tensor, one λ per row: VAPO's "length-adaptive GAE" λ_b = 1 − 1/(α·l_b)
    (Yue et al. 2025, arXiv:2504.05118; l_b the row's length) is passed that way; the recursion is then
    A_t = δ_t + γλ_b·A_{t+1} within row b.
    There is no upstream code for either (verl's ``compute_gae_advantage_return`` takes one λ): both
    follow the papers' recursion. λ must be finite; no range is imposed (VAPO's λ_b is negative for
    l_b < 1/α).
    """
    adv, ret = gae_t(rewards, values, mask, gamma, lam, whiten, whiten_rewards, convention, lam_critic)
    return {"advantages": adv, "returns": ret}


def discounted_returns_t(rewards: torch.Tensor, mask: torch.Tensor, gamma: float,
                         convention: str = "verl") -> torch.Tensor:
    check_convention(convention)
    require_ndim(rewards, "rewards", 2)
    require_same_shape(rewards=rewards, mask=mask)
    require_mask(mask)
    with torch.no_grad():
        r, m = rewards.detach(), mask.detach()
        if convention == "openrlhf":
            return reverse_linear_scan(torch.full_like(r, gamma), r * m)
        # s_t is the running return handed to t − 1: it is zeroed at a mask zero (the reset).
        s = reverse_linear_scan(gamma * m, m * r)
        return r + gamma * _shift_left(s)


@register("advantages.discounted_returns",
          params=[Param("rewards", "tensor", shape=_BT), Param("mask", "tensor", shape=_BT),
                  Param("gamma", "float", 1.0), _CONV],
          outputs=["returns"],
          examples=[{"rewards": [[0.0, 0.0, 1.0]], "mask": [[1, 1, 1]], "gamma": 0.9}])
def advantages_discounted_returns(ctx: TensorContext, rewards: torch.Tensor, mask: torch.Tensor, gamma: float,
                                  convention: str) -> dict[str, torch.Tensor]:
    """Reverse discounted return G_t = r_t + γ·G_{t+1}.

    * verl / trl (verl REINFORCE++ loop): G_t = r_t + γ·c_{t+1}, then the carry c_t = m_t·G_t, so the sum
      restarts after every mask zero (and the value *at* a masked position still includes its own r_t
      plus the carry from the right).
    * openrlhf (``get_cumulative_returns``): r ← m·r, then G_t = r_t + γ·G_{t+1} with no reset.
    Detached (upstream runs under no_grad).
    """
    return {"returns": discounted_returns_t(rewards, mask, gamma, convention)}


# --- group baselines -----------------------------------------------------------------------------

def _scores_from(scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                 mask: torch.Tensor | None) -> torch.Tensor:
    if (scores is None) == (token_level_rewards is None):
        raise ReferenceInputError("scores", "give exactly one of scores (B,) and token_level_rewards (B, T)")
    if scores is not None:
        require_ndim(scores, "scores", 1)
        if mask is not None:
            require_ndim(mask, "mask", 2)
            require_mask(mask)
            if mask.shape[0] != scores.shape[0]:
                raise ReferenceInputError("mask", f"has {mask.shape[0]} rows but scores has {scores.shape[0]}")
        return scores.detach()
    assert token_level_rewards is not None
    require_ndim(token_level_rewards, "token_level_rewards", 2)
    if mask is None:
        raise ReferenceInputError("mask", "is required with token_level_rewards")
    require_same_shape(token_level_rewards=token_level_rewards, mask=mask)
    require_mask(mask)
    # verl sums the token rewards without masking (outcome rewards sit on counted tokens anyway).
    return token_level_rewards.detach().sum(dim=-1)


def _group_ids(index: torch.Tensor | None, group_size: int | None, n: int, device: torch.device) -> torch.Tensor:
    if (index is None) == (group_size is None):
        raise ReferenceInputError("index", "give exactly one of index (group labels) and group_size")
    if index is not None:
        if index.shape[0] != n:
            raise ReferenceInputError("index", f"has {index.shape[0]} labels for {n} rows")
        return index.to(device)
    assert group_size is not None
    if group_size < 1 or n % group_size:
        raise ReferenceInputError("group_size", f"must be a positive divisor of the batch size {n}")
    return torch.arange(n, device=device) // group_size


def _group_sum(x: torch.Tensor, ids: torch.Tensor, n_groups: int) -> torch.Tensor:
    return torch.zeros(n_groups, dtype=x.dtype, device=x.device).index_add(0, ids, x)


def _with_tokens(adv: torch.Tensor, mask: torch.Tensor | None) -> dict[str, torch.Tensor]:
    out = {"advantages": adv}
    if mask is not None:
        out["token_advantages"] = adv.unsqueeze(-1) * mask.detach()
    return out


def grpo_t(scores: torch.Tensor, ids: torch.Tensor, epsilon: float | None = None, scale: str = "group",
           unbiased: bool = True, convention: str = "verl") -> torch.Tensor:
    """Group-relative advantages of ``scores`` (B,) with int64 group ids (see ``advantages.grpo``)."""
    check_convention(convention)
    if scale not in ("group", "batch", "none"):
        raise ReferenceInputError("scale", "must be 'group', 'batch' or 'none'")
    eps = GRPO_EPS[convention] if epsilon is None else epsilon
    n_groups = int(ids.max().item()) + 1 if ids.numel() else 0
    s = scores
    valid = ~torch.isnan(s) if convention == "trl" else torch.ones_like(s, dtype=torch.bool)
    s0 = torch.where(valid, s, torch.zeros_like(s))
    w = valid.to(s.dtype)
    cnt = _group_sum(w, ids, n_groups)
    # Outside trl every row is "valid", so a nan score propagates into its group, as torch.mean does.
    mean_g = _group_sum(s0, ids, n_groups) / cnt
    dev = torch.where(valid, s - mean_g[ids], torch.zeros_like(s))
    ddof = 1 if unbiased else 0
    std_g = (_group_sum(dev ** 2, ids, n_groups) / (cnt - ddof)).sqrt()
    mean, std = mean_g[ids], std_g[ids]
    if scale == "batch":
        sv = s[valid]
        std_b = sv.std(unbiased=unbiased) if sv.numel() > ddof else torch.tensor(math.nan, dtype=s.dtype)
        std = std_b.to(s.device).expand_as(s)
    single = torch.bincount(ids, minlength=n_groups)[ids] == 1
    if convention == "verl":
        # verl: a one-member group has mean 0 and std 1.
        mean = torch.where(single, torch.zeros_like(mean), mean)
        if scale == "group":
            std = torch.where(single, torch.ones_like(std), std)
    adv = s - mean
    if scale != "none":
        adv = adv / (std + eps)
    if convention == "trl":
        adv = torch.where(single, torch.zeros_like(adv), adv)
        adv = torch.nan_to_num(adv, nan=0.0)
    return adv


@register("advantages.grpo",
          params=[Param("scores", "tensor", None, shape="(B,)"),
                  Param("token_level_rewards", "tensor", None, shape=_BT),
                  Param("mask", "tensor", None, shape=_BT),
                  Param("index", "labels", None, shape="(B,)", standalone=True, doc="group label of each row"),
                  Param("group_size", "int", None, doc="consecutive blocks of this many rows"),
                  Param("epsilon", "float", None, doc="default: verl 1e-6, trl 1e-4, openrlhf 1e-9"),
                  Param("scale", "choice", "group", choices=("group", "batch", "none")),
                  Param("norm_by_std", "bool", None, doc="alias: True = scale 'group', False = 'none'"),
                  Param("unbiased", "bool", True), _CONV,
                  Param("implementation", "choice", "loop", choices=GRPO_IMPLEMENTATION_NAMES,
                        doc="verl only: 'loop' (compute_grpo_outcome_advantage) or 'vectorized' "
                            "(compute_grpo_vectorized_outcome_advantage: float32 statistics, variance floor ε)")],
          outputs=["advantages", "token_advantages"],
          examples=[Example({"scores": [1.0, 0.0, 0.5, 1.0], "index": ["a", "a", "b", "b"]},
                            "two groups of two (verl loop)"),
                    Example({"scores": [1.0, 0.0, 0.5, 1.0], "index": ["a", "a", "b", "b"],
                             "implementation": "vectorized"},
                            "verl compute_grpo_vectorized_outcome_advantage (float32 statistics)")])
def advantages_grpo(ctx: TensorContext, scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                    mask: torch.Tensor | None, index: torch.Tensor | None, group_size: int | None,
                    epsilon: float | None, scale: str, norm_by_std: bool | None, unbiased: bool,
                    convention: str, implementation: str) -> dict[str, torch.Tensor]:
    """GRPO outcome advantages (Shao et al. 2024, DeepSeekMath): A = (s − mean_g)/(std + ε).

    s = scores, or Σ_t token_level_rewards (verl ``compute_grpo_outcome_advantage``). std is the group's
    (``scale="group"``), the whole batch's (``"batch"``, TRL ``scale_rewards="batch"``; the mean stays the
    group's) or no division (``"none"``, Dr.GRPO); ``norm_by_std`` is verl's alias. std is unbiased unless
    ``unbiased=False``.

    * verl: ε = 1e-6; a one-member group uses mean 0, std 1 (so A = s/(1 + ε)).
    * trl (``GRPOTrainer``): ε = 1e-4; nan scores are unscorable: group statistics use the non-nan
      members (nanmean, unbiased nanstd), a one-member group gets 0 and any nan advantage becomes 0.
    * openrlhf (``group_norm``): ε = 1e-9, plain mean/std (a one-member group's std is nan).

    ``implementation="vectorized"`` (verl only, ``compute_grpo_vectorized_outcome_advantage``): the group
    mean and the unbiased std are accumulated in float32 by the one-pass formula Σs² − (Σs)²/c and the
    variance is floored at ε before the square root, so A = (s − mean_g)/(√max(var_g, ε) + ε); a group
    with equal scores gets 0, not 0/ε noise; one-member groups as the loop version.
    With ``mask``, ``token_advantages`` = A·m. Detached (upstream runs under no_grad).
    """
    if norm_by_std is not None:
        scale = "group" if norm_by_std else "none"
    s = _scores_from(scores, token_level_rewards, mask)
    ids = _group_ids(index, group_size, s.shape[0], s.device)
    with torch.no_grad():
        adv = GRPO_IMPLEMENTATIONS[implementation](s, ids, epsilon, scale, unbiased, convention)
    return _with_tokens(adv, mask)


def _grpo_vectorized(scores: torch.Tensor, ids: torch.Tensor, epsilon: float | None, scale: str,
                     unbiased: bool, convention: str) -> torch.Tensor:
    if convention != "verl":
        raise ReferenceInputError("implementation", "'vectorized' is verl's; use convention='verl'")
    if not unbiased:
        raise ReferenceInputError("unbiased", "verl's vectorized GRPO always uses the unbiased group std")
    return grpo_vectorized_t(scores, ids, GRPO_EPS["verl"] if epsilon is None else epsilon, scale)


#: ``advantages.grpo``'s ``implementation`` argument -> the function that computes A from (B,) scores.
GRPO_IMPLEMENTATIONS: dict[str, Callable[..., torch.Tensor]] = {"loop": grpo_t, "vectorized": _grpo_vectorized}


def rloo_t(scores: torch.Tensor, ids: torch.Tensor, normalize: bool = False, singleton: str | None = None,
           convention: str = "verl") -> torch.Tensor:
    check_convention(convention)
    if singleton is None:
        singleton = "score" if convention == "verl" else "zero"
    if singleton not in ("score", "zero"):
        raise ReferenceInputError("singleton", "must be 'score' or 'zero'")
    n_groups = int(ids.max().item()) + 1 if ids.numel() else 0
    s = scores
    if convention == "trl":
        valid = ~torch.isnan(s)
        s0 = torch.where(valid, s, torch.zeros_like(s))
        w = valid.to(s.dtype)
        others_sum = _group_sum(s0, ids, n_groups)[ids] - s0
        others_cnt = _group_sum(w, ids, n_groups)[ids] - w
    else:
        others_sum = _group_sum(s, ids, n_groups)[ids] - s
        others_cnt = _group_sum(torch.ones_like(s), ids, n_groups)[ids] - 1
    lone = others_cnt == 0
    baseline = others_sum / torch.where(lone, torch.ones_like(others_cnt), others_cnt)
    adv = s - baseline
    if convention == "trl" and singleton == "zero":
        # TRL head: a row without a scorable sibling gets the baseline 0/0 = nan, so it stays out of the
        # normalisation statistics below; nan_to_num then makes its advantage 0.
        fill = torch.full_like(s, math.nan)
    else:
        fill = s if singleton == "score" else torch.zeros_like(s)
    adv = torch.where(lone, fill, adv)
    if normalize:
        ok = ~torch.isnan(adv)
        a = adv[ok]
        mean = a.mean()
        std = a.std() if a.numel() > 1 else torch.tensor(math.nan, dtype=s.dtype, device=s.device)
        adv = (adv - mean) / (std + RLOO_NORMALIZE_EPS)
    if convention == "trl":
        adv = torch.nan_to_num(adv, nan=0.0)
    return adv


@register("advantages.rloo",
          params=[Param("scores", "tensor", None, shape="(B,)"),
                  Param("token_level_rewards", "tensor", None, shape=_BT),
                  Param("mask", "tensor", None, shape=_BT),
                  Param("index", "labels", None, shape="(B,)", standalone=True), Param("group_size", "int", None),
                  Param("normalize", "bool", False),
                  Param("singleton", "choice", None, choices=("score", "zero"),
                        doc="one-member groups; default: verl score, trl/openrlhf zero"),
                  _CONV],
          outputs=["advantages", "token_advantages"],
          examples=[{"scores": [1.0, 0.0, 0.5], "group_size": 3}])
def advantages_rloo(ctx: TensorContext, scores: torch.Tensor | None, token_level_rewards: torch.Tensor | None,
                    mask: torch.Tensor | None, index: torch.Tensor | None, group_size: int | None,
                    normalize: bool, singleton: str | None, convention: str) -> dict[str, torch.Tensor]:
    """RLOO leave-one-out advantages (Ahmadian et al. 2024, arXiv:2402.14740): A_i = s_i − mean_{j≠i} s_j
    = (c·s_i − Σ_g s)/(c − 1) for a group of c.

    * verl (``compute_rloo_outcome_advantage``): a one-member group keeps its raw score
      (``singleton="score"``); the vectorised verl version and trl/openrlhf give 0 (``"zero"``).
    * trl: the baseline is the nansum over the scorable (non-nan) others divided by their count; a row
      with no scorable other follows ``singleton``; nan advantages become 0.
    ``normalize=True`` (TRL): A ← (A − mean)/(std + 1e-4) over the rows whose A is not nan (under trl also
    leaving out rows with no scorable sibling, whose A is 0), unbiased std.
    With ``mask``, ``token_advantages`` = A·m. Detached.
    """
    s = _scores_from(scores, token_level_rewards, mask)
    ids = _group_ids(index, group_size, s.shape[0], s.device)
    with torch.no_grad():
        adv = rloo_t(s, ids, normalize, singleton, convention)
    return _with_tokens(adv, mask)


@register("advantages.reinforce_pp",
          params=[Param("token_level_rewards", "tensor", shape=_BT), Param("mask", "tensor", shape=_BT),
                  Param("gamma", "float", 1.0)],
          outputs=["returns", "advantages"],
          examples=[{"token_level_rewards": [[0.0, 0.0, 1.0], [0.0, 0.5, 0.0]], "mask": [[1, 1, 1], [1, 1, 0]]}])
def advantages_reinforce_pp(ctx: TensorContext, token_level_rewards: torch.Tensor, mask: torch.Tensor,
                            gamma: float) -> dict[str, torch.Tensor]:
    """REINFORCE++ (Hu 2025, arXiv:2501.03262), as verl ``compute_reinforce_plus_plus_outcome_advantage``.

    returns: G_t = r_t + γ·c_{t+1}, carry c_t = m_t·G_t (reset after each mask zero);
    advantages = m·masked_whiten(G, m) (verl whitening: batch-wide, unbiased var + 1e-8). Detached.
    """
    returns = discounted_returns_t(token_level_rewards, mask, gamma, "verl")
    with torch.no_grad():
        adv = masked_whiten_t(returns, mask.detach(), True, "verl") * mask.detach()
    return {"returns": returns, "advantages": adv}


@register("advantages.remax",
          params=[Param("token_level_rewards", "tensor", shape=_BT),
                  Param("reward_baselines", "tensor", shape="(B,)"), Param("mask", "tensor", shape=_BT)],
          outputs=["returns", "advantages"],
          examples=[{"token_level_rewards": [[0.0, 0.0, 1.0]], "reward_baselines": [0.4], "mask": [[1, 1, 1]]}])
def advantages_remax(ctx: TensorContext, token_level_rewards: torch.Tensor, reward_baselines: torch.Tensor,
                     mask: torch.Tensor) -> dict[str, torch.Tensor]:
    """ReMax (Li et al. 2023, arXiv:2310.10505), as verl ``compute_remax_outcome_advantage``.

    returns_t = Σ_{k≥t} m_k·r_k (undiscounted reverse cumsum of the masked rewards);
    advantages = returns − b·m with b the greedy-decoding baseline reward per row. Detached.
    """
    require_ndim(token_level_rewards, "token_level_rewards", 2)
    require_same_shape(token_level_rewards=token_level_rewards, mask=mask)
    require_mask(mask)
    require_ndim(reward_baselines, "reward_baselines", 1)
    if reward_baselines.shape[0] != mask.shape[0]:
        raise ReferenceInputError("reward_baselines", f"has {reward_baselines.shape[0]} rows, mask has {mask.shape[0]}")
    with torch.no_grad():
        rm = token_level_rewards.detach() * mask.detach()
        returns = rm.flip(-1).cumsum(-1).flip(-1)
        adv = returns - reward_baselines.detach().unsqueeze(-1) * mask.detach()
    return {"returns": returns, "advantages": adv}

