"""Ops of random sampling: the nodes torch records for the in-place random fills
(``uniform_``, ``normal_``, ``random_``, ``bernoulli_`` ...) and for ``bernoulli``,
``poisson``, ``binomial`` and ``normal`` with tensor arguments.

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


class Poisson(Op):
    """``poisson(rates)``: ``sample(rates)`` draws the counts; the gradient is zero."""

    input_names = ("self",)

    def __init__(self, sample: Sampler) -> None:
        self.sample = sample

    def forward(self, rates: Any) -> Any:
        return self.sample(rates)

    def backward(self, grad: Any) -> Any:
        shape, dtype = self._input_meta[0]
        return grad.new_zeros(shape, dtype=dtype)


class Binomial(Op):
    """``binomial(count, prob)``: ``sample(count, prob)`` draws; torch has no derivative
    for it (its node is ``NotImplemented``, whose backward fails)."""

    node_name = "NotImplemented"
    input_names = ("count", "prob")

    def __init__(self, sample: Callable[[np.ndarray, np.ndarray], np.ndarray]) -> None:
        self.sample = sample

    def forward(self, count: Any, prob: Any) -> Any:
        return self.sample(count, prob)

    def backward(self, grad: Any) -> Any:
        raise RuntimeError("derivative for aten::binomial is not implemented")


class NormalTensorFloat(Op):
    """``normal(mean, std)`` with a tensor ``mean`` and a number ``std``: the values are
    drawn before (``values``); the gradient of ``mean`` is zero."""

    node_name = "NormalBackward1"
    input_names = ("mean",)
    saved_attributes = ("mean_sym_sizes",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def forward(self, mean: Any) -> Any:
        self.mean_sym_sizes = mean.shape
        return self.values

    def backward(self, grad: Any) -> Any:
        return grad.new_zeros(self.mean_sym_sizes)


class NormalFloatTensor(NormalTensorFloat):
    """``normal(mean, std)`` with a number ``mean`` and a tensor ``std``."""

    node_name = "NormalBackward2"
    input_names = ("std",)
    saved_attributes = ("std_sym_sizes",)

    def forward(self, std: Any) -> Any:
        self.std_sym_sizes = std.shape
        return self.values

    def backward(self, grad: Any) -> Any:
        return grad.new_zeros(self.std_sym_sizes)


class NormalTensorTensor(NormalTensorFloat):
    """``normal(mean, std)`` with two tensors."""

    node_name = "NormalBackward3"
    input_names = ("mean", "std")
    saved_attributes = ("mean_sym_sizes", "std_sym_sizes")

    def forward(self, mean: Any, std: Any) -> Any:
        self.mean_sym_sizes, self.std_sym_sizes = mean.shape, std.shape
        return self.values

    def backward(self, grad: Any) -> Any:
        needs = self.needs_input_grad
        grad_mean = grad.new_zeros(self.mean_sym_sizes) if needs[0] else None
        return grad_mean, grad.new_zeros(self.std_sym_sizes) if needs[1] else None
