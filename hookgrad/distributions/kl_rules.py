"""What the closed forms of the Kullback-Leibler divergence share: ``KLRules``, the ordered
list of ``(type_p, type_q, function)`` a module of closed forms gives ``kl.py`` to
register, and small helpers of the formulas (``infinite_like``, ``x_log_x``,
``batch_trace_xxt``).

Example::

    RULES = KLRules()

    @RULES.register(Normal, Normal)
    def _kl_normal_normal(p, q): ...
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import hookgrad
from hookgrad.tensor.tensor import Tensor


class KLRules:
    """The closed forms of one module, as ``(type_p, type_q, function)`` in the order they
    are given; ``kl.py`` registers them with ``register_kl``.

    Example::

        RULES = KLRules()

        @RULES.register(Bernoulli, Bernoulli)
        def _kl_bernoulli_bernoulli(p, q): ...
    """

    def __init__(self) -> None:
        self.pairs: list[tuple[type, type, Callable[[Any, Any], Tensor]]] = []

    def register(
        self, type_p: type, type_q: type
    ) -> Callable[[Callable[[Any, Any], Tensor]], Callable[[Any, Any], Tensor]]:
        """A decorator adding ``function`` as the closed form for ``(type_p, type_q)``."""

        def decorator(function: Callable[[Any, Any], Tensor]) -> Callable[[Any, Any], Tensor]:
            self.pairs.append((type_p, type_q, function))
            return function

        return decorator


def infinite_like(tensor: Tensor) -> Tensor:
    """A tensor of ``inf`` like ``tensor`` (the divergence where supports differ)."""
    return hookgrad.full_like(tensor, math.inf)


def x_log_x(tensor: Tensor) -> Tensor:
    """``x * log(x)``, 0 at 0 (``xlogy(x, x)``)."""
    return hookgrad.special.xlogy(tensor, tensor)


def batch_trace_xxt(bmat: Tensor) -> Tensor:
    """The traces of ``X X^T`` for a batch of matrices ``X``."""
    n = bmat.size(-1)
    m = bmat.size(-2)
    flat_trace = bmat.reshape(-1, m * n).pow(2).sum(-1)
    return flat_trace.reshape(bmat.shape[:-2])


def shapes_error(which: str) -> str:
    """torch's message (with its line continuation's spaces) for different event shapes."""
    return (
        f"KL-divergence between {which} with"
        + " " * 26
        + ("different event shapes cannot be computed")
    )
