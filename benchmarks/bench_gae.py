"""Benchmark: the engine's GAE (verl convention, holes in the mask) against a per-timestep Python loop.

Run: python benchmarks/bench_gae.py [--batch 256] [--length 4096] [--device cpu]

The engine is timed through ``reference.call("advantages.gae", ...)``, argument checking included, as a
notebook user would call it.
"""

from __future__ import annotations

import argparse
import time

import torch

from checkers import reference


def loop_gae(rewards, values, mask, gamma, lam):
    """The baseline a user would write: verl's reverse loop over t with tensor ops per step."""
    B, T = rewards.shape
    nextvalues = torch.zeros(B, dtype=rewards.dtype, device=rewards.device)
    lastgaelam = torch.zeros(B, dtype=rewards.dtype, device=rewards.device)
    out = [None] * T
    for t in reversed(range(T)):
        m = mask[:, t]
        delta = rewards[:, t] + gamma * nextvalues - values[:, t]
        candidate = delta + gamma * lam * lastgaelam
        nextvalues = values[:, t] * m + (1 - m) * nextvalues
        lastgaelam = candidate * m + (1 - m) * lastgaelam
        out[t] = lastgaelam
    adv = torch.stack(out, dim=1)
    return adv, adv + values


def make_batch(B, T, device, seed=0):
    g = torch.Generator().manual_seed(seed)
    rewards = torch.randn(B, T, generator=g, dtype=torch.float64)
    values = torch.randn(B, T, generator=g, dtype=torch.float64)
    lengths = torch.randint(T // 2, T + 1, (B,), generator=g)
    mask = (torch.arange(T).unsqueeze(0) < lengths.unsqueeze(1)).double()
    holes = torch.rand(B, T, generator=g) < 0.1  # e.g. tool-output / observation tokens
    mask = mask * (~holes).double()
    return rewards.to(device), values.to(device), mask.to(device)


def timed(fn, repeats, device):
    best = float("inf")
    result = None
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        result = fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--length", type=int, default=4096)
    parser.add_argument("--gamma", type=float, default=0.99)
    parser.add_argument("--lam", type=float, default=0.95)
    parser.add_argument("--repeats", type=int, default=5)  # best-of: the 2-core machine is shared
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    device = torch.device(args.device)
    rewards, values, mask = make_batch(args.batch, args.length, device)

    def engine():
        out = reference.call("advantages.gae", rewards=rewards, values=values, mask=mask, gamma=args.gamma,
                             lam=args.lam, device=str(device))
        return out["advantages"], out["returns"]

    t_engine, (adv_e, ret_e) = timed(engine, args.repeats, device)
    t_loop, (adv_l, ret_l) = timed(lambda: loop_gae(rewards, values, mask, args.gamma, args.lam), args.repeats, device)
    diff = max((adv_e - adv_l).abs().max().item(), (ret_e - ret_l).abs().max().item())
    print(f"GAE verl convention, batch ({args.batch}, {args.length}), float64, device {device}, "
          f"{int(mask.sum().item())} counted tokens, best of {args.repeats}")
    print(f"engine      : {t_engine * 1e3:9.1f} ms")
    print(f"python loop : {t_loop * 1e3:9.1f} ms")
    print(f"speed-up    : {t_loop / t_engine:9.1f} x")
    print(f"max |diff|  : {diff:.3e}")
    ok = t_loop / t_engine >= 5 and diff <= 1e-12
    print("PASS" if ok else "FAIL (needs >= 5x and max |diff| <= 1e-12)")


if __name__ == "__main__":
    main()
