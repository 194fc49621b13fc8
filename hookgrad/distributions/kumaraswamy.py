"""The Kumaraswamy distribution."""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.transformed_distribution import TransformedDistribution
from hookgrad.distributions.transforms import AffineTransform, PowerTransform
from hookgrad.distributions.uniform import Uniform
from hookgrad.distributions.utils import _masked_assign, broadcast_all, euler_constant
from hookgrad.tensor.tensor import Tensor

__all__ = ["Kumaraswamy"]


def _moments(a: Tensor, b: Tensor, n: int) -> Tensor:
    """The ``n``-th moment of the Kumaraswamy distribution, ``b B(1 + n / a, b)``."""
    arg1 = 1 + n / a
    log_value = hookgrad.lgamma(arg1) + hookgrad.lgamma(b) - hookgrad.lgamma(arg1 + b)
    return b * hookgrad.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on ``[0, 1]``: ``(1 - U ** (1 / b)) ** (1 / a)`` for
    a uniform ``U``, ``a = concentration1`` and ``b = concentration0``.

    Args:
        concentration1: the first concentration (alpha), positive.
        concentration0: the second concentration (beta), positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = Kumaraswamy(hookgrad.tensor([1.0]), hookgrad.tensor([1.0]))
        m.sample()      # sample from a Kumaraswamy distribution with both 1
    """

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self, concentration1: Any, concentration0: Any, validate_args: bool | None = None
    ) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(
            hookgrad.full_like(self.concentration0, 0),
            hookgrad.full_like(self.concentration0, 1),
            validate_args=validate_args,
        )
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Kumaraswamy:
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        # evaluated in log space for precision
        log_mode = (
            self.concentration0.reciprocal() * (-self.concentration0).log1p()
            - (-self.concentration0 * self.concentration1).log1p()
        )
        _masked_assign(log_mode, (self.concentration0 < 1) | (self.concentration1 < 1), math.nan)
        return log_mode.exp()

    @property
    def variance(self) -> Tensor:
        return _moments(self.concentration1, self.concentration0, 2) - hookgrad.pow(self.mean, 2)

    def entropy(self) -> Tensor:
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        h0 = hookgrad.digamma(self.concentration0 + 1) + euler_constant
        return t0 + t1 * h0 - hookgrad.log(self.concentration1) - hookgrad.log(self.concentration0)
