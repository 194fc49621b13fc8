"""The one-hot categorical distribution, and its straight-through variant."""

from __future__ import annotations

from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.categorical import Categorical
from hookgrad.distributions.distribution import Distribution
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


def _one_hot(indices: Tensor, num_classes: int) -> Tensor:
    """``nn.functional.one_hot``: int64 one-hot vectors of the ``indices``."""
    return hookgrad.eye(num_classes, dtype=hookgrad.long)[indices]


class OneHotCategorical(Distribution):
    """A categorical distribution whose samples are one-hot vectors of length ``K``
    (the last dim of ``probs`` or ``logits``; give one of them).

    Args:
        probs: non-negative weights of the categories (normalised to sum to 1).
        logits: unnormalised log-probabilities.
        validate_args: whether to check the arguments (None: the default).

    Example::

        m = OneHotCategorical(hookgrad.tensor([0.25, 0.25, 0.25, 0.25]))
        m.sample()      # e.g. tensor([0., 0., 0., 1.])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(
        self, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args: Any, **kwargs: Any) -> Tensor:
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return _one_hot(mode, probs.shape[-1]).to(probs)

    @property
    def variance(self) -> Tensor:
        return self._categorical.probs * (1 - self._categorical.probs)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        sample_shape = Size(sample_shape)
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return _one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value: Any) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = hookgrad.eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + self.batch_shape + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` with the straight-through gradient estimator: ``rsample``
    returns the one-hot sample plus ``probs - probs.detach()``, so that gradients flow to
    the probabilities (Bengio et al., 2013).

    Example::

        m = OneHotCategoricalStraightThrough(logits=logits)
        m.rsample().mul(weights).sum().backward()   # logits.grad is set
    """

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs  # cached by the sample above
        return samples + (probs - probs.detach())
