"""Small CNN train step, batch 64 of 1x28x28: conv 1->32 3x3, relu, max-pool 2, conv
32->64 3x3, relu, max-pool 2, linear to 10; forward, cross-entropy-like loss, backward,
manual SGD update; hookgrad vs torch in the same run (target: ratio <= 1.2)."""

from __future__ import annotations

import numpy as np

import hookgrad
from benchmarks.common import best_time, report

BATCH = 64
SHAPES = ((32, 1, 3, 3), (32,), (64, 32, 3, 3), (64,), (10, 64 * 5 * 5), (10,))


def make_params(lib, rng):
    params = []
    for shape in SHAPES:
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
        bound = 1 / np.sqrt(fan_in)
        array = rng.uniform(-bound, bound, shape).astype(np.float32)
        params.append(lib.tensor(array, requires_grad=True))
    return params


def train_step(lib, params, x, target):
    F = lib.nn.functional
    w1, b1, w2, b2, w3, b3 = params

    def step():
        h = F.max_pool2d(F.conv2d(x, w1, b1).relu(), 2)
        h = F.max_pool2d(F.conv2d(h, w2, b2).relu(), 2)
        logits = h.reshape(BATCH, -1) @ w3.T + b3
        loss = (logits.log_softmax(dim=1) * target).sum() * (-1.0 / BATCH)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.data = p.data - 0.01 * p.grad
                p.grad = None

    return step


def main() -> None:
    import torch

    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    target = np.eye(10, dtype=np.float32)[rng.integers(0, 10, BATCH)]
    torch.set_num_threads(2)
    results = {}
    for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
        params = make_params(lib, np.random.default_rng(1))
        step = train_step(lib, params, lib.tensor(x), lib.tensor(target))
        results[name] = best_time(step, repeat=7, number=2)
    report("CNN 2 conv + 2 pool + linear step", results["hookgrad"], results["torch"], target=1.2)


if __name__ == "__main__":
    main()
