"""The negative binomial distribution."""

from __future__ import annotations

from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.gamma import Gamma
from hookgrad.distributions.utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from hookgrad.nn import functional as F
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """The number of successes in Bernoulli trials of probability ``probs`` (or log-odds
    ``logits``; give one of them) before ``total_count`` failures.

    Args:
        total_count: the number of failures to stop at (non-negative; may be real).
        probs: the probability of success, in ``[0, 1)``.
        logits: its log-odds.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = NegativeBinomial(hookgrad.tensor(5.0), hookgrad.tensor(0.3))
        m.sample()      # e.g. tensor(2.)
    """

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer

    def __init__(
        self,
        total_count: Any,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> NegativeBinomial:
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._param.new(*args, **kwargs)

    @property
    def mean(self) -> Tensor:
        return self.total_count * hookgrad.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / hookgrad.sigmoid(-self.logits)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @lazy_property
    def _gamma(self) -> Gamma:
        # a Gamma-Poisson mixture: its rate is gamma distributed
        return Gamma(
            concentration=self.total_count,
            rate=hookgrad.exp(-self.logits),
            validate_args=False,
        )

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with hookgrad.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return hookgrad.poisson(rate)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = self.total_count * F.logsigmoid(
            -self.logits
        ) + value * F.logsigmoid(self.logits)
        log_normalization = (
            -hookgrad.lgamma(self.total_count + value)
            + hookgrad.lgamma(1.0 + value)
            + hookgrad.lgamma(self.total_count)
        )
        # the normalization is 1 (its log 0) where total_count + value == 0
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
