"""``torch.distributions``: a reparameterised sample and its log-density for a batch of
256, then the backward pass to the parameters (as in a VAE or policy-gradient step), for
a diagonal ``Normal`` (256 x 16) and a ``MultivariateNormal`` (256 events of 16 with one
lower-triangular factor); hookgrad vs torch in the same run (target: ratio <= 1.5).

Each step builds the distribution from its parameters (argument validation on, as by
default), draws ``rsample()``, scores it with ``log_prob`` and backpropagates the sum, so
the distributions' Python layers (``broadcast_all``, constraint checks, lazy properties)
are timed with the ops.
"""

from __future__ import annotations

import numpy as np

import hookgrad
from benchmarks.common import best_time, report

BATCH, EVENT = 256, 16


def normal_step(lib, loc, scale):
    def step():
        d = lib.distributions.Normal(loc, scale)
        x = d.rsample()
        d.log_prob(x).sum().backward()
        loc.grad = scale.grad = None

    return step


def mvn_step(lib, loc, scale_tril):
    def step():
        d = lib.distributions.MultivariateNormal(loc, scale_tril=scale_tril)
        x = d.rsample()
        d.log_prob(x).sum().backward()
        loc.grad = scale_tril.grad = None

    return step


def main() -> None:
    import torch

    rng = np.random.default_rng(0)
    loc = rng.standard_normal((BATCH, EVENT)).astype(np.float32)
    scale = (rng.random((BATCH, EVENT)) + 0.5).astype(np.float32)
    factor = np.tril(rng.standard_normal((EVENT, EVENT)), -1) * 0.1 + np.eye(EVENT)
    factor = factor.astype(np.float32)
    # NOTE: tensors of 4096 elements are below torch's grain for threading; one thread
    # keeps its idle OpenMP workers from spinning against the timed thread on a busy machine
    torch.set_num_threads(1)
    cases = (
        ("Normal 256x16 rsample+log_prob", normal_step, (loc, scale)),
        ("MVN 256x16 rsample+log_prob", mvn_step, (loc, factor)),
    )
    for title, make_step, arrays in cases:
        results = {}
        for name, lib in (("hookgrad", hookgrad), ("torch", torch)):
            params = [lib.tensor(a, requires_grad=True) for a in arrays]
            results[name] = best_time(make_step(lib, *params), repeat=9, number=20)
        report(title, results["hookgrad"], results["torch"], target=1.5)
    # the standard normals each step draws (torch's bit-exact float32 Box-Muller)
    draws = {
        lib.__name__: best_time(lambda lib=lib: lib.empty(BATCH, EVENT).normal_(), 9, 20)
        for lib in (hookgrad, torch)
    }
    print(
        f"  of which normal_({BATCH}x{EVENT}): hookgrad {draws['hookgrad'] * 1e3:.3f} ms, "
        f"torch {draws['torch'] * 1e3:.3f} ms"
    )


if __name__ == "__main__":
    main()
