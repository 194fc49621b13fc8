"""Ops of random sampling: the nodes torch records for the in-place random fills
(``uniform_``, ``normal_``, ``random_``, ``bernoulli_`` ...) and for ``bernoulli``.

The values do not depend on the tensor's old values, so every gradient is zero. An op gets
its sampler from the tensor layer: ``sample(array)`` returns the new values for ``array``
(its shape, dtype and memory order decide what torch would draw), and runs only when the
op runs, after torch's checks, so that a refused call draws nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.inplace import Overwrite

Sampler = Callable[[np.ndarray], np.ndarray]


class Uniform(Overwrite):
    """``uniform_``: ``sample(array)`` draws the new values."""

    def __init__(self, sample: Sampler) -> None:
        self.sample = sample

    def forward(self, a: Any) -> Any:
        return self.sample(a)


class Normal(Uniform):
    """``normal_``."""


class RandomFromTo(Uniform):
    """``random_(from, to)``."""

    node_name = "RandomBackward0"


class RandomTo(Uniform):
    """``random_(to)``."""

    node_name = "RandomBackward1"


class Random(Uniform):
    """``random_()``."""

    node_name = "RandomBackward2"


class Exponential(Uniform):
    """``exponential_``."""


class Cauchy(Uniform):
    """``cauchy_``."""


class LogNormal(Uniform):
    """``log_normal_``."""


class Geometric(Uniform):
    """``geometric_``."""


class BernoulliFloat(Uniform):
    """``bernoulli_(p)`` with a number ``p``."""

    node_name = "BernoulliBackward2"


class BernoulliTensor(Op):
    """``bernoulli_(p)`` with a tensor ``p``: ``sample(array, p)``; both gradients zero."""

    node_name = "BernoulliBackward1"
    input_names = ("self", "p")

    def __init__(self, sample: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
        self.sample = sample

    def forward(self, a: Any, p: Any) -> Any:
        return self.sample(a, p)

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_p = None
        if needs[1]:
            shape, dtype = self._input_meta[1]
            grad_p = grad.new_zeros(shape, dtype=dtype)
        return grad.new_zeros(grad.shape) if needs[0] else None, grad_p


class Bernoulli(Overwrite):
    """``bernoulli(input)``: 1 with probability ``input`` per element, else 0;
    ``sample(probabilities)`` draws the values. The gradient is zero."""

    def __init__(self, sample: Sampler) -> None:
        self.sample = sample

    def forward(self, p: Any) -> Any:
        return self.sample(p)
