"""The elementwise transforms of ``torch.distributions.transforms``: ``ExpTransform``,
``PowerTransform``, ``SigmoidTransform``, ``SoftplusTransform``, ``TanhTransform``,
``AbsTransform``, ``AffineTransform`` and ``CumulativeDistributionTransform``, each with
its inverse and the log absolute determinant of its Jacobian.

Example: ``ExpTransform().log_abs_det_jacobian(x, y)`` is ``x``.
"""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.transforms_base import Transform
from hookgrad.distributions.utils import (
    Number,
    broadcast_all,
    lazy_property,
)
from hookgrad.nn import functional as F
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "PowerTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "TanhTransform",
]


class ExpTransform(Transform):
    """``y = exp(x)``.

    Example: ``ExpTransform()(hookgrad.zeros(2))`` is ``tensor([1., 1.])``.
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    def _call(self, x: Any) -> Any:
        return x.exp()

    def _inverse(self, y: Any) -> Any:
        return y.log()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive half line.

    Example: ``PowerTransform(hookgrad.tensor(2.0))(hookgrad.tensor([3.0]))`` is
    ``tensor([9.])``.
    """

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @lazy_property
    def sign(self) -> Any:
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PowerTransform):
            return False
        return self.exponent.eq(other.exponent).all().item()

    def _call(self, x: Any) -> Any:
        return x.pow(self.exponent)

    def _inverse(self, y: Any) -> Any:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        return hookgrad.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape: Any) -> Any:
        return hookgrad.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def clipped_sigmoid(x: Tensor) -> Tensor:
    """``sigmoid(x)`` clamped to ``[tiny, 1 - eps]`` of ``x``'s dtype, so that its logarithm
    and that of its complement stay finite (torch's ``_clipped_sigmoid``)."""
    finfo = hookgrad.finfo(x.dtype)
    return hookgrad.clamp(hookgrad.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(Transform):
    """``y = sigmoid(x)``, clipped into ``[tiny, 1 - eps]``.

    Example: ``SigmoidTransform()(hookgrad.zeros(1))`` is ``tensor([0.5000])``.
    """

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    def _call(self, x: Any) -> Any:
        return clipped_sigmoid(x)

    def _inverse(self, y: Any) -> Any:
        finfo = hookgrad.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``.

    Example: ``SoftplusTransform()(hookgrad.zeros(1))`` is ``tensor([0.6931])``.
    """

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    def _call(self, x: Any) -> Any:
        return F.softplus(x)

    def _inverse(self, y: Any) -> Any:
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return -F.softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``; the log-det-Jacobian in the stable form ``2 (log 2 - x -
    softplus(-2x))``.

    Example: ``TanhTransform()(hookgrad.zeros(1))`` is ``tensor([0.])``.
    """

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    def _call(self, x: Any) -> Any:
        return x.tanh()

    def _inverse(self, y: Any) -> Any:
        # NOTE: no clamping (as torch): a cached transform keeps the exact x instead.
        return hookgrad.atanh(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not invertible: its ``inv`` returns ``y``).

    Example: ``AbsTransform()(hookgrad.tensor([-2.0]))`` is ``tensor([2.])``.
    """

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    def _call(self, x: Any) -> Any:
        return x.abs()

    def _inverse(self, y: Any) -> Any:
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, pointwise (over ``event_dim`` rightmost dims for the
    Jacobian).

    Args:
        loc, scale: tensors or numbers.
        event_dim: the dims of one event (the log-det-Jacobian sums over them).

    Example: ``AffineTransform(1.0, 2.0)(hookgrad.tensor([3.0]))`` is ``tensor([7.])``.
    """

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(mine, Number) and isinstance(theirs, Number):
                if mine != theirs:
                    return False
            elif not (mine == theirs).all().item():
                return False
        return True

    @property
    def sign(self) -> Any:
        if isinstance(self.scale, Number):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Any) -> Any:
        return self.loc + self.scale * x

    def _inverse(self, y: Any) -> Any:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        shape = x.shape
        scale = self.scale
        if isinstance(scale, Number):
            result = hookgrad.full_like(x, math.log(abs(scale)))
        else:
            result = hookgrad.abs(scale).log()
        if self.event_dim:
            result = result.view(result.size()[: -self.event_dim] + (-1,)).sum(-1)
            shape = shape[: -self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape: Any) -> Any:
        return hookgrad.broadcast_shapes(
            shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ())
        )

    def inverse_shape(self, shape: Any) -> Any:
        return hookgrad.broadcast_shapes(
            shape, getattr(self.loc, "shape", ()), getattr(self.scale, "shape", ())
        )


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)`` into the unit interval; the log-det-Jacobian is the
    distribution's ``log_prob``.

    Example::

        CumulativeDistributionTransform(Normal(0.0, 1.0))(hookgrad.zeros(1))  # 0.5
    """

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:  # type: ignore[override]
        return self.distribution.support

    def _call(self, x: Any) -> Any:
        return self.distribution.cdf(x)

    def _inverse(self, y: Any) -> Any:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Any:
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
