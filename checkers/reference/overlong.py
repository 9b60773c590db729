"""DAPO's soft overlong punishment as verl applies it (contract §6, ``reward.overlong_penalty``).

Authority: verl ``verl/workers/reward_manager/dapo.py::DAPORewardManager.__call__`` at b178a3cd (the
``overlong_buffer_cfg`` branch; ``verl/experimental/reward_loop/reward_manager/dapo.py`` computes the same).
The algorithm is DAPO's "soft overlong punishment" (Yu et al. 2025, arXiv:2503.14476, §3.4, eq. 13).
Re-implemented, not copied.
"""

from __future__ import annotations

import math

import torch

from .errors import ReferenceInputError
from .registry import Param, register
from .tensors import TensorContext


@register("reward.overlong_penalty",
          params=[Param("response_length", "tensor", shape="(...)", role="lengths", range=(1, 24),
                        doc="counted response tokens per sample"),
                  Param("max_resp_len", "int", range=(16, 24), doc="L_max: the generation limit"),
                  Param("overlong_buffer_len", "int", range=(4, 8),
                        doc="L_cache: the penalty ramps up over the last this many"),
                  Param("overlong_penalty_factor", "float", 1.0, doc="penalty at the limit")],
          outputs=["overlong_reward", "overlong"],
          examples=[{"response_length": [100, 3000, 3584, 3600, 4096], "max_resp_len": 4096,
                     "overlong_buffer_len": 512}])
def reward_overlong_penalty(ctx: TensorContext, response_length: torch.Tensor, max_resp_len: int,
                            overlong_buffer_len: int, overlong_penalty_factor: float) -> dict[str, torch.Tensor]:
    """Soft overlong penalty added to the score, as verl's DAPO reward manager (b178a3cd).

    With expected = max_resp_len − overlong_buffer_len and exceed = length − expected:
    overlong_reward = min(−exceed/overlong_buffer_len·overlong_penalty_factor, 0), so 0 up to ``expected``
    tokens, then a linear ramp reaching −factor at ``max_resp_len``; overlong = 1 where overlong_reward < 0,
    else 0. Both in the requested dtype (upstream: a float32 tensor from the int length). The DAPO paper
    (§3.4, eq. 13) adds a third branch, −1 for |y| > L_max; verl has no such floor (its rollouts never
    exceed ``max_resp_len``), so here the ramp simply continues past the limit. Differentiable in the
    length like ``min`` (gradient −factor/buffer where the penalty is active, including exceed = 0).
    Errors: ``overlong_buffer_len`` ≤ 0, ``max_resp_len`` < ``overlong_buffer_len`` (upstream asserts it),
    a negative or non-finite length or a negative or non-finite factor.
    """
    for value, name in ((max_resp_len, "max_resp_len"), (overlong_buffer_len, "overlong_buffer_len")):
        if abs(value) > 2 ** 53:  # beyond exact float64 integers (and torch's int64 scalars)
            raise ReferenceInputError(name, "is too large")
    if overlong_buffer_len <= 0:
        raise ReferenceInputError("overlong_buffer_len", "must be a positive number of tokens")
    if max_resp_len < overlong_buffer_len:
        raise ReferenceInputError("max_resp_len", "must be at least overlong_buffer_len (as verl asserts)")
    if not math.isfinite(overlong_penalty_factor) or overlong_penalty_factor < 0:
        raise ReferenceInputError("overlong_penalty_factor", "must be a finite non-negative number")
    with torch.no_grad():
        if not torch.isfinite(response_length).all().item():
            raise ReferenceInputError("response_length", "must be finite")
        if (response_length < 0).any().item():
            raise ReferenceInputError("response_length", "lengths must be non-negative")
    expected_len = max_resp_len - overlong_buffer_len
    exceed_len = response_length - expected_len
    # Upstream's order: (−exceed / buffer) · factor, then Python's min with 0.
    reward = torch.clamp(-exceed_len / overlong_buffer_len * overlong_penalty_factor, max=0.0)
    return {"overlong_reward": reward, "overlong": (reward < 0).to(reward.dtype)}
