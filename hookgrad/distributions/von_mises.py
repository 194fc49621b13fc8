"""The von Mises distribution on the circle."""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.utils import broadcast_all, lazy_property
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["VonMises"]


def _eval_poly(y: Tensor, coef: list[float]) -> Tensor:
    coef = list(coef)
    result: Any = coef.pop()
    while coef:
        result = coef.pop() + y * result
    return result


# Abramowitz and Stegun's polynomial approximations of the modified Bessel functions
_I0_COEF_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_COEF_LARGE = [
    0.39894228,
    0.1328592e-1,
    0.225319e-2,
    -0.157565e-2,
    0.916281e-2,
    -0.2057706e-1,
    0.2635537e-1,
    -0.1647633e-1,
    0.392377e-2,
]
_I1_COEF_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2, 0.32411e-3]
_I1_COEF_LARGE = [
    0.39894228,
    -0.3988024e-1,
    -0.362018e-2,
    0.163801e-2,
    -0.1031555e-1,
    0.2282967e-1,
    -0.2895312e-1,
    0.1787654e-1,
    -0.420059e-2,
]
_COEF_SMALL = [_I0_COEF_SMALL, _I1_COEF_SMALL]
_COEF_LARGE = [_I0_COEF_LARGE, _I1_COEF_LARGE]


def _log_modified_bessel_fn(x: Tensor, order: int = 0) -> Tensor:
    """``log(I_order(x))`` for ``x > 0`` and order 0 or 1."""
    if order != 0 and order != 1:
        raise AssertionError(f"order must be 0 or 1, got {order}")
    # for small x
    y = x / 3.75
    y = y * y
    small = _eval_poly(y, _COEF_SMALL[order])
    if order == 1:
        small = x.abs() * small
    small = small.log()
    # for large x
    y = 3.75 / x
    large = x - 0.5 * x.log() + _eval_poly(y, _COEF_LARGE[order]).log()
    return hookgrad.where(x < 3.75, small, large)


def _rejection_sample(loc: Tensor, concentration: Tensor, proposal_r: Tensor, x: Tensor) -> Tensor:
    """Best and Fisher's rejection sampler, three uniforms per element and round, until
    every element is accepted."""
    done = hookgrad.zeros(x.shape, dtype=hookgrad.bool)
    while not done.all():
        u = hookgrad.rand((3,) + x.shape, dtype=loc.dtype)
        u1, u2, u3 = u.unbind()
        z = hookgrad.cos(math.pi * u1)
        f = (1 + proposal_r * z) / (proposal_r + z)
        c = concentration * (proposal_r - f)
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        if accept.any():
            x = hookgrad.where(accept, (u3 - 0.5).sign() * f.acos(), x)
            done = done | accept
    return (x + math.pi + loc) % (2 * math.pi) - math.pi


class VonMises(Distribution):
    """The circular von Mises distribution of mean direction ``loc`` and
    ``concentration``; samples are angles in ``[-pi, pi)``, drawn (in double precision)
    by Best and Fisher's rejection sampler. Not reparameterisable.

    Args:
        loc: the mean angle, in radians.
        concentration: the concentration, positive.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = VonMises(hookgrad.tensor([1.0]), hookgrad.tensor([1.0]))
        m.sample()      # von Mises distributed with loc=1 and concentration=1
    """

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(
        self, loc: Tensor, concentration: Tensor, validate_args: bool | None = None
    ) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        batch_shape = self.loc.shape
        event_shape = Size()
        super().__init__(batch_shape, event_shape, validate_args)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.concentration * hookgrad.cos(value - self.loc)
        return (
            log_prob - math.log(2 * math.pi) - _log_modified_bessel_fn(self.concentration, order=0)
        )

    @lazy_property
    def _loc(self) -> Tensor:
        return self.loc.to(hookgrad.double)

    @lazy_property
    def _concentration(self) -> Tensor:
        return self.concentration.to(hookgrad.double)

    @lazy_property
    def _proposal_r(self) -> Tensor:
        kappa = self._concentration
        tau = 1 + (1 + 4 * kappa**2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        proposal_r = (1 + rho**2) / (2 * rho)
        # second-order Taylor expansion around 0 for small kappa
        proposal_r_taylor = 1 / kappa + kappa
        return hookgrad.where(kappa < 1e-5, proposal_r_taylor, proposal_r)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """Samples drawn in double precision, returned in the parameters' dtype (no
        gradient)."""
        with hookgrad.no_grad():
            shape = self._extended_shape(sample_shape)
            x = hookgrad.empty(shape, dtype=self._loc.dtype)
            sample = _rejection_sample(self._loc, self._concentration, self._proposal_r, x)
            return sample.to(self.loc.dtype)

    def expand(self, batch_shape: Any, _instance: Any = None) -> VonMises:
        try:
            return super().expand(batch_shape)  # type: ignore[return-value]
        except NotImplementedError:
            validate_args = self.__dict__.get("_validate_args")
            loc = self.loc.expand(batch_shape)
            concentration = self.concentration.expand(batch_shape)
            return type(self)(loc, concentration, validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        """The circular mean (not the linear one)."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @lazy_property
    def variance(self) -> Tensor:  # type: ignore[override]
        """The circular variance (not the linear one)."""
        return (
            1
            - (
                _log_modified_bessel_fn(self.concentration, order=1)
                - _log_modified_bessel_fn(self.concentration, order=0)
            ).exp()
        )
