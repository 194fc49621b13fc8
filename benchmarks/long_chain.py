"""A long chain: ``steps`` times ``y = y * 0.999 + 0.001`` on a 16-element tensor (two
nodes a step), forward and backward, hookgrad vs torch in the same run. Target: per node
at most 1.0x torch at 10,000 steps (20,000 nodes), and a per-node time that stays flat
from 1,000 to 100,000 steps (no super-linear cost in the engine or in freeing the graph).
"""

from __future__ import annotations

import numpy as np

import hookgrad
from benchmarks.common import best_time, report

STEPS = (1_000, 10_000, 100_000)


def chain(lib, x, steps):
    def run():
        y = x
        for _ in range(steps):
            y = y * 0.999
            y = y + 0.001
        y.sum().backward()
        x.grad = None

    return run


def main() -> None:
    import torch

    data = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    per_node = {}
    for steps in STEPS:
        repeat = 5 if steps <= 10_000 else 1
        times = {}
        for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
            x = lib.tensor(data, requires_grad=True)
            times[name] = best_time(chain(lib, x, steps), repeat=repeat)
        per_node[steps] = {name: t / (2 * steps) for name, t in times.items()}
        print(
            f"  {steps:>7} steps: per node hookgrad {per_node[steps]['hookgrad'] * 1e6:6.2f} us"
            f", torch {per_node[steps]['torch'] * 1e6:6.2f} us"
        )
    report(
        "chain of 20,000 nodes fwd+bwd",
        per_node[10_000]["hookgrad"] * 20_000,
        per_node[10_000]["torch"] * 20_000,
        target=1.0,
    )
    growth = per_node[STEPS[-1]]["hookgrad"] / per_node[STEPS[0]]["hookgrad"]
    verdict = "flat" if growth <= 1.25 else "NOT flat"
    print(f"  per-node time, 100,000 vs 1,000 steps: {growth:.2f}x ({verdict}: target <= 1.25x)")


if __name__ == "__main__":
    main()
