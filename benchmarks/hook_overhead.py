"""Hook overhead: the MLP step of ``mlp_step.py`` (784-512-512-10, batch 128) built from
``nn.Linear``/``nn.ReLU`` in an ``nn.Sequential``, with a forward hook and a full backward
hook on every module and a tensor hook on every parameter, against the same step without
hooks. Target: hooked / plain at most 1.10x; torch's own ratio is printed alongside."""

from __future__ import annotations

import numpy as np

import hookgrad
from benchmarks.common import best_time

SIZES = (784, 512, 512, 10)
BATCH = 128
TARGET = 1.10


def make_model(lib):
    nn = lib.nn
    layers = []
    rng = np.random.default_rng(1)
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        linear = nn.Linear(fan_in, fan_out)
        bound = 1 / np.sqrt(fan_in)
        with lib.no_grad():
            linear.weight.copy_(lib.tensor(rng.uniform(-bound, bound, (fan_out, fan_in))))
            linear.bias.copy_(lib.tensor(rng.uniform(-bound, bound, (fan_out,))))
        layers += [linear, nn.ReLU()]
    return nn.Sequential(*layers[:-1])


def add_hooks(model):
    for module in model.modules():
        module.register_forward_hook(lambda m, args, out: None)
        module.register_full_backward_hook(lambda m, grad_input, grad_output: None)
    for param in model.parameters():
        param.register_hook(lambda grad: None)


def train_step(lib, model, x, target):
    params = list(model.parameters())

    def step():
        loss = (model(x).log_softmax(dim=1) * target).sum() * (-1.0 / BATCH)
        loss.backward()
        with lib.no_grad():
            for p in params:
                p.data = p.data - 0.01 * p.grad
                p.grad = None

    return step


def interleaved_best(steps, repeat: int = 15, number: int = 2) -> list[float]:
    """Best time per call of each step, timing them in turns (fair under a noisy load)."""
    best = [float("inf")] * len(steps)
    for step in steps:
        step()  # warm-up
    for _ in range(repeat):
        for i, step in enumerate(steps):
            best[i] = min(best[i], best_time(step, repeat=1, number=number))
    return best


def main() -> None:
    import torch

    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    target = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]
    torch.set_num_threads(2)
    ratios = {}
    for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
        steps = []
        for hooked in (False, True):
            model = make_model(lib)
            if hooked:
                add_hooks(model)
            # NOTE: the input requires grad, so the full backward hooks get a grad_input.
            inputs = lib.tensor(x, requires_grad=True)
            steps.append(train_step(lib, model, inputs, lib.tensor(target)))
        plain, hooked_time = interleaved_best(steps)
        ratios[name] = hooked_time / plain
        print(
            f"{'hook overhead ' + name:<32} plain {plain * 1e3:9.3f} ms   hooked "
            f"{hooked_time * 1e3:9.3f} ms   ratio {ratios[name]:5.2f}x"
        )
    verdict = "meets" if ratios["hookgrad"] <= TARGET else "misses"
    print(
        f"{'hook overhead':<32} hookgrad {ratios['hookgrad']:5.2f}x vs torch "
        f"{ratios['torch']:5.2f}x  ({verdict} target {TARGET:.2f}x)"
    )


if __name__ == "__main__":
    main()
