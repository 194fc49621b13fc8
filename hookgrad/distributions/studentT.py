"""Student's t-distribution."""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.chi2 import Chi2
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.utils import _masked_assign, _standard_normal, broadcast_all
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t-distribution of ``df`` degrees of freedom, location ``loc`` and
    ``scale``. ``rsample`` is ``loc + scale * X / sqrt(Z / df)`` for a standard normal
    ``X`` and a chi-squared ``Z``.

    Args:
        df: the degrees of freedom, positive.
        loc: the location.
        scale: the scale, positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = StudentT(hookgrad.tensor([2.0]))
        m.sample()      # Student's t-distributed with degrees of freedom=2
    """

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    @property
    def mean(self) -> Tensor:
        m = self.loc.clone(memory_format=hookgrad.contiguous_format)
        _masked_assign(m, self.df <= 1, math.nan)
        return m

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        m = self.df.clone(memory_format=hookgrad.contiguous_format)
        above = self.df > 2
        _masked_assign(m, above, self.scale[above].pow(2) * self.df[above] / (self.df[above] - 2))
        _masked_assign(m, (self.df <= 2) & (self.df > 1), math.inf)
        _masked_assign(m, self.df <= 1, math.nan)
        return m

    def __init__(
        self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None
    ) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        y = x * hookgrad.rsqrt(z / self.df)
        return self.loc + self.scale * y

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + hookgrad.lgamma(0.5 * self.df)
            - hookgrad.lgamma(0.5 * (self.df + 1.0))
        )
        return -0.5 * (self.df + 1.0) * hookgrad.log1p(y**2.0 / self.df) - z

    def entropy(self) -> Tensor:
        lbeta = (
            hookgrad.lgamma(0.5 * self.df) + math.lgamma(0.5) - hookgrad.lgamma(0.5 * (self.df + 1))
        )
        return (
            self.scale.log()
            + 0.5
            * (self.df + 1)
            * (hookgrad.digamma(0.5 * (self.df + 1)) - hookgrad.digamma(0.5 * self.df))
            + 0.5 * self.df.log()
            + lbeta
        )
