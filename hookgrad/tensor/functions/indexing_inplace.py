"""The in-place variants of indexing and triangle ops that ``inplace.py`` does not have
(``scatter_reduce_``, ``index_reduce_``, ``index_copy_``, ``index_fill_``,
``masked_scatter_``, ``put_``, ``tril_``, ``triu_``): each runs the out-of-place op and
writes its result into ``input`` as the other in-place ops do (version counter, view and
leaf checks, the in-place node names). Their ``Tensor`` methods are in ``ShapeMethods``.

NOTE: they live apart from ``indexing.py`` and ``joining.py`` because those may not
import ``inplace.py`` (it imports them).

Example: ``hookgrad.zeros(3).index_fill_(0, hookgrad.tensor([1]), 2.0)`` is
``tensor([0., 2., 0.])``.
"""

from __future__ import annotations

from typing import Any

from hookgrad.tensor import dtypes
from hookgrad.tensor.functions.index_functions import index_copy, index_fill, index_reduce_op
from hookgrad.tensor.functions.indexing import masked_scatter, scatter_reduce_op
from hookgrad.tensor.functions.inplace import run_inplace, run_inplace_op
from hookgrad.tensor.functions.joining import (
    tril,
    triu,
)
from hookgrad.tensor.functions.positions import put

# ---------------------------------------------------------------- in-place variants
# NOTE: the in-place variants of shape and indexing ops that ``inplace.py`` does not
# have live here: this module may import it, ``indexing.py`` and ``joining.py`` may not
# (``inplace.py`` imports them).


def scatter_reduce_(
    input: Any, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True
) -> Any:
    """``scatter_reduce`` in place; returns ``input``."""
    op = scatter_reduce_op(input, dim, index, src, reduce, include_self)
    return run_inplace_op(input, op, (index, src), copy=True)


def index_reduce_(
    input: Any, dim: int, index: Any, source: Any, reduce: str, *, include_self: bool = True
) -> Any:
    """``index_reduce`` in place; returns ``input``."""
    op = index_reduce_op(input, dim, index, source, reduce, include_self)
    return run_inplace_op(input, op, (index, source), copy=True)


def index_copy_(input: Any, dim: int, index: Any, source: Any) -> Any:
    """``index_copy`` in place; returns ``input``."""
    return run_inplace(input, lambda x, i, s: index_copy(x, dim, i, s), (index, source))


def index_fill_(input: Any, dim: int, index: Any, value: Any) -> Any:
    """``index_fill`` in place; returns ``input``."""
    return run_inplace(input, lambda x, i, v: index_fill(x, dim, i, v), (index, value))


def masked_scatter_(input: Any, mask: Any, source: Any) -> Any:
    """``masked_scatter`` in place (``mask`` broadcasts to ``input``'s shape); returns
    ``input``."""
    shape, mask_shape = input._data.shape, mask._data.shape
    if len(mask_shape) > len(shape):
        raise RuntimeError(
            f"expand(CPU{dtypes.legacy_name(mask.dtype)}Type{{{list(mask_shape)}}}, "
            f"size={list(shape)}): the number of sizes provided ({len(shape)}) must be greater "
            f"or equal to the number of dimensions in the tensor ({len(mask_shape)})"
        )
    mask.expand(shape)
    return run_inplace(input, masked_scatter, (mask, source))


def put_(input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:
    """``put`` in place; returns ``input``."""
    return run_inplace(input, lambda x, i, s: put(x, i, s, accumulate), (index, source))


def tril_(input: Any, diagonal: int = 0) -> Any:
    """``tril`` in place; returns ``input``."""
    return run_inplace(input, lambda x: tril(x, diagonal))


def triu_(input: Any, diagonal: int = 0) -> Any:
    """``triu`` in place; returns ``input``."""
    return run_inplace(input, lambda x: triu(x, diagonal))
