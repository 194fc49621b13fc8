"""The continuous Bernoulli distribution."""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.exp_family import ExponentialFamily
from hookgrad.distributions.utils import (
    Number,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from hookgrad.nn.functional import binary_cross_entropy_with_logits
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on ``[0, 1]`` (Loaiza-Ganem and Cunningham,
    2019): density proportional to ``probs**x (1 - probs)**(1 - x)``. Near
    ``probs = 1/2`` (within ``lims``) Taylor expansions replace the unstable closed forms.

    Args:
        probs: the parameter in ``(0, 1)`` (give ``probs`` or ``logits``).
        logits: its log-odds.
        lims: the interval around 1/2 where the Taylor expansions are used.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = ContinuousBernoulli(hookgrad.tensor([0.3]))
        m.sample()
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(
        self,
        probs: Any = None,
        logits: Any = None,
        lims: tuple[float, float] = (0.499, 0.501),
        validate_args: bool | None = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            is_scalar = isinstance(probs, Number)
            (self.probs,) = broadcast_all(probs)
            # validated here, before the clamping below hides invalid values
            if validate_args is not None:
                if not self.arg_constraints["probs"].check(self.probs).all():
                    raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
        else:
            is_scalar = isinstance(logits, Number)
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        batch_shape = Size() if is_scalar else self._param.size()
        self._lims = lims
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ContinuousBernoulli:
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = Size(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    def _outside_unstable_region(self) -> Tensor:
        return hookgrad.max(
            hookgrad.le(self.probs, self._lims[0]), hookgrad.gt(self.probs, self._lims[1])
        )

    def _cut_probs(self) -> Tensor:
        return hookgrad.where(
            self._outside_unstable_region(),
            self.probs,
            self._lims[0] * hookgrad.ones_like(self.probs),
        )

    def _cont_bern_log_norm(self) -> Tensor:
        """The log of the normalising constant, a Taylor expansion near 1/2."""
        cut_probs = self._cut_probs()
        cut_probs_below_half = hookgrad.where(
            hookgrad.le(cut_probs, 0.5), cut_probs, hookgrad.zeros_like(cut_probs)
        )
        cut_probs_above_half = hookgrad.where(
            hookgrad.ge(cut_probs, 0.5), cut_probs, hookgrad.ones_like(cut_probs)
        )
        log_norm = hookgrad.log(
            hookgrad.abs(hookgrad.log1p(-cut_probs) - hookgrad.log(cut_probs))
        ) - hookgrad.where(
            hookgrad.le(cut_probs, 0.5),
            hookgrad.log1p(-2.0 * cut_probs_below_half),
            hookgrad.log(2.0 * cut_probs_above_half - 1.0),
        )
        x = hookgrad.pow(self.probs - 0.5, 2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return hookgrad.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> Tensor:
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (
            hookgrad.log1p(-cut_probs) - hookgrad.log(cut_probs)
        )
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * hookgrad.pow(x, 2)) * x
        return hookgrad.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self) -> Tensor:
        return hookgrad.sqrt(self.variance)

    @property
    def variance(self) -> Tensor:
        cut_probs = self._cut_probs()
        variances = cut_probs * (cut_probs - 1.0) / hookgrad.pow(
            1.0 - 2.0 * cut_probs, 2
        ) + 1.0 / hookgrad.pow(hookgrad.log1p(-cut_probs) - hookgrad.log(cut_probs), 2)
        x = hookgrad.pow(self.probs - 0.5, 2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return hookgrad.where(self._outside_unstable_region(), variances, taylor)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = hookgrad.rand(shape, dtype=self.probs.dtype)
        with hookgrad.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = hookgrad.rand(shape, dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (
            -binary_cross_entropy_with_logits(logits, value, reduction="none")
            + self._cont_bern_log_norm()
        )

    def cdf(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = (
            hookgrad.pow(cut_probs, value) * hookgrad.pow(1.0 - cut_probs, 1.0 - value)
            + cut_probs
            - 1.0
        ) / (2.0 * cut_probs - 1.0)
        unbounded_cdfs = hookgrad.where(self._outside_unstable_region(), cdfs, value)
        return hookgrad.where(
            hookgrad.le(value, 0.0),
            hookgrad.zeros_like(value),
            hookgrad.where(hookgrad.ge(value, 1.0), hookgrad.ones_like(value), unbounded_cdfs),
        )

    def icdf(self, value: Any) -> Tensor:
        cut_probs = self._cut_probs()
        return hookgrad.where(
            self._outside_unstable_region(),
            (
                hookgrad.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0))
                - hookgrad.log1p(-cut_probs)
            )
            / (hookgrad.log(cut_probs) - hookgrad.log1p(-cut_probs)),
            value,
        )

    def entropy(self) -> Tensor:
        log_probs0 = hookgrad.log1p(-self.probs)
        log_probs1 = hookgrad.log(self.probs)
        return self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm() - log_probs0

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        """The log normalizer in the natural parameter, a Taylor expansion near 0."""
        out_unst_reg = hookgrad.max(
            hookgrad.le(x, self._lims[0] - 0.5), hookgrad.gt(x, self._lims[1] - 0.5)
        )
        cut_nat_params = hookgrad.where(
            out_unst_reg, x, (self._lims[0] - 0.5) * hookgrad.ones_like(x)
        )
        log_norm = hookgrad.log(
            hookgrad.abs(hookgrad.special.expm1(cut_nat_params))
        ) - hookgrad.log(hookgrad.abs(cut_nat_params))
        taylor = 0.5 * x + hookgrad.pow(x, 2) / 24.0 - hookgrad.pow(x, 4) / 2880.0
        return hookgrad.where(out_unst_reg, log_norm, taylor)
