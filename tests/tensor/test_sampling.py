"""``poisson``, ``binomial`` and ``normal`` against torch: seeded draws bit for bit (torch's
own rejection samplers, element by element), what the generator is left at, the nodes
recorded for inputs that require grad, and torch's errors."""

from __future__ import annotations

import numpy as np
import pytest

import hookgrad
from tests.oracle import outcome

RNG = np.random.default_rng(5)
# Rates on both sides of 10 (Knuth's method below, transformed rejection from there).
RATES = np.concatenate([[0.0, 0.5, 9.99, 10.0, 250.0], RNG.random(195) * 60]).astype(np.float32)
# Counts and probabilities for inversion (n p < 10), BTRS (n p >= 10), p > 0.5 and the edges.
COUNTS = np.concatenate([[0, 5, 20, 1000, 7, 30], np.floor(RNG.random(194) * 200)])
PROBS = np.concatenate([[0.5, 0.3, 0.6, 0.5, 1.0, 0.01], RNG.random(194)])


def _draws(lib, fn):
    lib.manual_seed(123)
    values = fn(lib)
    return values.numpy(), values.dtype, lib.rand(2).numpy()


SAMPLES = {
    "poisson": lambda t: t.poisson(t.tensor(RATES)),
    "poisson_float64_strided": lambda t: t.poisson(
        t.tensor(RATES, dtype=t.float64).reshape(10, 20).t()
    ),
    "poisson_generator": lambda t: t.poisson(
        t.tensor(RATES[:20]), generator=t.Generator().manual_seed(7)
    ),
    "binomial_float32": lambda t: t.binomial(
        t.tensor(COUNTS, dtype=t.float32), t.tensor(PROBS, dtype=t.float32)
    ),
    "binomial_float64": lambda t: t.binomial(
        t.tensor(COUNTS, dtype=t.float64), t.tensor(PROBS, dtype=t.float64)
    ),
    "binomial_broadcast": lambda t: t.binomial(
        t.tensor(COUNTS[:12].reshape(3, 4), dtype=t.float32), t.tensor([0.2, 0.5, 0.7, 0.95])
    ),
    "normal_tensor_float": lambda t: t.normal(t.arange(20.0), 2.0),
    "normal_float_tensor": lambda t: t.normal(1.5, t.rand(5)),
}


@pytest.mark.parametrize("fn", SAMPLES.values(), ids=SAMPLES.keys())
def test_seeded_draws_are_torchs(fn, torch):
    ours, theirs = _draws(hookgrad, fn), _draws(torch, fn)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert str(ours[1]) == str(theirs[1])
    np.testing.assert_array_equal(ours[2], theirs[2])  # the generator is left where torch's is


def _graph(lib, fn):
    mean = lib.tensor([0.0, 1.0, 2.0], requires_grad=True)
    std = lib.tensor([1.0, 0.5, 2.0], requires_grad=True)
    lib.manual_seed(0)
    out = fn(lib, mean, std)
    node = out.grad_fn
    saved = {n: getattr(node, n) for n in dir(node) if n.startswith("_saved_")}
    out.sum().backward()
    return type(node).__name__, len(node.next_functions), saved, mean.grad, std.grad


GRAPHS = {
    "poisson": lambda t, m, s: t.poisson(s * 3),
    "normal_tensor_float": lambda t, m, s: t.normal(m, 2.0),
    "normal_float_tensor": lambda t, m, s: t.normal(1.0, s),
    "normal_tensor_tensor": lambda t, m, s: t.normal(m, s),
    "binomial": lambda t, m, s: t.binomial(s * 10, t.tensor([0.5, 0.5, 0.5])),
}


@pytest.mark.parametrize("fn", GRAPHS.values(), ids=GRAPHS.keys())
def test_nodes_and_gradients_are_torchs(fn, torch):
    def run(lib):
        return _graph(lib, fn)

    assert outcome(run, hookgrad) == outcome(run, torch)


ERRORS = {
    "poisson_negative": lambda t: t.poisson(t.tensor([1.0, -1.0])),
    "poisson_nan": lambda t: t.poisson(t.tensor([float("nan")])),
    "poisson_int": lambda t: t.poisson(t.tensor([1, 2])),
    "binomial_int": lambda t: t.binomial(t.tensor([1, 2]), t.tensor([0.5, 0.5])),
    "binomial_int_prob": lambda t: t.binomial(t.tensor([1.0, 2.0]), t.tensor([1, 0])),
    "binomial_dtypes": lambda t: t.binomial(
        t.tensor([1.0, 2.0]), t.tensor([0.5, 0.5], dtype=t.float64)
    ),
    "binomial_resized": lambda t: t.binomial(t.tensor([1.0, 2.0]), t.tensor([[0.5], [0.5]])),
    "binomial_shapes": lambda t: t.binomial(t.tensor([1.0, 2.0]), t.tensor([0.5, 0.5, 0.5])),
    "binomial_edges": lambda t: t.binomial(t.tensor([-1.0, 2.0, 3.0]), t.tensor([0.5, 1.5, 0.0])),
    "normal_negative_std": lambda t: t.normal(t.zeros(3), -1.0),
}


@pytest.mark.parametrize("fn", ERRORS.values(), ids=ERRORS.keys())
def test_bad_input_matches_torch(fn, torch):
    def run(lib):
        lib.manual_seed(0)
        return fn(lib), lib.rand(1)

    assert outcome(run, hookgrad) == outcome(run, torch)
