"""Token-level advantages and returns (contract §4, "Advantages and returns"): GAE, discounted returns,
REINFORCE++ and ReMax. The group baselines (GRPO, RLOO) are in :mod:`checkers.reference.group_advantages`.

Every upstream computes advantages under ``torch.no_grad`` (verl ``core_algos.compute_*_advantage``,
OpenRLHF ``get_advantages_and_returns``/``get_cumulative_returns``, TRL's rollout phase), so every output
here is detached as well.

Reverse recurrences x_t = b_t + a_t·x_{t+1} are evaluated by
:func:`checkers.reference.reverse_scan.reverse_linear_scan`, a chunked scan that needs no division (so
a_t = 0 is fine) and no per-timestep Python loop.
"""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .masked import CONVENTIONS, check_convention, masked_whiten_t
from .registry import Example, Param, register
from .reverse_scan import SCAN_CHUNK, constant_reverse_scan, reverse_linear_scan
from .tensors import TensorContext, require_mask, require_ndim, require_same_shape

OPENRLHF_WHITEN_EPS = 1e-8


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

