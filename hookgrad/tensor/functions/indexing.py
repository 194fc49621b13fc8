"""Indexing functions (``[]``, index_put, gather, scatter, masks, take ...) and Tensor methods.

``tensor[index]`` follows torch: ints select (a view), slices slice (a view, steps > 0),
None inserts a dim, ``...`` skips dims, and int / bool tensors or lists index
"advanced" (a copy). torch applies the basic part first and then the advanced part to
that view, with NumPy's rule for where the advanced dims go (in front when a slice
separates them); ``_parse_index`` turns the index into an ``ops.indexing.Key`` that
does the same (``index_parsing``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from operator import index as _as_int
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import indexing as ops
from hookgrad.ops import shape as views
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.index_parsing import (
    _is_full,
    _is_tensor,
    _parse_index,
    _type_name,
)
from hookgrad.tensor.layout import contiguous_format

__all__ = [
    "argwhere",
    "gather",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "index_reduce",
    "index_select",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "nonzero",
    "nonzero_static",
    "put",
    "repeat_interleave",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "take",
    "take_along_dim",
    "unravel_index",
]

# ---------------------------------------------------------------- [] and index_put


# torch's end of a slice without one (``x[1:]``), as its SliceBackward0 saves it.
_INT64_MAX = 2**63 - 1


def _getitem(input: Any, index: Any) -> Any:
    """``input[index]`` as torch reads it (see the module docstring) and records it: one
    view node per entry of the basic part (SelectBackward0, SliceBackward0 except for a
    whole dim inside a tuple, UnsqueezeBackward0), AliasBackward0 when none applies, then
    IndexBackward0 for the advanced part. ``x[1:, None, 1]`` records Slice, Unsqueeze,
    Select."""
    key = _parse_index(index, input._data.shape)
    result = input
    dim = 0  # the dim of ``result`` the next entry applies to
    for item in key.basic:
        if item is None:
            result = apply(views.Unsqueeze(dim), result)
            dim += 1
        elif type(item) is int:
            result = apply(views.Select(dim, item), result)
        elif type(item) is slice:
            if type(index) is slice or not _is_full(item, result._data.shape[dim]):
                start = 0 if item.start is None else item.start
                end = _INT64_MAX if item.stop is None else item.stop
                step = 1 if item.step is None else item.step
                result = apply(views.Slice(dim, start, end, step), result)
            dim += 1
    if key.advanced is not None:
        advanced = ops.Key((Ellipsis,), key.advanced, "IndexBackward0", key.indices)
        return result._index_key(advanced)
    if result is input:
        return apply(views.Alias(), input)
    return result


def index_put(input: Any, indices: Any, values: Any, accumulate: bool = False) -> Any:
    """``input`` with ``values`` written at ``input[indices]`` (a new tensor).

    ``indices`` is a tuple of int or bool tensors, as in ``input[indices]``. With
    ``accumulate=True`` values at repeated positions are added up (and added to the
    input). Example::

        hookgrad.index_put(x, (hookgrad.tensor([0, 0]),), hookgrad.tensor(1.0), True)
    """
    for i, item in enumerate(indices):
        if not _is_tensor(item):
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(item).__name__}"
            )
    if not _is_tensor(values):
        raise TypeError(
            "index_put(): argument 'values' (position 3) must be Tensor, not "
            f"{type(values).__name__}"
        )
    if values.dtype is not input.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{_type_name(input.dtype)} for the destination and {_type_name(values.dtype)} "
            "for the source."
        )
    shape = input._data.shape
    consumed = sum(max(item.ndim, 1) if item.dtype is dtypes.bool_ else 1 for item in indices)
    if consumed > len(shape):
        raise IndexError(
            f"too many indices for tensor of dimension {len(shape)} (got {len(indices)})"
        )
    key = _parse_index(tuple(indices), shape)
    target = key.get(np.broadcast_to(np.empty((), np.bool_), shape)).shape
    if not _broadcasts_to(values._data.shape, target):
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values._data.shape)} cannot be "
            f"broadcast to indexing result of shape {list(target)}"
        )
    return input._index_put_key(key, values, bool(accumulate))


def _broadcasts_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


# ---------------------------------------------------------------- gather / scatter


def _check_index_dtype(index: Any, name: str) -> None:
    if index.dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def _check_in_range(index: np.ndarray, dim: int, size: int) -> None:
    """Indices must lie in ``[0, size)``; torch names the first one that does not."""
    if index.size and (index.min() < 0 or index.max() >= size):
        bad = index[(index < 0) | (index >= size)].flat[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _size(shape: tuple[int, ...], dim: int) -> int:
    """``shape[dim]``, with a 0-dim tensor read as having one element."""
    return shape[dim] if shape else 1


def gather(input: Any, dim: int, index: Any, *, sparse_grad: bool = False) -> Any:
    """``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (and alike for other dims).

    ``index`` is an int tensor with as many dims as ``input``, no larger than it except
    along ``dim``; ``out`` has ``index``'s shape. Example::

        hookgrad.tensor([[1, 2], [3, 4]]).gather(1, hookgrad.tensor([[0, 0], [1, 0]]))
        # tensor([[1, 1], [4, 3]])
    """
    shape, index_shape = input._data.shape, index._data.shape
    given = _as_int(dim)
    dim = wrap_dim(given, len(shape))
    _check_index_dtype(index, "gather")
    if max(len(index_shape), 1) != max(len(shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d, size in enumerate(index_shape):
        if d != dim and size > shape[d]:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(index_shape)} to be "
                f"no larger than self {list(shape)} apart from dimension {dim}"
            )
    _check_in_range(index._data, dim, _size(shape, dim))
    return apply(ops.Gather(given, bool(sparse_grad)), input, index)


def _check_scatter(input: Any, dim: int, index: Any, src: Any) -> int:
    """torch's checks for scatter / scatter_add; returns ``dim`` as given (an int)."""
    shape, index_shape = input._data.shape, index._data.shape
    given = _as_int(dim)
    dim = wrap_dim(given, len(shape))
    _check_index_dtype(index, "scatter")
    if src is not None and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if max(len(index_shape), 1) != max(len(shape), 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is None:
        for d, size in enumerate(index_shape):
            if d != dim and size > shape[d]:
                raise RuntimeError(
                    f"Expected index {list(index_shape)} to be no larger than self "
                    f"{list(shape)} apart from dimension {dim}"
                )
    else:
        src_shape = src._data.shape
        if max(len(index_shape), 1) != max(len(src_shape), 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
        for d, size in enumerate(index_shape):
            if (d != dim and size > shape[d]) or size > src_shape[d]:
                raise RuntimeError(
                    f"Expected index {list(index_shape)} to be no larger than self "
                    f"{list(shape)} apart from dimension {dim} and to be no larger size than "
                    f"src {list(src_shape)}"
                )
    _check_in_range(index._data, dim, _size(shape, dim))
    return given


def scatter(input: Any, dim: int, index: Any, src: Any = None, *, value: Any = None) -> Any:
    """``input`` with ``src[i][j]`` written at ``[index[i][j]][j]`` for ``dim=0`` (a copy).

    ``src`` may be a tensor (of ``input``'s dtype) or a number (also ``value=``). Where
    ``index`` repeats a position, which value lands there is unspecified, as in torch.
    Example::

        hookgrad.zeros(2, 3).scatter(1, hookgrad.tensor([[2], [0]]), 1.0)
        # tensor([[0., 0., 1.], [1., 0., 0.]])
    """
    if not _is_tensor(src):
        value = src if src is not None else value
        if value is None:
            raise TypeError("scatter() missing required argument 'src' or 'value'")
        dim = _check_scatter(input, dim, index, None)
        return apply(ops.ScatterValue(dim, value), input, index)
    dim = _check_scatter(input, dim, index, src)
    return apply(ops.Scatter(dim), input, index, src)


def scatter_add(input: Any, dim: int, index: Any, src: Any) -> Any:
    """``input`` plus ``src[i][j]`` added at ``[index[i][j]][j]`` for ``dim=0`` (a copy).

    Repeated positions in ``index`` add up. Example::

        hookgrad.zeros(3).scatter_add(0, hookgrad.tensor([0, 0, 2]), hookgrad.ones(3))
        # tensor([2., 0., 1.])
    """
    if not _is_tensor(src):
        raise TypeError(
            f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}"
        )
    dim = _check_scatter(input, dim, index, src)
    return apply(ops.ScatterAdd(dim), input, index, src)


_SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin", "max", "min")


def scatter_reduce(
    input: Any, dim: int, index: Any, src: Any, reduce: str, *, include_self: bool = True
) -> Any:
    """``input`` with ``src[i][j]`` reduced into ``[index[i][j]][j]`` for ``dim=0`` (a copy).

    ``reduce`` is ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``; with
    ``include_self=False`` the places written start from the values scattered there only
    (``input``'s value there is left out). Repeated places reduce together; a ``mean`` of
    integers rounds down. The gradient of ``amax``/``amin`` is shared equally by tied
    values, as torch's. Example::

        hookgrad.zeros(3).scatter_reduce(0, hookgrad.tensor([0, 0, 2]),
                                         hookgrad.tensor([1.0, 3.0, 5.0]), "amax")
        # tensor([3., 0., 5.])
    """
    return apply(scatter_reduce_op(input, dim, index, src, reduce, include_self), input, index, src)


def scatter_reduce_op(
    input: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool
) -> ops.ScatterReduce:
    """The node of ``scatter_reduce`` after torch's checks (``scatter_reduce_`` runs it
    in place)."""
    if type(include_self) is not bool:
        raise TypeError(
            "scatter_reduce(): argument 'include_self' must be bool, not "
            f"{type(include_self).__name__}"
        )
    if reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError(
            f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}"
        )
    dim = _check_scatter(input, dim, index, src)
    _check_reduction_dtype(input, "scatter_gather_tensor_cpu_reduce_", reduce)
    if input.dtype.is_complex and grad_mode.is_grad_enabled():
        if input.requires_grad or src.requires_grad:
            raise RuntimeError(
                "scatter_reduce does not support automatic differentiation for outputs with "
                "complex dtype."
            )
    return ops.ScatterReduce(dim, reduce, include_self)


def _check_reduction_dtype(input: Any, kernel: str, reduce: str) -> None:
    """torch's CPU kernels of the reductions have no bool ``mean`` and no complex order."""
    if (input.dtype is dtypes.bool_ and reduce == "mean") or (
        input.dtype.is_complex and reduce in ("amax", "amin", "max", "min")
    ):
        name = {"max": "amax", "min": "amin"}.get(reduce, reduce)
        raise NotImplementedError(
            f"\"{kernel}{name}\" not implemented for '{_type_name(input.dtype)}'"
        )


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
        if array.min() < 0 or array.max() >= _size(shape, dim):
            raise IndexError("index out of range in self")  # torch's int32 kernel says this
    _check_in_range(array, dim, _size(shape, dim))
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
) -> ops.IndexReduce:
    """The node of ``index_reduce`` after torch's checks (``index_reduce_`` runs it in
    place)."""
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(
            "index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got "
            f"{reduce}."
        )
    warnings.warn(INDEX_REDUCE_WARNING, UserWarning, stacklevel=3)
    given = _check_index_func("index_reduce_", input, dim, index, source)
    size = _size(input._data.shape, wrap_dim(given, input._data.ndim))
    array = index._data
    if array.size and (array.min() < 0 or array.max() >= size):
        raise IndexError("index out of range in self")
    if input.dtype is dtypes.bool_ or input.dtype.is_complex:
        raise NotImplementedError(
            f"\"index_func_\" not implemented for '{_type_name(input.dtype)}'"
        )
    return ops.IndexReduce(given, reduce, bool(include_self))


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
            f"index_copy_(): Expected a long tensor for index, but got {_type_name(index.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "index_copy_(): self and source expected to have the same dtype, but got (self) "
            f"{_type_name(input.dtype)} and (source) {_type_name(source.dtype)}"
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
    size = _size(shape, dim)
    if array.size and (array.min() < 0 or array.max() >= size):
        bad = array[(array < 0) | (array >= size)].flat[0]
        raise IndexError(
            f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size {size}"
        )
    return apply(ops.IndexCopy(given), input, index, source)


def _check_index_func(name: str, input: Any, dim: int, index: Any, source: Any) -> int:
    """torch's checks shared by ``index_add`` and ``index_reduce`` (``name``: the in-place
    op its messages name); returns ``dim`` as given."""
    shape, source_shape, array = input._data.shape, source._data.shape, index._data
    given = _as_int(dim)
    dim = wrap_dim(given, len(shape))
    if array.ndim > 1:
        raise IndexError(
            f"{name}(): Index is supposed to be a vector, but got dim: {array.ndim} with "
            f"type: {_type_name(index.dtype)} and size: {list(array.shape)}"
        )
    if index.dtype not in (dtypes.int32, dtypes.int64):
        raise RuntimeError(
            f"{name}(): Expected dtype int32/int64 for index but got: {_type_name(index.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            f"{name}(): self ({_type_name(input.dtype)}) and source "
            f"({_type_name(source.dtype)}) must have the same scalar type"
        )
    if array.size != _size(source_shape, dim):
        raise RuntimeError(
            f"{name}(): Number of indices ({array.size}) should be equal to "
            f"source.size(dim): ({_size(source_shape, dim)}), for dim: {dim}"
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
    size = _size(shape, dim)
    if array.size and (array.min() < -size or array.max() >= size):
        bad = array[(array < -size) | (array >= size)].flat[0]
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    if not _is_tensor(value):
        return apply(ops.IndexFill(given, value), input, index)
    if value._data.ndim:
        raise RuntimeError(
            "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    return apply(ops.IndexFillTensor(given), input, index, value)


# ---------------------------------------------------------------- masks


def _check_broadcast(a: tuple[int, ...], b: tuple[int, ...]) -> None:
    """torch's error when shapes ``a`` and ``b`` do not broadcast together."""
    for i in range(1, min(len(a), len(b)) + 1):
        if a[-i] != b[-i] and a[-i] != 1 and b[-i] != 1:
            raise RuntimeError(
                f"The size of tensor a ({a[-i]}) must match the size of tensor b ({b[-i]}) at "
                f"non-singleton dimension {max(len(a), len(b)) - i}"
            )


def masked_fill(input: Any, mask: Any, value: Any) -> Any:
    """``input`` with ``value`` where the bool ``mask`` (broadcast) is true.

    ``value`` is a number or a 0-dim tensor; a tensor ``value`` gets the gradient of the
    places it fills. Example: ``x.masked_fill(x < 0, 0.0)``.
    """
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(
            "masked_fill_ only supports boolean masks, but got mask with dtype "
            f"{dtypes.cpp_name(mask.dtype)}"
        )
    _check_broadcast(mask._data.shape, input._data.shape)
    if not _is_tensor(value):
        return apply(ops.MaskedFill(dtypes.checked_scalar(value, input.dtype)), input, mask)
    if value._data.ndim:
        raise RuntimeError(
            "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
            f"{value._data.ndim} dimension(s)."
        )
    return apply(ops.MaskedFillTensor(), input, mask, value)


def masked_select(input: Any, mask: Any) -> Any:
    """The elements of ``input`` where the bool ``mask`` is true (both broadcast), as a vector.

    Example: ``x.masked_select(x > 0)``.
    """
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    _check_broadcast(mask._data.shape, input._data.shape)
    return apply(ops.MaskedSelect(), input, mask)


def masked_scatter(input: Any, mask: Any, source: Any) -> Any:
    """``input`` (broadcast with ``mask``) with the elements where the bool ``mask`` is
    true replaced, in order, by the elements of ``source``.

    Example::

        hookgrad.zeros(3).masked_scatter(hookgrad.tensor([True, False, True]),
                                         hookgrad.tensor([1.0, 2.0]))  # tensor([1., 0., 2.])
    """
    if mask.dtype is not dtypes.bool_:
        raise RuntimeError(
            "masked_scatter_ only supports boolean masks, but got mask with dtype "
            f"{_type_name(mask.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{_type_name(input.dtype)} and {_type_name(source.dtype)}"
        )
    _check_broadcast(mask._data.shape, input._data.shape)
    shape = np.broadcast_shapes(mask._data.shape, input._data.shape)
    if np.count_nonzero(np.broadcast_to(mask._data, shape)) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(ops.MaskedScatter(), input, mask, source)


# ---------------------------------------------------------------- take / put / nonzero


def take(input: Any, index: Any) -> Any:
    """The elements of ``input`` read as a flat vector at ``index`` (negative counts back).

    The result has ``index``'s shape. Example: ``x.take(hookgrad.tensor([0, -1]))`` is the
    first and last elements of ``x``.
    """
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"take(): Expected a long tensor for index, but got {_type_name(index.dtype)}"
        )
    numel, array = input._data.size, index._data
    if numel == 0 and array.size:
        raise IndexError("take(): tried to take from an empty tensor")
    if array.size and (array.min() < -numel or array.max() >= numel):
        bad = array[(array < -numel) | (array >= numel)].flat[0]
        raise IndexError(
            f"out of range: tried to access index {bad} on a tensor of {numel} elements."
        )
    return apply(ops.Take(), input, index)


def put(input: Any, index: Any, source: Any, accumulate: bool = False) -> Any:
    """``input`` with the elements of ``source`` written (added, with ``accumulate``) at
    the positions ``index`` of the flattened tensor (negative ones count back).

    Example::

        hookgrad.zeros(2, 2).put(hookgrad.tensor([0, -1]), hookgrad.tensor([1.0, 2.0]))
        # tensor([[1., 0.], [0., 2.]])
    """
    if index.dtype is not dtypes.int64:
        raise RuntimeError(
            f"put_(): Expected a long tensor for index, but got {_type_name(index.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{_type_name(input.dtype)} and source.dtype = {_type_name(source.dtype)}"
        )
    numel, array = input._data.size, index._data
    if source._data.size != array.size:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source._data.size}, index.numel() = {array.size}"
        )
    if array.size and (array.min() < -numel or array.max() >= numel):
        bad = array[(array < -numel) | (array >= numel)].flat[0]
        raise IndexError(
            f"out of range: tried to access index {bad} on a tensor of {numel} elements."
        )
    return apply(ops.Put(bool(accumulate)), input, index, source)


def take_along_dim(input: Any, indices: Any, dim: int | None = None) -> Any:
    """``gather`` with ``input`` and ``indices`` broadcast against each other except on ``dim``.

    With ``dim=None`` both are read flat. Negative indices along ``dim`` count back.
    Example: ``x.take_along_dim(x.argmax(1, keepdim=True), dim=1)`` is the row maxima.
    """
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(
            "torch.take_along_dim(): dtype of indices should be Long but got "
            f"{_type_name(indices.dtype)}"
        )
    if dim is None:
        return gather(input.view(-1), 0, indices.view(-1))
    shape, index_shape = input._data.shape, indices._data.shape
    if len(shape) != len(index_shape):
        raise RuntimeError(
            "torch.take_along_dim(): input and indices should have the same number of "
            f"dimensions, but got {len(shape)} dimensions for input, and {len(index_shape)} "
            "dimensions for indices"
        )
    dim = wrap_dim(dim, len(shape))
    input_shape = shape
    if shape:
        common = np.broadcast_shapes(_without(shape, dim), _without(index_shape, dim))
        input_shape = common[:dim] + (shape[dim],) + common[dim + 1 :]
        index_array = np.broadcast_to(
            indices._data, common[:dim] + (index_shape[dim],) + common[dim + 1 :]
        )
        index_array = np.where(index_array < 0, index_array + shape[dim], index_array)
        indices = wrap_constant(index_array)
    # NOTE: torch's ``broadcast_to`` records ExpandBackward0 even to the same shape.
    return gather(input.expand(input_shape), dim, indices)


def _without(shape: tuple[int, ...], dim: int) -> tuple[int, ...]:
    """``shape`` with ``dim`` set to 1 (so it broadcasts with anything)."""
    return shape[:dim] + (1,) + shape[dim + 1 :]


def nonzero(input: Any, *, as_tuple: bool = False) -> Any:
    """The positions of the nonzero elements: an int64 ``(count, ndim)`` tensor.

    With ``as_tuple=True``, one int64 vector per dim instead (a 0-dim input counts as
    1-dim). Not differentiable. Example: ``hookgrad.nonzero(hookgrad.tensor([0, 3, 5]))``
    is ``tensor([[1], [2]])``.
    """
    array = input._data
    if as_tuple:
        return tuple(
            wrap_constant(p.astype(np.int64))
            for p in np.nonzero(array.reshape(array.shape or (1,)))
        )
    return wrap_constant(np.argwhere(array).astype(np.int64))


def argwhere(input: Any) -> Any:
    """The positions of the nonzero elements, as ``nonzero(input)``."""
    return nonzero(input)


def nonzero_static(input: Any, *, size: int, fill_value: int = -1) -> Any:
    """``nonzero(input)`` with exactly ``size`` rows: cut, or padded with ``fill_value``.

    Example: ``hookgrad.nonzero_static(hookgrad.tensor([0, 1, 2]), size=3)`` is
    ``tensor([[1], [2], [-1]])``.
    """
    size = _as_int(size)
    if size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    found = np.argwhere(input._data).astype(np.int64)[:size]
    out = np.full((size, input._data.ndim), _as_int(fill_value), np.int64)
    out[: len(found)] = found
    return wrap_constant(out)


def unravel_index(indices: Any, shape: Any) -> tuple[Any, ...]:
    """The coordinates, in a tensor of ``shape``, of the flat positions ``indices``: one
    int64 tensor per dim of ``shape``, each of ``indices``' shape (positions outside
    wrap around, as in torch).

    Example: ``hookgrad.unravel_index(hookgrad.tensor([4, 1]), (2, 3))`` is
    ``(tensor([1, 0]), tensor([1, 1]))``.
    """
    if indices.is_complex() or indices.is_floating_point() or indices.dtype is dtypes.bool_:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if not isinstance(shape, (int, Sequence)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = (shape,)
    for size in shape:
        if not isinstance(size, int):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(size)}")
    shape = tuple(shape)
    if any(size < 0 for size in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    strides = [int(np.prod(shape[d + 1 :], dtype=object)) for d in range(len(shape))]
    flat = indices._data.astype(np.int64)[..., None]
    coordinates = np.floor_divide(flat, np.array(strides, np.int64)) % np.array(shape, np.int64)
    return tuple(wrap_constant(coordinates[..., d].copy()) for d in range(len(shape)))


def repeat_interleave(
    input: Any, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None
) -> Any:
    """Repeat each element (each slice along ``dim``) ``repeats`` times, in place of
    ``tile``'s whole-tensor repetition; without ``dim`` the input is flattened first.

    ``repeats`` is an int, or an int tensor with one count per slice (or a single one).
    ``repeat_interleave(counts)`` alone gives ``arange(len(counts))`` repeated by
    ``counts``. Example::

        hookgrad.tensor([1, 2]).repeat_interleave(2)                       # [1, 1, 2, 2]
        hookgrad.tensor([[1, 2], [3, 4]]).repeat_interleave(hookgrad.tensor([1, 2]), 0)
        # [[1, 2], [3, 4], [3, 4]]
    """
    if repeats is None:
        return _repeated_positions(input, output_size)
    if isinstance(repeats, bool) or not (_is_tensor(repeats) or isinstance(repeats, int)):
        raise TypeError(
            "repeat_interleave() received an invalid combination of arguments - got "
            f"({type(repeats).__name__}), but expected one of:\n"
            " * (Tensor repeats, int dim = None, *, int output_size = None)\n"
            " * (int repeats, int dim = None, *, int output_size = None)\n"
        )
    flat = input if dim is not None else input.flatten()
    if not _is_tensor(repeats):
        # torch: unsqueeze, expand, a contiguous clone, flatten the two dims again.
        at = wrap_dim(0 if dim is None else _as_int(dim), input._data.ndim)
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        spread = flat.unsqueeze(at + 1)
        shape = list(spread._data.shape)
        shape[at + 1] = repeats
        if output_size is not None and output_size != repeats * shape[at]:
            raise RuntimeError(
                "repeat_interleave: Invalid output_size, expected "
                f"{repeats * shape[at]} but got {output_size}"
            )
        copy = spread.expand(shape).clone(memory_format=contiguous_format)
        return copy.flatten(at, at + 1)
    given = 0 if dim is None else _as_int(dim)
    size = flat._data.shape[wrap_dim(given, flat._data.ndim)]
    counts = repeats
    if repeats._data.ndim == 0 or repeats._data.shape == (1,):
        counts = wrap_constant(np.broadcast_to(repeats._data.reshape(1), (size,)))
    elif repeats._data.ndim == 1:
        if repeats._data.shape[0] != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got repeats.size(0) "
                f"= {repeats._data.shape[0]} and input.size({given}) = {size}"
            )
    else:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    return flat.index_select(given, _repeated_positions(counts, output_size))


def _repeated_positions(repeats: Any, output_size: int | None) -> Any:
    """``repeat_interleave(repeats)``: each position ``i`` repeated ``repeats[i]`` times,
    in ``repeats``' dtype."""
    counts = repeats._data
    if counts.ndim != 1:
        raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
    if repeats.dtype not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(
            f"\"repeat_interleave_cpu\" not implemented for '{_type_name(repeats.dtype)}'"
        )
    if counts.size and counts.min() < 0:
        raise RuntimeError("repeats can not be negative")
    if output_size is not None and output_size != int(counts.sum()):
        raise RuntimeError("allocated size does not match required size")
    positions = np.repeat(np.arange(counts.size, dtype=counts.dtype), counts)
    return wrap_constant(positions)


class IndexingMethods:
    """Indexing methods of ``Tensor``."""

    __getitem__ = _getitem
    index_put = index_put
    gather = gather
    scatter = scatter
    scatter_add = scatter_add
    scatter_reduce = scatter_reduce
    index_select = index_select
    index_add = index_add
    index_copy = index_copy
    index_reduce = index_reduce
    index_fill = index_fill
    masked_fill = masked_fill
    masked_select = masked_select
    masked_scatter = masked_scatter
    take = take
    put = put
    take_along_dim = take_along_dim
    nonzero = nonzero
    argwhere = argwhere
    nonzero_static = nonzero_static
    repeat_interleave = repeat_interleave

    def _index_key(self, key: ops.Key, indices: Any = None) -> Any:
        """``self`` indexed by a parsed ``Key`` (used by backward formulas); ``indices``:
        its index tensors (default: made from the key)."""
        if key.advanced is None:
            return apply(ops.Index(key), self)
        return apply(ops.Index(key), self, *_index_tensors(key, indices))

    def _index_put_key(
        self,
        key: ops.Key,
        values: Any,
        accumulate: bool,
        node_name: str | None = None,
        indices: Any = None,
    ) -> Any:
        """``self`` with ``values`` put at a parsed ``Key`` (used by backward formulas;
        ``node_name``: the node torch's formula records, ``IndexPutImplBackward0`` for
        ``index``'s backward; ``indices``: the key's index tensors, default made from it)."""
        op = ops.IndexPut(key, accumulate)
        if node_name is not None:
            op.node_name = node_name
        if key.advanced is None:
            return apply(op, self, values)
        return apply(op, self, values, *_index_tensors(key, indices))


def _index_tensors(key: ops.Key, indices: Any) -> tuple[Any, ...]:
    """torch's ``indices`` of an advanced ``key`` as tensors (None for a whole dim): the
    given ones, else the key's own (the caller's index tensors, or arrays wrapped)."""
    if indices is not None:
        return tuple(indices)
    return tuple(
        index if index is None or _is_tensor(index) else wrap_constant(np.asarray(index))
        for index in key.indices
    )
