"""The relaxed one-hot categorical (Concrete, Gumbel-softmax) distribution."""

from __future__ import annotations

from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.categorical import Categorical
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.transformed_distribution import TransformedDistribution
from hookgrad.distributions.transforms import ExpTransform
from hookgrad.distributions.utils import broadcast_all, clamp_probs
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(Distribution):
    """The logarithm of a ``RelaxedOneHotCategorical`` sample (the ExpConcrete
    distribution of Maddison et al., 2017): normalised Gumbel-perturbed logits over
    ``temperature``.

    Args:
        temperature: the relaxation temperature.
        probs: non-negative weights of the categories (give ``probs`` or ``logits``).
        logits: unnormalised log-probabilities.
        validate_args: whether to check the arguments (None: the default).

    Example::

        ExpRelaxedCategorical(hookgrad.tensor(0.5), logits=hookgrad.zeros(3)).rsample()
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector  # the exponentials of the samples are on the simplex
    has_rsample = True

    def __init__(
        self,
        temperature: Tensor,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(
            batch_shape, self.event_shape, validate_args=False
        )
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(hookgrad.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Any) -> Tensor:
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = hookgrad.full_like(
            self.temperature, float(k)
        ).lgamma() - self.temperature.log().mul(-(k - 1))
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """The relaxed one-hot categorical (Concrete, Gumbel-softmax) distribution on the
    simplex: the exponential of an ``ExpRelaxedCategorical`` sample; reparameterisable.

    Args:
        temperature: the relaxation temperature.
        probs: non-negative weights of the categories (give ``probs`` or ``logits``).
        logits: unnormalised log-probabilities.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = RelaxedOneHotCategorical(hookgrad.tensor([2.2]),
                                     hookgrad.tensor([0.1, 0.2, 0.3, 0.4]))
        m.sample()
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True
    base_dist: ExpRelaxedCategorical

    def __init__(
        self,
        temperature: Tensor,
        probs: Any = None,
        logits: Any = None,
        validate_args: bool | None = None,
    ) -> None:
        base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs
