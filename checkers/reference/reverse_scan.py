"""Reverse linear recurrences x_t = b_t + a_t·x_{t+1} over the last axis of a (B, T) tensor, evaluated in
chunks with no per-timestep Python loop and no division (so a_t = 0 is fine): the engine of every
discounted return and GAE in :mod:`checkers.reference.advantages`.

A non-finite input falls back to the one-step-at-a-time loop the upstream implementations run (verl
``compute_gae_advantage_return``, OpenRLHF ``get_advantages_and_returns``), so IEEE arithmetic matches
theirs exactly.
"""

from __future__ import annotations

import math

import torch

SCAN_CHUNK = 64


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

