"""Policy-loss variants beyond vanilla PPO clipping (contract §5): verl's GSPO, SAPO, CISPO, GPG and
GMPO (``geo_mean``), OpenRLHF's GSPO, and TRL HEAD's ``luspo``, ``cispo`` and ``sapo`` GRPO loss types.

Authorities (re-implemented, not copied):

* verl ``verl/trainer/ppo/core_algos.py`` at b178a3cd, ``compute_policy_loss_<variant>``;
* OpenRLHF ``openrlhf/models/loss.py`` at 3c3be623, ``PolicyLoss.forward`` with ``policy_loss_type="gspo"``;
* TRL ``trl/trainer/grpo_trainer.py`` at f2cd5771, ``GRPOTrainer._compute_loss`` (one process, no
  gradient accumulation).

``ppo.policy_loss`` (``policy.py``) and ``grpo.loss`` (``grpo_loss.py``) look a variant up in :data:`PPO_VARIANTS` /
:data:`GRPO_LOSS_VARIANTS`; each entry is one function, so adding a variant is one table row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import torch

from .errors import ReferenceInputError
from .masked import VERL_MEAN_EPS, agg_loss_t, masked_mean_t

#: verl ``ActorConfig.tau_pos`` / ``tau_neg`` and TRL ``GRPOConfig.sapo_temperature_pos`` / ``_neg``.
SAPO_TAU_POS = 1.0
SAPO_TAU_NEG = 1.05
#: verl GSPO clamps the combined log-ratio from above only, at this constant, before ``exp``.
GSPO_LOG_RATIO_MAX = 10.0


@dataclass(frozen=True)
class PPOVariantArgs:
    """The arguments of ``ppo.policy_loss`` after validation, as the variants need them."""

    old_log_prob: torch.Tensor
    log_prob: torch.Tensor
    advantages: torch.Tensor
    mask: torch.Tensor
    eps_lo: float
    eps_hi: float
    clip_ratio_c: float | None
    loss_agg_mode: str
    clamp_log_ratio: float | None
    tau_pos: float
    tau_neg: float
    dp_size: int
    batch_num_tokens: float | None
    global_batch_size: float | None
    loss_scale_factor: float | None

    def agg(self, loss_mat: torch.Tensor, mode: str | None = None) -> torch.Tensor:
        """verl ``agg_loss`` with this call's global-batch arguments (``config.global_batch_info``)."""
        return agg_loss_t(loss_mat, self.mask, mode or self.loss_agg_mode, self.dp_size, self.batch_num_tokens,
                          self.global_batch_size, self.loss_scale_factor)

    def clamped_log_ratio(self) -> torch.Tensor:
        raw = self.log_prob - self.old_log_prob
        c = self.clamp_log_ratio
        return raw if c is None else torch.clamp(raw, -c, c)


def _zero(like: torch.Tensor) -> torch.Tensor:
    return torch.zeros((), dtype=like.dtype, device=like.device)


def _vmean(x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """verl ``masked_mean``: Σ m·x / (Σ m + 1e-8)."""
    return masked_mean_t(x, mask, None, "verl")


def verl_gspo(a: PPOVariantArgs) -> dict[str, torch.Tensor]:
    """verl ``compute_policy_loss_gspo`` (Zheng et al. 2025, GSPO).

    log s_i = Σ_t m·(lp − old) / max(Σ_t m, 1); per token log s_{i,t} = lp − sg(lp) + sg(log s_i), clamped
    from above at 10, s_{i,t} = e^{…}: its value is s_i, its gradient ∂s_{i,t}/∂lp_t = s_i (straight
    through, each token carries the whole sequence's ratio). L = max(−A·s, −A·clip(s, 1 − ε_lo, 1 + ε_hi));
    pg_loss = agg(L, "seq-mean-token-mean") whatever ``loss_agg_mode`` says (upstream hard-codes it).
    pg_clipfrac = verl mean 1[clipped term > unclipped]; ppo_kl = verl mean of −(lp − old) (unclamped);
    pg_clipfrac_lower = 0; no dual clip.
    """
    raw = a.log_prob - a.old_log_prob
    lengths = a.mask.sum(dim=-1).clamp(min=1)
    log_seq = (raw * a.mask).sum(dim=-1) / lengths
    log_tok = a.log_prob - a.log_prob.detach() + log_seq.detach().unsqueeze(-1)
    ratio = torch.exp(torch.clamp(log_tok, max=GSPO_LOG_RATIO_MAX))
    loss1 = -a.advantages * ratio
    loss2 = -a.advantages * torch.clamp(ratio, 1 - a.eps_lo, 1 + a.eps_hi)
    per_token = torch.maximum(loss1, loss2)
    return {
        "pg_loss": a.agg(per_token, "seq-mean-token-mean"),
        "pg_clipfrac": _vmean(torch.gt(loss2, loss1).to(ratio.dtype), a.mask),
        "ppo_kl": _vmean(-raw, a.mask),
        "pg_clipfrac_lower": _zero(ratio),
        "per_token_loss": per_token,
        "seq_ratio": torch.exp(log_seq),
    }


def verl_sapo(a: PPOVariantArgs) -> dict[str, torch.Tensor]:
    """verl ``compute_policy_loss_sapo`` (Gao et al. 2025, SAPO): a soft gate instead of a hard clip.

    δ = clamp(lp − old, ±clamp_log_ratio) (upstream: ±20), r = e^δ, τ = τ_pos where A > 0 else τ_neg
    (tensors of the advantages' dtype), f(r) = σ(τ·(r − 1))·4/τ, L = −f(r)·A; pg_loss =
    agg(L, "seq-mean-token-mean") whatever ``loss_agg_mode`` says. f(1) = 2/τ, f'(1) = 1: on-policy the
    gradient equals vanilla PPO's. pg_clipfrac = pg_clipfrac_lower = 0; ppo_kl = verl mean of −δ.
    """
    delta = a.clamped_log_ratio()
    ratio = torch.exp(delta)
    tau_pos = torch.as_tensor(a.tau_pos, dtype=a.advantages.dtype, device=a.advantages.device)
    tau_neg = torch.as_tensor(a.tau_neg, dtype=a.advantages.dtype, device=a.advantages.device)
    taus = torch.where(a.advantages > 0, tau_pos, tau_neg)
    gates = torch.sigmoid(taus * (ratio - 1.0)) * (4.0 / taus)
    per_token = -gates * a.advantages
    return {
        "pg_loss": a.agg(per_token, "seq-mean-token-mean"),
        "pg_clipfrac": _zero(ratio),
        "ppo_kl": _vmean(-delta, a.mask),
        "pg_clipfrac_lower": _zero(ratio),
        "per_token_loss": per_token,
    }


def verl_cispo(a: PPOVariantArgs) -> dict[str, torch.Tensor]:
    """verl ``compute_policy_loss_cispo`` (MiniMax-M1, 2025): clip the IS weight, keep every token's gradient.

    δ = clamp(lp − old, ±clamp_log_ratio) (upstream: ±20), r = e^δ, w = sg(clip(r, 1 − ε_lo, 1 + ε_hi)),
    L = −w·A·lp (the log-prob itself, so ∂L/∂lp = −w·A even where r is clipped); pg_loss =
    agg(L, loss_agg_mode). pg_clipfrac = verl mean 1[r ≠ clip(r)]; ppo_kl = verl mean of −δ;
    pg_clipfrac_lower = 0.
    """
    delta = a.clamped_log_ratio()
    ratio = torch.exp(delta)
    clipped = torch.clamp(ratio, 1 - a.eps_lo, 1 + a.eps_hi)
    per_token = -clipped.detach() * a.advantages * a.log_prob
    return {
        "pg_loss": a.agg(per_token),
        "pg_clipfrac": _vmean(torch.ne(ratio, clipped).to(ratio.dtype), a.mask),
        "ppo_kl": _vmean(-delta, a.mask),
        "pg_clipfrac_lower": _zero(ratio),
        "per_token_loss": per_token,
    }


def verl_gpg(a: PPOVariantArgs) -> dict[str, torch.Tensor]:
    """verl ``compute_policy_loss_gpg`` (Chu et al. 2025, GPG): plain policy gradient, no ratio, no clip.

    L = −lp·A; pg_loss = agg(L, loss_agg_mode). ``old_log_prob`` is not used; upstream reports no metrics.
    """
    per_token = -a.log_prob * a.advantages
    return {"pg_loss": a.agg(per_token), "per_token_loss": per_token}


def verl_geo_mean(a: PPOVariantArgs) -> dict[str, torch.Tensor]:
    """verl ``compute_policy_loss_geo_mean`` (Zhao et al. 2025, GMPO): geometric mean of token ratios.

    δ = lp − old (unclamped), δ_c = clamp(δ, −ε_lo, ε_hi) (the clip is on the *log* ratio);
    δ̃ = sgn(A)·min(sgn(A)·δ, sgn(A)·δ_c); n_i = Σ_t m; ρ_i = exp(Σ_t m·δ̃ / (n_i + 1e-8)),
    Ā_i = Σ_t m·A / (n_i + 1e-8); per_seq_loss = −Ā·ρ; pg_loss = plain mean over all B rows (fully
    masked rows count, with loss 0); ``loss_agg_mode`` and the global-batch arguments are not used.
    pg_clipfrac = verl mean 1[δ ≠ δ_c]·1[A > 0]; pg_clipfrac_lower the same with A < 0; ppo_kl =
    verl mean of −δ.
    """
    delta = a.log_prob - a.old_log_prob
    sgn = torch.sign(a.advantages)
    delta_c = torch.clamp(delta, -a.eps_lo, a.eps_hi)
    delta_min = sgn * torch.min(sgn * delta, sgn * delta_c)
    count = a.mask.sum(dim=-1)
    ratio = torch.exp((delta_min * a.mask).sum(dim=-1) / (count + VERL_MEAN_EPS))
    adv = (a.advantages * a.mask).sum(dim=-1) / (count + VERL_MEAN_EPS)
    per_seq = -adv * ratio
    clipped = torch.ne(delta, delta_c)
    return {
        "pg_loss": torch.mean(per_seq),
        "pg_clipfrac": _vmean((clipped & (a.advantages > 0)).to(delta.dtype), a.mask),
        "ppo_kl": _vmean(-delta, a.mask),
        "pg_clipfrac_lower": _vmean((clipped & (a.advantages < 0)).to(delta.dtype), a.mask),
        "per_seq_loss": per_seq,
        "seq_ratio": ratio,
    }


def openrlhf_gspo(a: PPOVariantArgs) -> dict[str, torch.Tensor]:
    """OpenRLHF ``PolicyLoss.forward`` with ``policy_loss_type="gspo"`` (no vLLM IS correction).

    s_i = exp(Σ_t m·(lp − old) / max(Σ_t m, 1)), no clamp and no detach: the gradient goes through the
    mean, ∂s_i/∂lp_t = s_i·m_t/|y_i| (verl's straight-through gives s_i). ρ = s_i·m (0 at masked tokens);
    L = −min(ρA, clip(ρ, 1 − ε_lo, 1 + ε_hi)·A), with dual clip ``clip_ratio_c`` = OpenRLHF ``dual_clip``
    (L = −max(min(…), c·A) where A < 0; pass None for OpenRLHF's default, no dual clip).
    pg_loss is the per-sample mean (GSPO forces ``token_level_loss=False``): ℓ_i = Σ_t m·L / (Σ_t m + 1e-8),
    then Σ over rows with a counted token / their number (nan when there is none), or / global_batch_size
    · dp_size when given; ``batch_num_tokens`` and ``loss_agg_mode`` are not used. pg_clipfrac = Σm·1[ρ̂A <
    ρA]/Σm, ppo_kl = Σm·(−(lp − old))/Σm (detached); upstream has no pg_clipfrac_lower.
    """
    raw = a.log_prob - a.old_log_prob
    log_seq = (raw * a.mask).sum(dim=-1) / a.mask.sum(dim=-1).clamp(min=1)
    seq_ratio = log_seq.exp()
    ratio = seq_ratio.unsqueeze(-1) * a.mask
    surr1 = ratio * a.advantages
    surr2 = ratio.clamp(1 - a.eps_lo, 1 + a.eps_hi) * a.advantages
    inner = torch.min(surr1, surr2)
    if a.clip_ratio_c is None:
        per_token = -inner
    else:
        per_token = -torch.where(a.advantages < 0, torch.max(inner, a.clip_ratio_c * a.advantages), inner)
    counts = a.mask.sum(dim=-1)
    seq_loss = (per_token * a.mask).sum(dim=-1) / (counts + VERL_MEAN_EPS)
    seq_mask = (counts > 0).to(per_token.dtype)
    if a.global_batch_size is None:
        pg_loss = (seq_loss * seq_mask).sum() / seq_mask.sum()
    else:
        pg_loss = (seq_loss * seq_mask).sum() / a.global_batch_size * a.dp_size
    return {
        "pg_loss": pg_loss,
        "pg_clipfrac": masked_mean_t(torch.lt(surr2, surr1).to(ratio.dtype), a.mask, None, "openrlhf"),
        "ppo_kl": masked_mean_t(-raw.detach(), a.mask, None, "openrlhf"),
        "per_token_loss": per_token,
        "seq_ratio": seq_ratio,
    }


#: ``ppo.policy_loss(loss_variant=...)`` by (variant, convention). Vanilla stays in ``policy.py``.
PPO_VARIANTS: dict[tuple[str, str], Callable[[PPOVariantArgs], dict[str, torch.Tensor]]] = {
    ("gspo", "verl"): verl_gspo,
    ("gspo", "openrlhf"): openrlhf_gspo,
    ("sapo", "verl"): verl_sapo,
    ("cispo", "verl"): verl_cispo,
    ("gpg", "verl"): verl_gpg,
    ("geo_mean", "verl"): verl_geo_mean,
}
PPO_VARIANT_NAMES = ("vanilla",) + tuple(dict.fromkeys(v for v, _ in PPO_VARIANTS))


def ppo_variant(variant: str, convention: str) -> Callable[[PPOVariantArgs], dict[str, torch.Tensor]]:
    try:
        return PPO_VARIANTS[(variant, convention)]
    except KeyError:
        known = sorted(c for v, c in PPO_VARIANTS if v == variant)
        raise ReferenceInputError("convention", f"loss_variant {variant!r} is implemented for convention(s) "
                                                f"{known}, not {convention!r}") from None


# --- TRL HEAD GRPO loss types ------------------------------------------------------------------------


@dataclass(frozen=True)
class GRPOVariantArgs:
    """What TRL ``_compute_loss`` has in hand when it branches on ``loss_type``."""

    log_prob: torch.Tensor          # per_token_logps (B, T)
    coef_1: torch.Tensor            # e^{log w}: (B, T) token level, (B, 1) sequence level
    adv: torch.Tensor               # (B, 1) or (B, T)
    mask: torch.Tensor
    per_token_kl: torch.Tensor | None
    beta: float
    eps_lo: float
    eps_hi: float
    delta: float | None
    num_items: float | torch.Tensor
    tau_pos: float
    tau_neg: float

    def with_kl(self, per_token: torch.Tensor) -> torch.Tensor:
        return per_token + self.beta * self.per_token_kl if self.beta != 0.0 else per_token

    def batch_mean(self, x: torch.Tensor) -> torch.Tensor:
        """TRL ``global_masked_mean`` with one process: a (B, 1) tensor averages over rows, else Σm·x/max(Σm, 1)."""
        if x.shape[1] == 1:  # upstream tests the width only, so a T = 1 batch also averages over rows
            return x.sum() / max(float(x.shape[0]), 1.0)
        return (x * self.mask).sum() / self.mask.sum().clamp(min=1.0)

    def kl_metric(self, out: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
        if self.per_token_kl is not None:
            out["kl"] = self.batch_mean(self.per_token_kl)
        return out


def _per_row_mean(per_token: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """TRL ``grpo``/``sapo`` normalisation: mean over each row's counted tokens, then over rows."""
    return ((per_token * mask).sum(-1) / mask.sum(-1).clamp(min=1.0)).mean()


def trl_luspo(a: GRPOVariantArgs) -> dict[str, torch.Tensor]:
    """TRL ``loss_type="luspo"`` (LUSPO, 2026): GSPO's clipped term scaled by each sequence's length.

    ρ̂ = clip(w, 1 − ε, 1 + ε_high), w ← min(w, δ) if ``delta``; L = −min(w·A, ρ̂·A) (+ β·k3);
    loss = mean over every element of L·|y_i| (|y_i| = Σ_t m): with sequence-level weights (B, 1) and
    β = 0 that is mean_i |y_i|·L_i; at token level (upstream warns) or with β ≠ 0 the (B, T) product is
    averaged over all B·T positions, masked ones included, as upstream does. Clip metrics as ``grpo``.
    """
    coef_2 = torch.clamp(a.coef_1, 1 - a.eps_lo, 1 + a.eps_hi)
    coef_1 = a.coef_1 if a.delta is None else torch.clamp(a.coef_1, max=a.delta)
    per_token = a.with_kl(-torch.min(coef_1 * a.adv, coef_2 * a.adv))
    loss = (per_token * a.mask.sum(1, keepdim=True)).mean()
    low = ((coef_1 < 1 - a.eps_lo) & (a.adv < 0)).to(a.log_prob.dtype)
    high = ((coef_1 > 1 + a.eps_hi) & (a.adv > 0)).to(a.log_prob.dtype)
    return a.kl_metric({"loss": loss, "clip_ratio_low": a.batch_mean(low), "clip_ratio_high": a.batch_mean(high),
                        "clip_ratio_region": a.batch_mean(torch.maximum(low, high))})


def trl_cispo(a: GRPOVariantArgs) -> dict[str, torch.Tensor]:
    """TRL ``loss_type="cispo"`` (MiniMax-M1 as in ScaleRL): L = −sg(min(w, ε_high))·A·lp (+ β·k3).

    ε_high is an absolute cap on the weight here (ScaleRL's ε_max, recommended 5.0), and defaults to
    ``epsilon`` (0.2) like every other loss type; ``delta`` is not used. loss = Σ m·L / max(N, 1) with
    N = ``num_items_in_batch`` (default Σ m). Metric cispo_clip_ratio = share of w > ε_high with A > 0.
    """
    per_token = a.with_kl(-torch.clamp(a.coef_1, max=a.eps_hi).detach() * a.adv * a.log_prob)
    num_items = torch.as_tensor(a.num_items, dtype=per_token.dtype, device=per_token.device)
    loss = (per_token * a.mask).sum() / num_items.clamp(min=1.0)
    clipped = ((a.coef_1 > a.eps_hi) & (a.adv > 0)).to(a.log_prob.dtype)
    return a.kl_metric({"loss": loss, "cispo_clip_ratio": a.batch_mean(clipped)})


def trl_sapo(a: GRPOVariantArgs) -> dict[str, torch.Tensor]:
    """TRL ``loss_type="sapo"``: L = −σ(τ·(w − 1))·4/τ·A (+ β·k3), τ = τ_pos where A > 0 else τ_neg.

    Upstream (f2cd5771) forms the temperatures with ``torch.where(advantages > 0, pos, neg)`` on two
    Python floats; such a tensor takes torch's *default* dtype, float32 in a stock process, so τ_neg =
    1.05 becomes 1.0499999523 even when the batch is float64 (verl's SAPO casts τ to the advantages'
    dtype instead). That makes TRL's value depend on global state: under
    ``torch.set_default_dtype(torch.float64)`` its τ are float64 and each negative-advantage row's term
    moves by about (4/τ²)·σ(τ(w − 1))·|A|·δτ, δτ = 1.05 − float32(1.05) ≈ 4.8e-8. On a group-normalised
    float64 batch that is a few 1e-8 absolute and ≈1e-6 relative (the positive and negative rows nearly
    cancel in the loss): the size of the difference reported between a float64 record of TRL's sapo
    loss and the engine, whose ``torch.where`` likewise followed the calling process's default dtype.
    The engine now pins float32 temperatures explicitly (TRL's value in a stock torch process),
    whatever the caller's default dtype. The order is upstream's: (σ·4)/τ, not σ·(4/τ) as
    verl. loss = mean over rows of each row's masked token mean, as ``grpo``. No clip metrics.
    """
    # float32, as torch.where(cond, float, float) gives upstream under torch's stock default dtype
    pos = torch.tensor(a.tau_pos, dtype=torch.float32, device=a.adv.device)
    neg = torch.tensor(a.tau_neg, dtype=torch.float32, device=a.adv.device)
    temps = torch.where(a.adv > 0, pos, neg)
    soft = torch.sigmoid(temps * (a.coef_1 - 1)) * 4 / temps
    per_token = a.with_kl(-soft * a.adv)
    return a.kl_metric({"loss": _per_row_mean(per_token, a.mask)})


#: ``grpo.loss(loss_type=...)`` types that follow TRL HEAD (the four older types stay in ``grpo_loss.py``).
GRPO_LOSS_VARIANTS: dict[str, Callable[[GRPOVariantArgs], dict[str, torch.Tensor]]] = {
    "luspo": trl_luspo,
    "cispo": trl_cispo,
    "sapo": trl_sapo,
}
