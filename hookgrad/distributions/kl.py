"""The Kullback-Leibler divergence ``kl_divergence(p, q)`` and its registry of closed
forms by pair of distribution types (``register_kl``), torch's pairs and formulas.

A call dispatches on ``(type(p), type(q))`` to the most specific registered pair (a
warning names an ambiguous choice), remembered per pair of types. The closed forms are in
``kl_same_family.py`` and ``kl_cross_family.py`` (registered here, in torch's order) and
the two that recurse into ``kl_divergence`` (``Independent``, ``TransformedDistribution``)
here.

Example::

    p, q = Normal(0.0, 1.0), Normal(1.0, 2.0)
    kl_divergence(p, q)          # tensor(0.4431)
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

from hookgrad.distributions import kl_cross_family, kl_same_family
from hookgrad.distributions.distribution import Distribution
from hookgrad.distributions.independent import Independent
from hookgrad.distributions.transformed_distribution import TransformedDistribution
from hookgrad.distributions.utils import _sum_rightmost
from hookgrad.tensor.tensor import Tensor

__all__ = ["register_kl", "kl_divergence"]

KL = Callable[[Any, Any], Tensor]
_KL_REGISTRY: dict[tuple[type, type], KL] = {}  # the registered pairs
_KL_MEMOIZE: dict[tuple[type, type], Any] = {}  # each pair of types' resolved function


def register_kl(type_p: type, type_q: type) -> Callable[[KL], KL]:
    """A decorator registering ``kl(p, q)`` for ``p`` of ``type_p`` and ``q`` of
    ``type_q`` (and their subclasses, where no more specific pair is registered).

    Example::

        @register_kl(Normal, Normal)
        def kl_normal_normal(p, q):
            ...
    """
    if not isinstance(type_p, type) and issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) and issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: KL) -> KL:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()  # reset since the lookup order may have changed
        return fun

    return decorator


@functools.total_ordering
class _Match:
    """A registered pair, ordered by specificity (lexicographically by subclassing)."""

    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Match) and self.types == other.types

    def __le__(self, other: _Match) -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p: type, type_q: type) -> Any:
    """The most specific registered function for ``(type_p, type_q)`` (NotImplemented:
    none), warning when the most specific by ``p`` and by ``q`` differ."""
    matches = [
        (super_p, super_q)
        for super_p, super_q in _KL_REGISTRY
        if issubclass(type_p, super_p) and issubclass(type_q, super_q)
    ]
    if not matches:
        return NotImplemented
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    right_fun = _KL_REGISTRY[right_p, right_q]
    if left_fun is not right_fun:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({left_p.__name__}, {right_q.__name__})",
            RuntimeWarning,
            stacklevel=3,
        )
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """The Kullback-Leibler divergence ``KL(p || q) = E_p[log p(x) - log q(x)]``, of
    shape ``batch_shape``, by the closed form registered for the pair of types.

    Raises ``NotImplementedError`` where no pair is registered.

    Example::

        kl_divergence(Bernoulli(0.3), Bernoulli(0.5))    # tensor(0.0823)
    """
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and q type "
            f"{q.__class__.__name__}"
        )
    return fun(p, q)


# The closed forms of ``kl_same_family.py`` and ``kl_cross_family.py``, in torch's order;
# the two that recurse into ``kl_divergence`` follow.
for _rules in (kl_same_family.RULES, kl_cross_family.RULES):
    for _type_p, _type_q, _function in _rules.pairs:
        register_kl(_type_p, _type_q)(_function)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


def _add_kl_info() -> None:
    """Append the list of registered pairs to ``kl_divergence``'s docstring."""
    rows = ["KL divergence is currently implemented for the following distribution pairs:"]
    for p, q in sorted(_KL_REGISTRY, key=lambda p_q: (p_q[0].__name__, p_q[1].__name__)):
        rows.append(
            f"* :class:`~torch.distributions.{p.__name__}` and "
            f":class:`~torch.distributions.{q.__name__}`"
        )
    kl_info = "\n\t".join(rows)
    if kl_divergence.__doc__:
        kl_divergence.__doc__ += kl_info
