"""DP-SGD on the demo's digits CNN: held-out accuracy at epsilon 1, 3 and 10 (delta 1e-5)
beside the same training without privacy.

    python examples/dp_digits.py [--epochs 20] [--batch-size 256] [--lr 0.5]
                                 [--non-private-lr 0.05] [--seed 0]

Each private run asks the RDP accountant for the noise multiplier that spends exactly its
budget over the run (``get_noise_multiplier``), then trains with ``make_private``:
Poisson-sampled batches, every example's gradient clipped to norm ``--max-grad-norm``,
Gaussian noise, SGD with momentum (learning rate ``--lr``). The non-private run uses the
same model, epochs, batch size and optimizer without clipping or noise, at its own
learning rate ``--non-private-lr`` (clipped, noised gradients are smaller and want a
larger step; each rate is the best of a few tried). The CNN is the demo's
(``hookgrad/demo/model.py``); it has no batch normalization, so nothing needs replacing
by GroupNorm.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

import hookgrad
from hookgrad import nn
from hookgrad.demo.data import Dataset, load_dataset
from hookgrad.demo.model import DigitsCNN
from hookgrad.utils.data import DataLoader, TensorDataset
from hookgrad.utils.privacy import get_noise_multiplier, make_private

DELTA = 1e-5
EPSILONS = (1.0, 3.0, 10.0)


def accuracy(model: nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    model.eval()
    with hookgrad.no_grad():
        predicted = model(hookgrad.tensor(x)).numpy().argmax(axis=1)
    model.train()
    return float((predicted == y).mean())


def train(
    args: argparse.Namespace, data: Dataset, noise_multiplier: float | None
) -> tuple[nn.Module, float | None]:
    """Train a fresh CNN; DP-SGD unless ``noise_multiplier`` is None. Returns the model and
    the epsilon the accountant reports at the end (None without privacy)."""
    hookgrad.manual_seed(args.seed)
    model = DigitsCNN(data.image_shape, data.classes)
    lr = args.non_private_lr if noise_multiplier is None else args.lr
    optimizer: Any = hookgrad.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    dataset = TensorDataset(hookgrad.tensor(data.x_train), hookgrad.tensor(data.y_train))
    generator = hookgrad.Generator().manual_seed(args.seed)
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True, generator=generator)
    if noise_multiplier is not None:
        model, optimizer, loader = make_private(
            model,
            optimizer,
            loader,
            noise_multiplier=noise_multiplier,
            max_grad_norm=args.max_grad_norm,
            generator=generator,
        )
    for _ in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
    if noise_multiplier is None:
        return model, None
    optimizer.per_sample.remove()
    return model, optimizer.accountant.get_epsilon(DELTA)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.5)
    parser.add_argument("--non-private-lr", type=float, default=0.05)
    parser.add_argument("--max-grad-norm", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    data = load_dataset(None, seed=args.seed)
    sample_rate = 1 / -(-len(data.x_train) // args.batch_size)
    print(
        f"digits: {len(data.x_train)} training, {len(data.x_test)} held-out images; "
        f"{args.epochs} epochs, expected batch {args.batch_size}, delta {DELTA:g}"
    )
    print(f"{'run':<14} {'noise':>6} {'epsilon':>8} {'held-out accuracy':>18} {'time':>7}")
    runs: list[tuple[str, float | None]] = [("non-private", None)]
    for target in EPSILONS:
        noise = get_noise_multiplier(
            target_epsilon=target,
            target_delta=DELTA,
            sample_rate=sample_rate,
            epochs=args.epochs,
        )
        runs.append((f"epsilon {target:g}", noise))
    for name, sigma in runs:
        start = time.perf_counter()
        model, spent = train(args, data, sigma)
        held_out = accuracy(model, data.x_test, data.y_test)
        shown = "-" if sigma is None else f"{sigma:.3f}"
        epsilon = "inf" if spent is None else f"{spent:.2f}"
        seconds = time.perf_counter() - start
        print(f"{name:<14} {shown:>6} {epsilon:>8} {held_out:>17.2%} {seconds:>6.1f}s")


if __name__ == "__main__":
    main()
