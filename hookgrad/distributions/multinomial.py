"""The multinomial distribution."""

from __future__ import annotations

import math
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.binomial import Binomial
from hookgrad.distributions.categorical import Categorical
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.utils import broadcast_all
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The counts of ``total_count`` draws from a categorical distribution of ``probs``
    (or ``logits``; give one of them). ``sample`` needs one ``total_count`` shared by the
    batch; ``log_prob`` accepts any counts.

    Args:
        total_count: the number of draws (an int).
        probs: non-negative weights of the categories (normalised to sum to 1).
        logits: unnormalised log-probabilities.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = Multinomial(100, hookgrad.tensor([1.0, 1.0, 1.0, 1.0]))
        x = m.sample()      # e.g. tensor([21., 24., 30., 25.])
        m.log_prob(x)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    total_count: int

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(
        self,
        total_count: int = 1,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        sample_shape = Size(sample_shape)
        samples = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # samples.shape is (total_count, sample_shape, batch_shape): the counts are summed
        # over the first dim, moved last for scatter_add_
        shifted_idx = list(range(samples.dim()))
        shifted_idx.append(shifted_idx.pop(0))
        samples = samples.permute(*shifted_idx)
        counts = samples.new(self._extended_shape(sample_shape)).zero_()
        counts.scatter_add_(-1, samples, hookgrad.ones_like(samples))
        return counts.type_as(self.probs)

    def entropy(self) -> Tensor:
        n = hookgrad.tensor(self.total_count)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - hookgrad.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = hookgrad.exp(self._binomial.log_prob(support))
        weights = hookgrad.lgamma(support + 1)
        term2 = (binomial_probs * weights).sum([0, -1])
        return term1 + term2

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format=hookgrad.contiguous_format)
        log_factorial_n = hookgrad.lgamma(value.sum(-1) + 1)
        log_factorial_xs = hookgrad.lgamma(value + 1).sum(-1)
        logits[(value == 0) & (logits == -math.inf)] = 0
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
