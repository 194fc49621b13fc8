"""The log-normal distribution."""

from __future__ import annotations

from typing import Any

from hookgrad.distributions import constraints
from hookgrad.distributions.normal import Normal
from hookgrad.distributions.transformed_distribution import TransformedDistribution
from hookgrad.distributions.transforms import ExpTransform
from hookgrad.tensor.tensor import Tensor

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The distribution of ``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Args:
        loc: the mean of the log of the distribution.
        scale: the standard deviation of the log, positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = LogNormal(hookgrad.tensor([0.0]), hookgrad.tensor([1.0]))
        m.sample()      # log-normal distributed with mean=0 and stddev=1
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True
    base_dist: Normal

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale.pow(2)
        return scale_sq.expm1() * (2 * self.loc + scale_sq).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc
