"""The ``index_*`` functions: ``index_select``, ``index_add``, ``index_reduce``,
``index_copy`` and ``index_fill`` (entries of a dim chosen by a 1-d index), with torch's
checks, dtype rules and errors; and their ``Tensor`` methods (``IndexFunctionMethods``).

Example: ``hookgrad.arange(6.0).reshape(2, 3).index_select(1, hookgrad.tensor([2, 0]))``
is ``tensor([[2., 0.], [5., 3.]])``.
"""

from __future__ import annotations

import warnings
from operator import index as _as_int
from typing import Any

from hookgrad.ops import indexing as ops
from hookgrad.ops import scatter_reduce as reduce_ops
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply
from hookgrad.tensor.functions.index_parsing import (
    is_tensor,
    scalar_type_name,
)
from hookgrad.tensor.functions.indexing import check_in_range, dim_size

__all__ = ["index_add", "index_copy", "index_fill", "index_reduce", "index_select"]


# ---------------------------------------------------------------- index_select / index_add


def index_select(input: Any, dim: int, index: Any) -> Any:
    """The slices of ``input`` along ``dim`` at the positions in the vector ``index``.

    Example: ``x.index_select(0, hookgrad.tensor([2, 0]))`` is rows 2 and 0 of ``x``.
    """
    shape, array = input._data.shape, index._data
    given = _as_int(dim)
    dim = wrap_dim(given, len(shape))
    if index.dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if array.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if not shape:
        if array.size != 1:
            raise RuntimeError(
                f"index_select(): Index to scalar can have only 1 value, got {array.size} value(s)"
            )
        if array.reshape(()) != 0:
            raise IndexError("index out of range in self")
    elif array.size and (array.min() < 0 or array.max() >= shape[dim]):
        bad = array[(array < 0) | (array >= shape[dim])][0]
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={shape[dim]}")
    return apply(ops.IndexSelect(given), input, index)


def index_add(input: Any, dim: int, index: Any, source: Any, *, alpha: Any = 1) -> Any:
    """``input`` with ``alpha * source`` added at the positions ``index`` picks along ``dim``.

    ``source`` has ``input``'s shape except along ``dim``, where it has one slice per
    entry of ``index``; repeated positions add up. Example::

        hookgrad.zeros(3).index_add(0, hookgrad.tensor([0, 0]), hookgrad.ones(2))
        # tensor([2., 0., 0.])
    """
    given = _check_index_func("index_add_", input, dim, index, source)
    shape, array = input._data.shape, index._data
    dim = wrap_dim(given, len(shape))
    if index.dtype is dtypes.int32 and array.size:
        if array.min() < 0 or array.max() >= dim_size(shape, dim):
            raise IndexError("index out of range in self")  # torch's int32 kernel says this
    check_in_range(array, dim, dim_size(shape, dim))
    return apply(ops.IndexAdd(given, alpha), input, index, source)


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")
INDEX_REDUCE_WARNING = "index_reduce() is in beta and the API may change at any time."


def index_reduce(
    input: Any, dim: int, index: Any, source: Any, reduce: str, *, include_self: bool = True
) -> Any:
    """``input`` with the slices of ``source`` reduced (``"prod"``, ``"mean"``,
    ``"amax"``, ``"amin"``) into the positions the vector ``index`` picks along ``dim``.

    With ``include_self=False`` those positions start from the reduced slices only.
    Example::

        hookgrad.ones(3).index_reduce(0, hookgrad.tensor([0, 0]),
                                      hookgrad.tensor([2.0, 3.0]), "prod")
        # tensor([6., 1., 1.])
    """
    op = index_reduce_op(input, dim, index, source, reduce, include_self)
    return apply(op, input, index, source)


def index_reduce_op(
    input: Any, dim: int, index: Any, source: Any, reduce: str, include_self: bool
) -> reduce_ops.IndexReduce:
    """The node of ``index_reduce`` after torch's checks (``index_reduce_`` runs it in
    place)."""
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    warnings.warn(INDEX_REDUCE_WARNING, UserWarning, stacklevel=3)
    given = _check_index_func("index_reduce_", input, dim, index, source)
    size = dim_size(input._data.shape, wrap_dim(given, input._data.ndim))
    array = index._data
    if array.size and (array.min() < 0 or array.max() >= size):
        raise IndexError("index out of range in self")
    if input.dtype is dtypes.bool_ or input.dtype.is_complex:
        raise NotImplementedError(
            f"\"index_func_\" not implemented for '{scalar_type_name(input.dtype)}'"
        )
    return reduce_ops.IndexReduce(given, reduce, bool(include_self))


def index_copy(input: Any, dim: int, index: Any, source: Any) -> Any:
    """``input`` with the slices of ``source`` written at the positions the vector
    ``index`` picks along ``dim`` (where ``index`` repeats, the last one written stays).

    Example::

        hookgrad.zeros(3, 2).index_copy(0, hookgrad.tensor([2, 0]), hookgrad.ones(2, 2))
        # rows 2 and 0 are ones
    """
    shape, source_shape, array = input._data.shape, source._data.shape, index._data
    given = _as_int(dim)
    dim = wrap_dim(given, len(shape))
    if array.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {array.ndim})")
    if not source_shape and array.size != 1:
        raise IndexError(
            f"index_copy_(): When source is scalar, index should have one element (got "
            f"{array.size})"
        )
    if len(source_shape) != len(shape) and source_shape and shape:
        raise IndexError(
            "index_copy_(): When source and destination are not scalars, their dimensionality "
            f"must match. Source dimensionality ({len(source_shape)}), destination "
            f"dimensionality ({len(shape)})"
        )
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            "index_copy_(): Expected a long tensor for index, but got "
            f"{scalar_type_name(index.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{scalar_type_name(input.dtype)} and (source) {scalar_type_name(source.dtype)}"
        )
    sliced = [size for d, size in enumerate(shape) if d != dim]
    source_sliced = [size for d, size in enumerate(source_shape) if d != dim]
    if sliced != source_sliced:
        raise RuntimeError(
            "index_copy_(): Source/destination tensor must have same slice shapes. "
            f"Destination slice shape: {' '.join(map(str, sliced))} at dimension {dim} and "
            f"source slice shape: {' '.join(map(str, source_sliced))} at dimension 0."
        )
    if source_shape and array.size != source_shape[dim]:
        raise IndexError(
            f"index_copy_(): Number of indices ({array.size}) should be equal to "
            f"source.size(dim) ({source_shape[dim]})"
        )
    size = dim_size(shape, dim)
    if array.size and (array.min() < 0 or array.max() >= size):
        bad = array[(array < 0) | (array >= size)].flat[0]
        raise IndexError(
            f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}"
        )
    return apply(reduce_ops.IndexCopy(given), input, index, source)


def _check_index_func(name: str, input: Any, dim: int, index: Any, source: Any) -> int:
    """torch's checks shared by ``index_add`` and ``index_reduce`` (``name``: the in-place
    op its messages name); returns ``dim`` as given."""
    shape, source_shape, array = input._data.shape, source._data.shape, index._data
    given = _as_int(dim)
    dim = wrap_dim(given, len(shape))
    if array.ndim > 1:
        raise IndexError(
            f"{name}(): Index is supposed to be a vector, but got dim: {array.ndim} with "
            f"type: {scalar_type_name(index.dtype)} and size: {list(array.shape)}"
        )
    if index.dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError(
            f"{name}(): Expected dtype int32/int64 for index but got: "
            f"{scalar_type_name(index.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"{name}(): self ({scalar_type_name(input.dtype)}) and source "
            f"({scalar_type_name(source.dtype)}) must have the same scalar type"
        )
    if array.size != dim_size(source_shape, dim):
        raise RuntimeError(
            f"{name}(): Number of indices ({array.size}) should be equal to "
            f"source.size(dim): ({dim_size(source_shape, dim)}), for dim: {dim}"
        )
    if max(len(shape), 1) != max(len(source_shape), 1) or any(
        d != dim and size != shape[d] for d, size in enumerate(source_shape)
    ):
        raise RuntimeError(
            "source tensor shape must match self tensor shape, excluding the specified "
            f"dimension. Got self.shape = {list(shape)} source.shape = {list(source_shape)}"
        )
    return given


def index_fill(input: Any, dim: int, index: Any, value: Any) -> Any:
    """``input`` with ``value`` (a number or a 0-dim tensor, which then gets the gradient
    of the filled places) at the positions the vector ``index`` picks along ``dim``.

    Example: ``hookgrad.zeros(2, 3).index_fill(1, hookgrad.tensor([0, 2]), 1.0)``.
    """
    shape, array = input._data.shape, index._data
    given = _as_int(dim)
    dim = wrap_dim(given, len(shape))
    if index.dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if array.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = dim_size(shape, dim)
    if array.size and (array.min() < -size or array.max() >= size):
        bad = array[(array < -size) | (array >= size)].flat[0]
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    if not is_tensor(value):
        return apply(ops.IndexFill(given, value), input, index)
    if value._data.ndim:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    return apply(ops.IndexFillTensor(given), input, index, value)


class IndexFunctionMethods:
    """The ``index_*`` methods of ``Tensor``."""

    index_select = index_select
    index_add = index_add
    index_copy = index_copy
    index_reduce = index_reduce
    index_fill = index_fill
