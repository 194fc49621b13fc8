"""torch's private samplers and gradients of the gamma family, as tensor functions:
``_standard_gamma``, ``_standard_gamma_grad``, ``_sample_dirichlet``, ``_dirichlet_grad``
(exported as ``hookgrad._standard_gamma`` ..., where torch has them).

The draws are torch's, bit for bit, after the same seed (``hookgrad.tensor.random``);
the nodes are torch's (``StandardGammaBackward0``; see ``hookgrad.ops.distributions``).

Example::

    hookgrad.manual_seed(0)
    alpha = hookgrad.tensor([0.5, 2.0], requires_grad=True)
    x = hookgrad._standard_gamma(alpha)     # torch's numbers
    x.sum().backward()                      # alpha.grad: the reparameterised gradient
"""

from __future__ import annotations

from typing import Any

from hookgrad.ops import distributions as ops
from hookgrad.tensor import dtypes, random
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.tensor import Tensor


def _check_floating(input: Tensor, kernel: str) -> None:
    if input.dtype not in (dtypes.float32, dtypes.float64):
        name = dtypes.legacy_name(input.dtype)
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{name}'")


def _standard_gamma(input: Tensor, generator: Any = None) -> Tensor:
    """A standard gamma sample (rate 1) per concentration in ``input`` (float32 or
    float64), drawn as torch's CPU kernel draws it (Marsaglia and Tsang's method), so
    that a seeded program gets torch's numbers. Differentiable in ``input``: the gradient
    is torch's reparameterised one (``_standard_gamma_grad``).

    Example::

        hookgrad._standard_gamma(hookgrad.tensor([1.0, 3.0]))
    """
    _check_floating(input, "gamma_cpu")
    sample = ops.StandardGamma(lambda alpha: random.sample_standard_gamma(alpha, generator))
    return apply(sample, input)


def _standard_gamma_grad(input: Tensor, output: Tensor) -> Tensor:
    """The derivative of the standard gamma samples ``output`` in their concentrations
    ``input`` at fixed quantile (torch's approximation); torch has no derivative of it.

    Example::

        alpha = hookgrad.tensor([2.0])
        hookgrad._standard_gamma_grad(alpha, hookgrad._standard_gamma(alpha))
    """
    # ``output`` has no edge: only ``input`` decides whether a node is recorded
    return apply(ops.StandardGammaGrad(), input, output.detach())


def _sample_dirichlet(input: Tensor, generator: Any = None) -> Tensor:
    """A Dirichlet sample per row (last dim) of the concentrations ``input`` (float32 or
    float64): normalised double gamma draws, torch's numbers after the same seed. torch
    has no derivative for it (``Dirichlet.rsample`` differentiates through its own
    function).

    Example::

        hookgrad._sample_dirichlet(hookgrad.tensor([[1.0, 2.0, 3.0]]))
    """
    _check_floating(input, "dirichlet")
    sample = ops.SampleDirichlet(lambda alpha: random.sample_dirichlet(alpha, generator))
    return apply(sample, input)


def _dirichlet_grad(x: Tensor, alpha: Tensor, total: Tensor) -> Tensor:
    """The derivative of the Dirichlet sample coordinates ``x`` in their concentrations
    ``alpha`` (``total``: the sum of each row's concentrations), torch's approximation.

    Example::

        alpha = hookgrad.tensor([1.0, 2.0])
        x = hookgrad._sample_dirichlet(alpha)
        hookgrad._dirichlet_grad(x, alpha, alpha.sum(-1, True).expand_as(alpha))
    """
    return apply(ops.DirichletGrad(), x, alpha, total)
