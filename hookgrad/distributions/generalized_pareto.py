"""The generalized Pareto distribution."""

from __future__ import annotations

import math
import numbers
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.utils import broadcast_all
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution of location ``loc``, ``scale`` and shape
    ``concentration``: exponential for ``concentration == 0``, bounded above for a
    negative one.

    Args:
        loc: the location.
        scale: the scale, positive.
        concentration: the shape.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = GeneralizedPareto(hookgrad.tensor([0.1]), hookgrad.tensor([2.0]),
                              hookgrad.tensor([0.4]))
        m.sample()
    """

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = True

    def __init__(
        self, loc: Any, scale: Any, concentration: Any, validate_args: bool | None = None
    ) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if (
            isinstance(loc, numbers.Number)
            and isinstance(scale, numbers.Number)
            and isinstance(concentration, numbers.Number)
        ):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        new = self._get_checked_instance(GeneralizedPareto, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        super(GeneralizedPareto, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = hookgrad.rand(shape, dtype=self.loc.dtype)
        return self.icdf(u)

    def _safe_concentration(self, eq_zero: Tensor) -> Tensor:
        return hookgrad.where(eq_zero, hookgrad.ones_like(self.concentration), self.concentration)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = hookgrad.isclose(self.concentration, hookgrad.tensor(0.0))
        safe_conc = self._safe_concentration(eq_zero)
        y = 1 / safe_conc + hookgrad.ones_like(z)
        where_nonzero = hookgrad.where(y == 0, y, y * hookgrad.log1p(safe_conc * z))
        log_scale = (
            math.log(self.scale) if isinstance(self.scale, numbers.Real) else self.scale.log()
        )
        return -log_scale - hookgrad.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value: Any) -> Tensor:
        """``log(1 - cdf(value))``."""
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero = hookgrad.isclose(self.concentration, hookgrad.tensor(0.0))
        safe_conc = self._safe_concentration(eq_zero)
        where_nonzero = -hookgrad.log1p(safe_conc * z) / safe_conc
        return hookgrad.where(eq_zero, -z, where_nonzero)

    def log_cdf(self, value: Any) -> Tensor:
        """``log(cdf(value))``."""
        return hookgrad.log1p(-hookgrad.exp(self.log_survival_function(value)))

    def cdf(self, value: Any) -> Tensor:
        return hookgrad.exp(self.log_cdf(value))

    def icdf(self, value: Any) -> Tensor:
        loc, scale, concentration = self.loc, self.scale, self.concentration
        eq_zero = hookgrad.isclose(concentration, hookgrad.zeros_like(concentration))
        safe_conc = hookgrad.where(eq_zero, hookgrad.ones_like(concentration), concentration)
        logu = hookgrad.log1p(-value)
        where_nonzero = loc + scale / safe_conc * hookgrad.expm1(-safe_conc * logu)
        where_zero = loc - scale * logu
        return hookgrad.where(eq_zero, where_zero, where_nonzero)

    def _z(self, x: Any) -> Tensor:
        return (x - self.loc) / self.scale

    @property
    def mean(self) -> Tensor:
        concentration = self.concentration
        valid = concentration < 1
        safe_conc = hookgrad.where(valid, concentration, 0.5)
        result = self.loc + self.scale / (1 - safe_conc)
        return hookgrad.where(valid, result, math.nan)

    @property
    def variance(self) -> Tensor:
        concentration = self.concentration
        valid = concentration < 0.5
        safe_conc = hookgrad.where(valid, concentration, 0.25)
        result = self.scale**2 / ((1 - safe_conc) ** 2 * (1 - 2 * safe_conc))
        return hookgrad.where(valid, result, math.nan)

    def entropy(self) -> Tensor:
        ans = hookgrad.log(self.scale) + self.concentration + 1
        return hookgrad.broadcast_to(ans, self._batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        lower = self.loc
        upper = hookgrad.where(
            self.concentration < 0, lower - self.scale / self.concentration, math.inf
        )
        return constraints.interval(lower, upper)
