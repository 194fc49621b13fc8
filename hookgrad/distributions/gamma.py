"""The gamma distribution."""

from __future__ import annotations

from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions._functions import _standard_gamma
from hookgrad.distributions.exp_family import ExponentialFamily
from hookgrad.distributions.utils import Number, broadcast_all
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """The gamma distribution of shape ``concentration`` and ``rate`` (1 / scale).
    ``rsample`` draws torch's numbers and is differentiable in both parameters
    (torch's implicit reparameterisation gradient).

    Args:
        concentration: the shape, positive.
        rate: the rate, positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = Gamma(hookgrad.tensor([1.0]), hookgrad.tensor([1.0]))
        m.sample()      # Gamma distributed with concentration=1 and rate=1
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        if isinstance(concentration, Number) and isinstance(rate, Number):
            batch_shape = Size()
        else:
            batch_shape = self.concentration.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        super(Gamma, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # NOTE: in place on the detached value: the sample never rounds to 0
        value.detach().clamp_(min=hookgrad.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value: Any) -> Tensor:
        value = hookgrad.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (
            hookgrad.xlogy(self.concentration, self.rate)
            + hookgrad.xlogy(self.concentration - 1, value)
            - self.rate * value
            - hookgrad.lgamma(self.concentration)
        )

    def entropy(self) -> Tensor:
        return (
            self.concentration
            - hookgrad.log(self.rate)
            + hookgrad.lgamma(self.concentration)
            + (1.0 - self.concentration) * hookgrad.digamma(self.concentration)
        )

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return hookgrad.lgamma(x + 1) + (x + 1) * hookgrad.log(-y.reciprocal())

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return hookgrad.special.gammainc(self.concentration, self.rate * value)
