"""Per-op autograd overhead: a chain of 200 elementwise ops on a 16-element tensor,
forward and backward, hookgrad vs torch in the same run (target: ratio <= 0.8)."""

from __future__ import annotations

import hookgrad
from benchmarks.common import best_time, report

LENGTH = 200


def chain_step(lib, x):
    def step():
        y = x
        for _ in range(LENGTH // 4):
            y = y * 0.5
            y = y + 0.1
            y = y.exp()
            y = y - 1.0
        y.sum().backward()
        x.grad = None

    return step


def main() -> None:
    import numpy as np
    import torch

    data = np.random.default_rng(0).standard_normal(16).astype(np.float32) * 0.1
    ours = best_time(
        chain_step(hookgrad, hookgrad.tensor(data, requires_grad=True)), repeat=9, number=5
    )
    theirs = best_time(
        chain_step(torch, torch.tensor(data, requires_grad=True)), repeat=9, number=5
    )
    report(f"op chain ({LENGTH} ops) fwd+bwd", ours, theirs, target=0.8)
    print(f"  per op: hookgrad {ours / LENGTH * 1e6:.1f} us, torch {theirs / LENGTH * 1e6:.1f} us")


if __name__ == "__main__":
    main()
