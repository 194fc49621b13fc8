"""Per-sample gradients and DP-SGD, batch 64, for the MLP (784-512-512-10) of
``mlp_step.py`` and the CNN of ``cnn_step.py`` as ``nn`` modules: a plain training step,
the same step with hook-based per-sample gradients (``p.grad_sample`` for every
parameter; targets: <= 2x the plain step and >= 10x faster than the per-example loop),
the per-example loop (64 backward passes of one example), and a DP-SGD step
(``make_private``'s clipping and noise; target <= 2.5x the plain step); torch's plain
step and its ``vmap(grad)`` per-sample gradients in the same run, for reference."""

from __future__ import annotations

from typing import Any

import numpy as np

import hookgrad
from benchmarks.common import best_time
from hookgrad.utils.per_sample import PerSampleGrads, per_sample_grads
from hookgrad.utils.privacy import DPOptimizer

BATCH = 64


def mlp(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)
    )


def cnn(lib: Any) -> Any:
    nn = lib.nn
    return nn.Sequential(
        nn.Conv2d(1, 32, 3),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(64 * 5 * 5, 10),
    )


def _loss(lib: Any, model: Any, x: Any, y: Any) -> Any:
    return lib.nn.functional.cross_entropy(model(x), y)


def plain_step(lib: Any, model: Any, x: Any, y: Any) -> Any:
    optimizer = lib.optim.SGD(model.parameters(), lr=0.01)

    def step() -> None:
        optimizer.zero_grad()
        _loss(lib, model, x, y).backward()
        optimizer.step()

    return step


def per_sample_step(model: Any, x: Any, y: Any) -> Any:
    optimizer = hookgrad.optim.SGD(model.parameters(), lr=0.01)
    hooks = per_sample_grads(model)

    def step() -> None:
        optimizer.zero_grad()
        hooks.clear()
        _loss(hookgrad, model, x, y).backward()
        optimizer.step()

    return step


def loop_step(model: Any, x: Any, y: Any) -> Any:
    """Per-sample gradients the slow way: one backward pass per example."""
    params = list(model.parameters())
    optimizer = hookgrad.optim.SGD(params, lr=0.01)

    def step() -> None:
        rows: list[list[np.ndarray]] = [[] for _ in params]
        for i in range(BATCH):
            optimizer.zero_grad()
            _loss(hookgrad, model, x[i : i + 1], y[i : i + 1]).backward()
            for row, p in zip(rows, params):
                row.append(p.grad._data)
        for row, p in zip(rows, params):
            p.grad_sample = np.stack(row)

    return step


def dp_step(model: Any, x: Any, y: Any) -> Any:
    hooks = PerSampleGrads(model, materialize=False)
    optimizer = DPOptimizer(
        hookgrad.optim.SGD(model.parameters(), lr=0.01),
        hooks,
        noise_multiplier=1.0,
        max_grad_norm=1.0,
        expected_batch_size=BATCH,
        sample_rate=0.01,
    )

    def step() -> None:
        optimizer.zero_grad()
        _loss(hookgrad, model, x, y).backward()
        optimizer.step()

    return step


def torch_vmap_step(torch: Any, model: Any, x: Any, y: Any) -> Any:
    from torch.func import functional_call, grad, vmap

    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(params: Any, xi: Any, yi: Any) -> Any:
        out = functional_call(model, params, (xi.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(out, yi.unsqueeze(0))

    per_example = vmap(grad(loss), in_dims=(None, 0, 0))
    return lambda: per_example(params, x, y)


def run(name: str, build: Any, shape: tuple[int, ...]) -> None:
    import torch

    rng = np.random.default_rng(0)
    x_array = rng.standard_normal((BATCH,) + shape).astype(np.float32)
    y_array = rng.integers(0, 10, BATCH)
    x, y = hookgrad.tensor(x_array), hookgrad.tensor(y_array)
    hookgrad.manual_seed(0)
    times = {
        "plain": best_time(plain_step(hookgrad, build(hookgrad), x, y), repeat=7, number=3),
        "per-sample": best_time(per_sample_step(build(hookgrad), x, y), repeat=7, number=3),
        "loop": best_time(loop_step(build(hookgrad), x, y), repeat=3, number=1),
        "dp": best_time(dp_step(build(hookgrad), x, y), repeat=7, number=3),
    }
    tx, ty = torch.tensor(x_array), torch.tensor(y_array)
    torch_plain = best_time(plain_step(torch, build(torch), tx, ty), repeat=7, number=3)
    torch_vmap = best_time(torch_vmap_step(torch, build(torch), tx, ty), repeat=7, number=3)
    plain = times["plain"]
    print(
        f"{name} batch {BATCH}: plain step {plain * 1e3:.2f} ms (torch {torch_plain * 1e3:.2f} ms)"
    )
    print(
        f"  per-sample grads  {times['per-sample'] * 1e3:8.2f} ms  "
        f"{times['per-sample'] / plain:5.2f}x plain (target <= 2)  "
        f"{times['loop'] / times['per-sample']:5.1f}x faster than the loop (target >= 10)"
    )
    print(f"  per-example loop  {times['loop'] * 1e3:8.2f} ms")
    print(
        f"  DP-SGD step       {times['dp'] * 1e3:8.2f} ms  "
        f"{times['dp'] / plain:5.2f}x plain (target <= 2.5)"
    )
    print(f"  torch vmap(grad)  {torch_vmap * 1e3:8.2f} ms (per-sample grads, no step)")


def main() -> None:
    import torch

    torch.set_num_threads(2)
    run("MLP 784-512-512-10", mlp, (784,))
    run("CNN 2 conv + 2 pool + linear", cnn, (1, 28, 28))


if __name__ == "__main__":
    main()
