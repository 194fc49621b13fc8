"""``F.scaled_dot_product_attention`` (float32, batch 8, 8 heads, 128 positions, head dim
64, causal): forward and backward of query, key and value; hookgrad vs torch in the same
run (target: ratio <= 1.5). Both run their flash-attention node."""

from __future__ import annotations

import numpy as np

import hookgrad
from benchmarks.common import best_time, report

BATCH, HEADS, LENGTH, HEAD_DIM = 8, 8, 128, 64
CAUSAL = True


def train_step(lib, arrays, grad):
    q, k, v = (lib.tensor(a, requires_grad=True) for a in arrays)

    def step():
        out = lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=CAUSAL)
        out.backward(grad)
        q.grad = k.grad = v.grad = None

    return step


def main() -> None:
    import torch

    rng = np.random.default_rng(0)
    shape = (BATCH, HEADS, LENGTH, HEAD_DIM)
    arrays = [rng.standard_normal(shape).astype(np.float32) for _ in range(3)]
    grad = rng.standard_normal(shape).astype(np.float32)
    torch.set_num_threads(2)
    results = {}
    for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
        step = train_step(lib, arrays, lib.tensor(grad))
        results[name] = best_time(step, repeat=9, number=3)
    report("SDPA 8x8x128x64 causal", results["hookgrad"], results["torch"], target=1.5)


if __name__ == "__main__":
    main()
