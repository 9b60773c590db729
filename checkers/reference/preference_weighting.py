"""Per-token inputs of ``dpo.loss``: LD-DPO length desensitisation and WPO weighting, as TRL HEAD
``DPOTrainer._compute_loss`` (``trl/trainer/dpo_trainer.py`` at f2cd5771).

From per-token log-probs and completion masks this module builds what the loss needs: the sequence
log-probs (plain masked sums, or LD-DPO's shared-prefix + α·tail sums), the completion lengths, and the
WPO pair weights. The loss formulas themselves stay in :mod:`preference`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from .errors import ReferenceInputError
from .tensors import require_mask, require_ndim, require_same_shape


@dataclass(frozen=True)
class PairInputs:
    """Sequence-level inputs of one ``dpo.loss`` call, built from per-token tensors."""

    chosen_logps: torch.Tensor
    rejected_logps: torch.Tensor
    ref_chosen_logps: torch.Tensor
    ref_rejected_logps: torch.Tensor
    chosen_lengths: torch.Tensor
    rejected_lengths: torch.Tensor
    chosen_weights: torch.Tensor | None
    rejected_weights: torch.Tensor | None


def masked_token_logps(token_logps: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """TRL's ``per_token_logps[mask == 0] = 0``: an assignment, so whatever sits at a non-completion position
    (even nan) is dropped and gets no gradient."""
    return torch.where(mask == 0, torch.zeros_like(token_logps), token_logps)


def ld_masks(mask: torch.Tensor, shared_lens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """LD-DPO's split of a row's tokens: with p_t the count of completion tokens up to t (cumsum of the
    mask), ``shared`` is 1 ≤ p_t ≤ ℓ_shared, ``tail`` is p_t > ℓ_shared (ℓ_shared = min(ℓ_c, ℓ_r) of the pair)."""
    pos = torch.cumsum(mask, dim=1)
    lim = shared_lens.unsqueeze(1)
    return (pos > 0) & (pos <= lim), pos > lim


def ld_sequence_logps(token_logps: torch.Tensor, shared: torch.Tensor, tail: torch.Tensor,
                      ld_alpha: float) -> torch.Tensor:
    """Σ_shared log p + α·Σ_tail log p (LD-DPO, arXiv:2409.06411, as TRL): the part of the
    longer response beyond the shorter one's length counts with weight α."""
    return (token_logps * shared).sum(dim=1) + ld_alpha * (token_logps * tail).sum(dim=1)


def wpo_log_denom(logits: torch.Tensor) -> torch.Tensor:
    """log Σ_v p_v² per position = logsumexp(2·log_softmax(z)), (B, T) from (B, T, V).

    As TRL ``DPOTrainer`` (``weights_adjustment_factor``). The equal logsumexp(2z) − 2·logsumexp(z) is
    not used: its two terms are each about 2·max(z) and cancel, which loses the float32 value for logits
    near 10⁴, while log_softmax subtracts the maximum first.
    """
    return torch.logsumexp(2.0 * torch.log_softmax(logits, dim=-1), dim=-1)


def wpo_weights(token_logps: torch.Tensor, mask: torch.Tensor, log_denom: torch.Tensor) -> torch.Tensor:
    """WPO weight of each response (WPO, arXiv:2406.11827 eq. 2, length-normalised as TRL):
    w = exp(Σ_t m_t·(log p_t − log Σ_v p_v²) / max(Σ_t m_t, 1)). Detached (TRL computes it under no_grad)."""
    with torch.no_grad():
        aligned = (token_logps.detach() - log_denom.detach()) * mask
        return torch.exp(aligned.sum(dim=1) / mask.sum(dim=1).clamp_min(1))


def _check_tokens(logps: torch.Tensor, logps_name: str, mask: torch.Tensor, mask_name: str) -> None:
    require_ndim(logps, logps_name, 2)
    require_same_shape(**{logps_name: logps, mask_name: mask})
    require_mask(mask, mask_name)


def _log_denom(logits: torch.Tensor | None, log_denom: torch.Tensor | None, side: str,
               like: torch.Tensor) -> torch.Tensor:
    if (logits is None) == (log_denom is None):
        raise ReferenceInputError(f"{side}_logits",
                                  f"use_weighting needs exactly one of {side}_logits (B, T, V) and {side}_log_denom (B, T)")
    if logits is not None:
        require_ndim(logits, f"{side}_logits", 3)
        if logits.shape[:2] != like.shape:
            raise ReferenceInputError(f"{side}_logits", f"must have shape {tuple(like.shape)} + (V,)")
        return wpo_log_denom(logits.detach())
    assert log_denom is not None
    require_same_shape(**{f"{side}_token_logps": like, f"{side}_log_denom": log_denom})
    return log_denom.detach()


def pair_inputs_from_tokens(chosen_token_logps: torch.Tensor, rejected_token_logps: torch.Tensor,
                            chosen_mask: torch.Tensor | None, rejected_mask: torch.Tensor | None,
                            ref_chosen_logps: torch.Tensor | None, ref_rejected_logps: torch.Tensor | None,
                            ref_chosen_token_logps: torch.Tensor | None,
                            ref_rejected_token_logps: torch.Tensor | None, ld_alpha: float | None,
                            use_weighting: bool, chosen_logits: torch.Tensor | None,
                            rejected_logits: torch.Tensor | None, chosen_log_denom: torch.Tensor | None,
                            rejected_log_denom: torch.Tensor | None) -> PairInputs:
    """Sequence log-probs, lengths and WPO weights from per-token inputs (TRL HEAD ``_compute_loss``).

    The reference is either given per token (then summed with the same LD split as the policy) or as
    sequence log-probs, used as given (TRL's precomputed reference log-probs).
    """
    if chosen_mask is None or rejected_mask is None:
        raise ReferenceInputError("chosen_mask" if chosen_mask is None else "rejected_mask",
                                  "per-token log-probs need chosen_mask and rejected_mask")
    _check_tokens(chosen_token_logps, "chosen_token_logps", chosen_mask, "chosen_mask")
    _check_tokens(rejected_token_logps, "rejected_token_logps", rejected_mask, "rejected_mask")
    if chosen_token_logps.shape[0] != rejected_token_logps.shape[0]:
        raise ReferenceInputError("rejected_token_logps", "needs as many rows as chosen_token_logps")
    if chosen_token_logps.shape[0] == 0:
        raise ReferenceInputError("chosen_token_logps", "needs at least one pair")
    if ld_alpha is not None and not (math.isfinite(ld_alpha) and 0.0 <= ld_alpha <= 1.0):
        raise ReferenceInputError("ld_alpha", "must lie in [0, 1] (TRL DPOConfig: 1 = no down-weighting, 0 = drop the tail)")
    seq_ref = (ref_chosen_logps is not None, ref_rejected_logps is not None)
    tok_ref = (ref_chosen_token_logps is not None, ref_rejected_token_logps is not None)
    if seq_ref != (True, True) and tok_ref != (True, True) or (any(seq_ref) and any(tok_ref)):
        raise ReferenceInputError("ref_chosen_logps", "give the reference either as ref_chosen_logps and "
                                  "ref_rejected_logps (B,) or as ref_chosen_token_logps and ref_rejected_token_logps")

    cm, rm = chosen_mask.detach(), rejected_mask.detach()
    len_c, len_r = cm.sum(dim=1), rm.sum(dim=1)
    if ld_alpha is None:
        def seq(tok: torch.Tensor, mask: torch.Tensor, side: str) -> torch.Tensor:
            return masked_token_logps(tok, mask).sum(dim=1)
    else:
        shared_lens = torch.minimum(len_c, len_r)
        split = {"chosen": ld_masks(cm, shared_lens), "rejected": ld_masks(rm, shared_lens)}

        def seq(tok: torch.Tensor, mask: torch.Tensor, side: str) -> torch.Tensor:
            return ld_sequence_logps(masked_token_logps(tok, mask), *split[side], ld_alpha)

    pc, pr = seq(chosen_token_logps, cm, "chosen"), seq(rejected_token_logps, rm, "rejected")
    if ref_chosen_token_logps is not None and ref_rejected_token_logps is not None:
        require_same_shape(chosen_token_logps=chosen_token_logps, ref_chosen_token_logps=ref_chosen_token_logps)
        require_same_shape(rejected_token_logps=rejected_token_logps, ref_rejected_token_logps=ref_rejected_token_logps)
        rc, rr = seq(ref_chosen_token_logps, cm, "chosen"), seq(ref_rejected_token_logps, rm, "rejected")
    else:
        assert ref_chosen_logps is not None and ref_rejected_logps is not None
        rc, rr = ref_chosen_logps, ref_rejected_logps

    w_c = w_r = None
    if use_weighting:
        den_c = _log_denom(chosen_logits, chosen_log_denom, "chosen", chosen_token_logps)
        den_r = _log_denom(rejected_logits, rejected_log_denom, "rejected", rejected_token_logps)
        w_c = wpo_weights(masked_token_logps(chosen_token_logps, cm), cm, den_c)
        w_r = wpo_weights(masked_token_logps(rejected_token_logps, rm), rm, den_r)
    elif any(t is not None for t in (chosen_logits, rejected_logits, chosen_log_denom, rejected_log_denom)):
        raise ReferenceInputError("use_weighting", "logits / log_denom are only used with use_weighting=True")
    return PairInputs(pc, pr, rc, rr, len_c, len_r, w_c, w_r)
