"""torch's gamma and Dirichlet samplers (``_standard_gamma``, ``_sample_dirichlet``)
against torch: seeded draws bit for bit, what the generator is left at (its kept normal
included), and the reparameterised gradients ``_standard_gamma_grad``/``_dirichlet_grad``
with torch's nodes and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import hookgrad
from tests.oracle import assert_close, outcome

RNG = np.random.default_rng(11)
# Concentrations below 1 (boosted), around 1, large; zero (no draw).
ALPHAS = np.concatenate([[0.0, 1e-3, 0.5, 1.0, 8.5, 300.0], RNG.random(250) * 4, RNG.random(50)])


def _draws(lib: Any, fn: Any) -> tuple[np.ndarray, np.ndarray]:
    lib.manual_seed(99)
    lib.randn(3)  # leaves a kept normal in the generator, which the sampler uses first
    values = fn(lib)
    return values.numpy(), lib.randn(5).numpy()


SAMPLES = {
    "gamma_float32": lambda t: t._standard_gamma(t.tensor(ALPHAS, dtype=t.float32)),
    "gamma_float64": lambda t: t._standard_gamma(t.tensor(ALPHAS, dtype=t.float64)),
    "gamma_strided": lambda t: t._standard_gamma(t.tensor(ALPHAS[:240]).reshape(12, 20).t()),
    "gamma_generator": lambda t: t._standard_gamma(
        t.tensor(ALPHAS[:30]), generator=t.Generator().manual_seed(4)
    ),
    "dirichlet_float32": lambda t: t._sample_dirichlet(
        t.tensor(ALPHAS[6:246].reshape(60, 4) + 0.05, dtype=t.float32)
    ),
    "dirichlet_float64": lambda t: t._sample_dirichlet(
        t.tensor(ALPHAS[6:246].reshape(20, 3, 4), dtype=t.float64)
    ),
    "gamma_distribution": lambda t: t.distributions.Gamma(
        t.tensor([0.4, 2.0]), t.tensor([1.0, 3.0])
    ).sample((50,)),
    "beta_distribution": lambda t: t.distributions.Beta(
        t.tensor([0.4, 2.0]), t.tensor([5.0, 0.3])
    ).sample((50,)),
    "student_t_distribution": lambda t: t.distributions.StudentT(t.tensor([1.5, 30.0])).sample(
        (40,)
    ),
}


@pytest.mark.parametrize("fn", SAMPLES.values(), ids=SAMPLES.keys())
def test_seeded_draws_are_torchs(fn, torch):
    ours, theirs = _draws(hookgrad, fn), _draws(torch, fn)
    np.testing.assert_array_equal(ours[0], theirs[0])
    assert ours[0].dtype == theirs[0].dtype
    np.testing.assert_array_equal(ours[1], theirs[1])  # the generator is left as torch's


def _gamma_graph(lib: Any) -> Any:
    alpha = lib.tensor([0.3, 0.9, 2.5, 12.0, 40.0], dtype=lib.float64, requires_grad=True)
    lib.manual_seed(5)
    x = lib._standard_gamma(alpha)
    node = x.grad_fn
    saved = node._saved_self, node._saved_result
    (grad,) = lib.autograd.grad(x.sum(), alpha)
    return (
        type(node).__name__,
        [type(n).__name__ for n, _ in node.next_functions],
        *saved,
        grad,
    )


def test_standard_gamma_node_and_gradient(torch):
    ours, theirs = _gamma_graph(hookgrad), _gamma_graph(torch)
    assert ours[:2] == theirs[:2] == ("StandardGammaBackward0", ["AccumulateGrad"])
    for a, b in zip(ours[2:], theirs[2:]):
        assert_close(a, b, 1e-12, 1e-12)


# (alpha, sample) pairs through each branch of torch's approximation: small samples
# (Taylor), large concentrations near and away from the mean (saddle point), the rest
# (rational fit)
GAMMA_GRAD_ALPHA = np.array([0.5, 2.0, 9.0, 20.0, 20.0, 50.0, 3.0, 0.7, 1e-3])
GAMMA_GRAD_X = np.array([0.3, 0.79, 9.2, 14.0, 30.0, 50.0, 2.5, 4.0, 1e-30])
# Dirichlet coordinates near 0, near 1, with both concentrations large, and the rest
DIRICHLET_X = np.array([0.05, 0.97, 0.45, 0.5, 0.3, 0.02])
DIRICHLET_ALPHA = np.array([0.5, 3.0, 20.0, 1.5, 0.8, 2.0])
DIRICHLET_TOTAL = np.array([2.0, 3.5, 45.0, 3.0, 4.0, 2.5])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_reparameterised_gradients(dtype, torch):
    def grads(lib: Any) -> tuple[Any, Any]:
        as_tensor = lambda a: lib.tensor(a, dtype=getattr(lib, dtype))  # noqa: E731
        gamma = lib._standard_gamma_grad(as_tensor(GAMMA_GRAD_ALPHA), as_tensor(GAMMA_GRAD_X))
        dirichlet = lib._dirichlet_grad(
            as_tensor(DIRICHLET_X), as_tensor(DIRICHLET_ALPHA), as_tensor(DIRICHLET_TOTAL)
        )
        return gamma, dirichlet

    rtol = 1e-5 if dtype == "float32" else 1e-12
    assert_close(grads(hookgrad), grads(torch), rtol, 1e-30)


def _dirichlet_rsample(lib: Any) -> Any:
    concentration = lib.tensor([[0.5, 2.0, 7.0], [3.0, 3.0, 40.0]], requires_grad=True)
    lib.manual_seed(2)
    x = lib.distributions.Dirichlet(concentration).rsample((2,))
    (grad,) = lib.autograd.grad((x * lib.arange(3.0)).sum(), concentration)
    return x, grad, type(x.grad_fn).__name__


def test_dirichlet_rsample_gradient(torch):
    ours, theirs = _dirichlet_rsample(hookgrad), _dirichlet_rsample(torch)
    assert ours[2] == theirs[2] == "_DirichletBackward"
    np.testing.assert_array_equal(ours[0].detach().numpy(), theirs[0].detach().numpy())
    assert_close(ours[1], theirs[1], 1e-5, 1e-6)


ERRORS = {
    "gamma_int": lambda t: t._standard_gamma(t.tensor([1, 2])),
    "gamma_half": lambda t: t._standard_gamma(t.tensor([1.0], dtype=t.float16)),
    "dirichlet_int": lambda t: t._sample_dirichlet(t.tensor([1, 2])),
    "gamma_grad_int": lambda t: t._standard_gamma_grad(t.tensor([1, 2]), t.tensor([1, 2])),
    "dirichlet_grad_int": lambda t: t._dirichlet_grad(
        t.tensor([1, 2]), t.tensor([1, 2]), t.tensor([3, 3])
    ),
    "gamma_grad_backward": lambda t: (
        t._standard_gamma_grad(t.tensor([2.0], requires_grad=True), t.tensor([1.0]))
        .sum()
        .backward()
    ),
    "gamma_grad_output_no_edge": lambda t: (
        t._standard_gamma_grad(t.tensor([2.0]), t.tensor([1.0], requires_grad=True)).grad_fn
    ),
    "sample_dirichlet_backward": lambda t: (
        t._sample_dirichlet(t.tensor([1.0, 2.0], requires_grad=True)).sum().backward()
    ),
    "dirichlet_grad_backward": lambda t: (
        t._dirichlet_grad(t.tensor([0.5], requires_grad=True), t.tensor([1.0]), t.tensor([2.0]))
        .sum()
        .backward()
    ),
}


@pytest.mark.parametrize("fn", ERRORS.values(), ids=ERRORS.keys())
def test_errors_are_torchs(fn, torch):
    assert outcome(fn, hookgrad) == outcome(fn, torch)
