"""Indexing functions (``[]``, index_put, gather, scatter, masks) and their Tensor methods.
The ``index_*`` functions are in ``index_functions.py``; take, put, nonzero,
repeat_interleave ... in ``positions.py``.

``tensor[index]`` follows torch: ints select (a view), slices slice (a view, steps > 0),
None inserts a dim, ``...`` skips dims, and int / bool tensors or lists index
"advanced" (a copy). torch applies the basic part first and then the advanced part to
that view, with NumPy's rule for where the advanced dims go (in front when a slice
separates them); ``parse_index`` turns the index into an ``ops.indexing.Key`` that
does the same (``index_parsing``).

Example: ``hookgrad.arange(6.0).reshape(2, 3)[:, hookgrad.tensor([2, 0])]`` is
``tensor([[2., 0.], [5., 3.]])``.
"""

from __future__ import annotations

from operator import index as _as_int
from typing import Any

import numpy as np

from hookgrad import grad_mode
from hookgrad.ops import indexing as ops
from hookgrad.ops import scatter_reduce as reduce_ops
from hookgrad.ops import shape as views
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.index_parsing import (
    is_full_slice,
    is_tensor,
    parse_index,
    scalar_type_name,
)

__all__ = [
    "gather",
    "index_put",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "scatter",
    "scatter_add",
    "scatter_reduce",
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
    key = parse_index(index, input._data.shape)
    result = input
    dim = 0  # the dim of ``result`` the next entry applies to
    for item in key.basic:
        if item is None:
            result = apply(views.Unsqueeze(dim), result)
            dim += 1
        elif type(item) is int:
            result = apply(views.Select(dim, item), result)
        elif type(item) is slice:
            if type(index) is slice or not is_full_slice(item, result._data.shape[dim]):
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
        if not is_tensor(item):
            raise TypeError(
                f"expected Tensor as element {i} in argument 1, but got {type(item).__name__}"
            )
    if not is_tensor(values):
        raise TypeError(
            "index_put(): argument 'values' (position 3) must be Tensor, not "
            f"{type(values).__name__}"
        )
    if values.dtype is not input.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{scalar_type_name(input.dtype)} for the destination and "
            f"{scalar_type_name(values.dtype)} for the source."
        )
    shape = input._data.shape
    consumed = sum(max(item.ndim, 1) if item.dtype is dtypes.bool_ else 1 for item in indices)
    if consumed > len(shape):
        raise IndexError(
            f"too many indices for tensor of dimension {len(shape)} (got {len(indices)})"
        )
    key = parse_index(tuple(indices), shape)
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


def check_in_range(index: np.ndarray, dim: int, size: int) -> None:
    """Indices must lie in ``[0, size)``; torch names the first one that does not."""
    if index.size and (index.min() < 0 or index.max() >= size):
        bad = index[(index < 0) | (index >= size)].flat[0]
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def dim_size(shape: tuple[int, ...], dim: int) -> int:
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
    check_in_range(index._data, dim, dim_size(shape, dim))
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
    check_in_range(index._data, dim, dim_size(shape, dim))
    return given


def scatter(input: Any, dim: int, index: Any, src: Any = None, *, value: Any = None) -> Any:
    """``input`` with ``src[i][j]`` written at ``[index[i][j]][j]`` for ``dim=0`` (a copy).

    ``src`` may be a tensor (of ``input``'s dtype) or a number (also ``value=``). Where
    ``index`` repeats a position, which value lands there is unspecified, as in torch.
    Example::

        hookgrad.zeros(2, 3).scatter(1, hookgrad.tensor([[2], [0]]), 1.0)
        # tensor([[0., 0., 1.], [1., 0., 0.]])
    """
    if not is_tensor(src):
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
    if not is_tensor(src):
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
) -> reduce_ops.ScatterReduce:
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
    return reduce_ops.ScatterReduce(dim, reduce, include_self)


def _check_reduction_dtype(input: Any, kernel: str, reduce: str) -> None:
    """torch's CPU kernels of the reductions have no bool ``mean`` and no complex order."""
    if (input.dtype is dtypes.bool_ and reduce == "mean") or (
        input.dtype.is_complex and reduce in ("amax", "amin", "max", "min")
    ):
        name = {"max": "amax", "min": "amin"}.get(reduce, reduce)
        raise NotImplementedError(
            f"\"{kernel}{name}\" not implemented for '{scalar_type_name(input.dtype)}'"
        )


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
    if not is_tensor(value):
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
            f"{scalar_type_name(mask.dtype)}"
        )
    if source.dtype is not input.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{scalar_type_name(input.dtype)} and {scalar_type_name(source.dtype)}"
        )
    _check_broadcast(mask._data.shape, input._data.shape)
    shape = np.broadcast_shapes(mask._data.shape, input._data.shape)
    if np.count_nonzero(np.broadcast_to(mask._data, shape)) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return apply(ops.MaskedScatter(), input, mask, source)


class IndexingMethods:
    """Indexing methods of ``Tensor``."""

    __getitem__ = _getitem
    index_put = index_put
    gather = gather
    scatter = scatter
    scatter_add = scatter_add
    scatter_reduce = scatter_reduce
    masked_fill = masked_fill
    masked_select = masked_select
    masked_scatter = masked_scatter

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
        index if index is None or is_tensor(index) else wrap_constant(np.asarray(index))
        for index in key.indices
    )
