"""Dims and index tuples the view and indexing ops share: ``wrapped`` (a dim already
checked, as a non-negative index) and ``index_along`` (an index tuple that applies a key
to one dim only).

Example: ``wrapped(-1, 3)`` is ``2``; ``a[index_along(1, 0)]`` is ``a[:, 0, ...]``.
"""

from __future__ import annotations

from typing import Any


def index_along(dim: int, key: Any) -> tuple[Any, ...]:
    """An index tuple applying ``key`` (an int or a slice) to ``dim`` (non-negative) only.

    The trailing ``...`` makes NumPy return a 0-d view, not a scalar, for a 1-d array.
    """
    return (slice(None),) * dim + (key, Ellipsis)


def wrapped(dim: int, ndim: int) -> int:
    """A dim as given (``-1``: the last one; already checked) as a non-negative index
    into ``ndim`` dims; a 0-dim tensor's dims are ``0`` and ``-1``, as in torch."""
    return dim % ndim if ndim else 0
