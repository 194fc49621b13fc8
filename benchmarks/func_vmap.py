"""Per-example gradients with ``func.vmap(func.grad(...))``: the MLP 784-512-512-10 at
batch 64 (``functional_call``, cross-entropy on each example), hookgrad vs torch's
``torch.func`` in the same run (target: ratio <= 1.5)."""

from __future__ import annotations

import numpy as np

import hookgrad
from benchmarks.common import best_time, report

SIZES = (784, 512, 512, 10)
BATCH = 64


def make_model(lib, rng):
    layers = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        layers += [lib.nn.Linear(fan_in, fan_out), lib.nn.ReLU()]
    model = lib.nn.Sequential(*layers[:-1])
    with lib.no_grad():
        for p in model.parameters():
            bound = 1 / np.sqrt(p.shape[-1])
            p.copy_(lib.tensor(rng.uniform(-bound, bound, tuple(p.shape)).astype(np.float32)))
    return model


def per_example_grads(lib, model, x, target):
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss(params, example, label):
        out = lib.func.functional_call(model, params, (example.unsqueeze(0),))
        return lib.nn.functional.cross_entropy(out, label.unsqueeze(0))

    compute = lib.func.vmap(lib.func.grad(loss), in_dims=(None, 0, 0))
    return lambda: compute(params, x, target)


def main() -> None:
    import torch

    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    target = rng.integers(0, SIZES[-1], BATCH)
    torch.set_num_threads(2)
    results = {}
    for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
        model = make_model(lib, np.random.default_rng(1))
        step = per_example_grads(lib, model, lib.tensor(x), lib.tensor(target))
        results[name] = best_time(step, repeat=7, number=1)
    report("vmap(grad) MLP, batch 64", results["hookgrad"], results["torch"], target=1.5)


if __name__ == "__main__":
    main()
