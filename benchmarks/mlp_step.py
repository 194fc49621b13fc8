"""MLP train step 784-512-512-10, batch 128: forward, cross-entropy-like loss, backward,
manual SGD update; hookgrad vs torch in the same run (target: ratio <= 0.75)."""

from __future__ import annotations

import numpy as np

import hookgrad
from benchmarks.common import best_time, report

SIZES = (784, 512, 512, 10)
BATCH = 128


def make_params(lib, rng):
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(fan_in)
        w = rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32)
        b = rng.uniform(-bound, bound, (fan_out,)).astype(np.float32)
        params += [lib.tensor(w, requires_grad=True), lib.tensor(b, requires_grad=True)]
    return params


def train_step(lib, params, x, target):
    def step():
        h = x
        for i in range(0, len(params), 2):
            h = h @ params[i].T + params[i + 1]
            if i + 2 < len(params):
                h = h.relu()
        loss = (h.log_softmax(dim=1) * target).sum() * (-1.0 / BATCH)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.data = p.data - 0.01 * p.grad
                p.grad = None

    return step


def main() -> None:
    import torch

    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    target = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]
    torch.set_num_threads(2)
    results = {}
    for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
        params = make_params(lib, np.random.default_rng(1))
        step = train_step(lib, params, lib.tensor(x), lib.tensor(target))
        results[name] = best_time(step, repeat=9, number=3)
    report("MLP 784-512-512-10 step", results["hookgrad"], results["torch"], target=0.75)


if __name__ == "__main__":
    main()
