"""The logistic-normal distribution."""

from __future__ import annotations

from typing import Any

from hookgrad.distributions import constraints
from hookgrad.distributions.independent import Independent
from hookgrad.distributions.normal import Normal
from hookgrad.distributions.transformed_distribution import TransformedDistribution
from hookgrad.distributions.transforms import StickBreakingTransform
from hookgrad.tensor.tensor import Tensor

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """The distribution on the simplex of ``StickBreakingTransform()(X)`` for
    ``X ~ Normal(loc, scale)`` (a vector of one element fewer than the simplex).

    Args:
        loc: the mean of the base normal distribution.
        scale: its standard deviation, positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = LogisticNormal(hookgrad.tensor([0.0] * 3), hookgrad.tensor([1.0] * 3))
        m.sample()      # a point of the 4-simplex
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True
    base_dist: Independent

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogisticNormal:
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        return self.base_dist.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.base_dist.scale
