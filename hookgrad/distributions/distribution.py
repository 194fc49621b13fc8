"""``Distribution``: the base class of every probability distribution.

A distribution has a ``batch_shape`` (independent, possibly different distributions
side by side) and an ``event_shape`` (the shape of one sample); ``sample(sample_shape)``
returns a tensor of ``sample_shape + batch_shape + event_shape``. With validation on
(the default, as Python's ``assert``: off under ``python -O``), the constructor checks
each parameter against ``arg_constraints`` and ``log_prob``/``cdf`` check their value
against ``support``, raising torch's ``ValueError``s.

Example::

    d = Normal(hookgrad.zeros(3), 1.0)
    d.batch_shape, d.event_shape          # (torch.Size([3]), torch.Size([]))
    d.sample((2,)).shape                  # torch.Size([2, 3])
"""

from __future__ import annotations

import warnings
from typing import Any

import hookgrad
from hookgrad.distributions import constraints
from hookgrad.distributions.utils import lazy_property
from hookgrad.tensor.size import Size
from hookgrad.tensor.tensor import Tensor

__all__ = ["Distribution"]

_NO_DIMS = Size()


class Distribution:
    """The abstract base class of probability distributions.

    Args:
        batch_shape: the shape over which the parameters are batched.
        event_shape: the shape of one sample (without batching).
        validate_args: whether to check the parameters and the values scored (None: the
            default, ``Distribution.set_default_validate_args``).

    Example::

        class Coin(Distribution):
            arg_constraints = {}
            support = constraints.boolean

            def sample(self, sample_shape=()):
                return hookgrad.bernoulli(hookgrad.full(sample_shape, 0.5))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for every distribution made afterwards
        without ``validate_args`` (the default: on, unless Python runs with ``-O``).

        Example: ``Distribution.set_default_validate_args(False)``.
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(
        self,
        batch_shape: Any = _NO_DIMS,
        event_shape: Any = _NO_DIMS,
        validate_args: bool | None = None,
    ) -> None:
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_arguments()
        super().__init__()

    def _check_arguments(self) -> None:
        """torch's check of each parameter against its constraint."""
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(
                f"{self.__class__} does not define `arg_constraints`. Please set "
                "`arg_constraints = {}` or initialize the distribution with "
                "`validate_args=False` to turn off validation.",
                stacklevel=3,
            )
        for param, constraint in arg_constraints.items():
            if constraints.is_dependent(constraint):
                continue  # cannot be checked
            if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                continue  # not computed yet (``logits`` of a distribution given ``probs``)
            value = getattr(self, param)
            if not _all_true(constraint.check(value)):
                raise ValueError(
                    f"Expected parameter {param} ({type(value).__name__} of shape "
                    f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                    f"constraint {constraint!r}, but found invalid values:\n{value}"
                )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A new distribution (or ``_instance``, filled in) with the batch dims expanded to
        ``batch_shape``: the parameters are expanded views, not copies, and are not checked
        again.

        Example: ``Normal(0.0, 1.0).expand([3]).batch_shape`` is ``torch.Size([3])``.
        """
        raise NotImplementedError

    @property
    def batch_shape(self) -> Size:
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of one sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """The constraint each parameter (by name) must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> constraints.Constraint | None:
        """The constraint describing where the distribution has its mass."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without
        gradient.

        Example: ``Normal(0.0, 1.0).sample((3,))``.
        """
        with hookgrad.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterised sample: differentiable in the parameters (where
        ``has_rsample``).

        Example: ``Normal(mu, sigma).rsample().sum().backward()`` fills ``mu.grad``.
        """
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """Deprecated: ``sample((n,))``."""
        warnings.warn(
            "`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
            FutureWarning,
            stacklevel=2,
        )
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the probability density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """Every value of a discrete distribution's support along dim 0: shape
        ``(cardinality,) + batch_shape + event_shape`` (with ``expand=False``, the batch
        dims are 1).

        Example: ``Bernoulli(0.3).enumerate_support()`` is ``tensor([0., 1.])``.
        """
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, of shape ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy())``, of shape ``batch_shape``."""
        return hookgrad.exp(self.entropy())

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        """``sample_shape + batch_shape + event_shape``."""
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def _validate_sample(self, value: Tensor) -> None:
        """torch's checks of a value to score: a tensor, whose rightmost dims match the
        event shape and broadcast with the batch shape, within the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if value.size()[event_dim_start:] != self._event_shape:
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.size()} vs "
                f"{self._event_shape}."
            )
        actual_shape = value.size()
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{actual_shape} vs {expected_shape}."
                )
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(
                f"{self.__class__} does not define `support` to enable sample validation. "
                "Please initialize the distribution with `validate_args=False` to turn off "
                "validation.",
                stacklevel=3,
            )
            return
        if support is None:
            raise AssertionError("support is unexpectedly None")
        if not _all_true(support.check(value)):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({support!r}) of the "
                f"distribution {self!r}, but found invalid values:\n{value}"
            )

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        """A new, empty instance for ``expand`` (or ``_instance``); a subclass with its
        own ``__init__`` must define its own ``expand``."""
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        shown = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in names
        )
        return self.__class__.__name__ + "(" + shown + ")"


def _all_true(valid: Tensor) -> bool:
    """Whether every element of the boolean tensor ``valid`` is True."""
    return bool(valid._data.all())
