"""The Laplace distribution."""

from __future__ import annotations

from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.utils import Number, broadcast_all
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution of location ``loc`` and ``scale``: density
    ``exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc: the location (mean).
        scale: the scale, positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = Laplace(hookgrad.tensor([0.0]), hookgrad.tensor([1.0]))
        m.sample()      # Laplace distributed with loc=0, scale=1
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2**0.5) * self.scale

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if isinstance(loc, Number) and isinstance(scale, Number):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        new = self._get_checked_instance(Laplace, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        super(Laplace, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        finfo = hookgrad.finfo(self.loc.dtype)
        # uniform in [eps - 1, 1): -1 itself would give log1p(-1) = -inf
        u = self.loc.new(shape).uniform_(finfo.eps - 1, 1)
        return self.loc - self.scale * u.sign() * hookgrad.log1p(-u.abs())

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -hookgrad.log(2 * self.scale) - hookgrad.abs(value - self.loc) / self.scale

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * hookgrad.expm1(
            -(value - self.loc).abs() / self.scale
        )

    def icdf(self, value: Any) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * hookgrad.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + hookgrad.log(2 * self.scale)
