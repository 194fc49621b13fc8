"""Activation checkpointing: peak traced memory during the forward of a 20-layer MLP
(matmul + relu, width 512, batch 256, float32), checkpointed vs plain hookgrad
(target: ratio <= 0.5). NumPy reports its allocations to ``tracemalloc``."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np

import hookgrad
from hookgrad.utils.checkpoint import checkpoint, checkpoint_sequential

LAYERS = 20
WIDTH = 512
BATCH = 256


def forward_peak(run) -> int:
    """Peak bytes allocated while ``run()`` builds the graph; backward runs afterwards."""
    gc.collect()
    tracemalloc.start()
    try:
        out = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    out.sum().backward()
    return peak


def main() -> None:
    rng = np.random.default_rng(0)
    weights = [
        hookgrad.tensor(
            (rng.standard_normal((WIDTH, WIDTH)) / np.sqrt(WIDTH)).astype(np.float32),
            requires_grad=True,
        )
        for _ in range(LAYERS)
    ]
    x = hookgrad.tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    layers = [lambda h, w=w: (h @ w).relu() for w in weights]

    def plain():
        h = x
        for layer in layers:
            h = layer(h)
        return h

    def whole():
        return checkpoint(plain, use_reentrant=False)

    def segments():
        return checkpoint_sequential(layers, 4, x, use_reentrant=False)

    baseline = forward_peak(plain)
    print(f"checkpoint memory: {LAYERS}-layer MLP forward, plain peak {baseline / 2**20:.1f} MiB")
    for name, run in (("checkpoint(whole MLP)", whole), ("checkpoint_sequential(4)", segments)):
        peak = forward_peak(run)
        ratio = peak / baseline
        verdict = "meets" if ratio <= 0.5 else "misses"
        print(
            f"  {name:<26} peak {peak / 2**20:6.1f} MiB   ratio {ratio:4.2f}  "
            f"({verdict} target 0.50)"
        )


if __name__ == "__main__":
    main()
