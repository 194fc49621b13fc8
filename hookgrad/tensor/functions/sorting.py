"""Sorting and searching: ``sort``, ``argsort``, ``msort``, ``topk``, ``kthvalue``,
``searchsorted``, ``bucketize``, ``unique``, ``unique_consecutive`` and ``isin``, and their
Tensor methods.

``sort``, ``topk`` and ``kthvalue`` return torch's named tuples (``torch.return_types.sort``
...) and are differentiable through their values (``SortBackward0``, ``TopkBackward0``,
``KthvalueBackward0``); the indices, searches and ``unique``'s results are not (``unique``
records torch's node, whose backward is not implemented, as in torch).

Example::

    values, indices = hookgrad.tensor([3.0, 1.0, 2.0]).sort()
    indices                                   # tensor([1, 2, 0])
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from hookgrad.ops import sorting as ops
from hookgrad.ops.base import Op
from hookgrad.ops.util import wrap_dim
from hookgrad.tensor import dtypes
from hookgrad.tensor.dispatch import apply, wrap_constant
from hookgrad.tensor.functions.reduction import check_nonempty
from hookgrad.tensor.named_tuples import RETURN_TYPES
from hookgrad.tensor.promotion import is_scalar
from hookgrad.tensor.tensor import Tensor

__all__ = [
    "argsort",
    "bucketize",
    "isin",
    "kthvalue",
    "msort",
    "searchsorted",
    "sort",
    "topk",
    "unique",
    "unique_consecutive",
]

_UNSET: Any = object()


def _check_orderable(name: str, input: Tensor) -> None:
    if input._data.dtype.kind == "c":
        raise RuntimeError(f" {name} does not support complex dtypes on CPU")


def _dim(dim: Any, input: Tensor) -> tuple[int, int]:
    """``dim`` as given (an int) and wrapped, with torch's range check."""
    dim = operator.index(dim)
    return dim, wrap_dim(dim, input._data.ndim)


# ---------------------------------------------------------------- sort


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: Any = _UNSET) -> Any:
    """``(values, indices)``: ``input`` sorted along ``dim`` (ascending unless
    ``descending``), and where each value came from. NaN sorts above every number.

    The gradient of the values goes back to the positions they came from. Passing
    ``stable`` (torch's ``sort.stable`` overload) keeps tied elements in input order; so
    does the plain call here (torch's plain sort leaves the order of ties unspecified).

    Example::

        hookgrad.tensor([[3.0, 1.0], [0.0, 2.0]]).sort(dim=1, descending=True)
        # values=tensor([[3., 1.], [2., 0.]]), indices=tensor([[0, 1], [1, 0]])
    """
    _check_orderable("Sort", input)
    dim, _ = _dim(dim, input)
    given = stable is not _UNSET
    return RETURN_TYPES["sort"](apply(ops.Sort(dim, bool(descending), given), input))


def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Tensor:
    """The indices that sort ``input`` along ``dim``: ``sort(...).indices`` (int64, not
    differentiable).

    Example::

        hookgrad.tensor([3.0, 1.0, 2.0]).argsort()    # tensor([1, 2, 0])
    """
    _check_orderable("Sort", input)
    _, axis = _dim(dim, input)
    data = input._data
    if data.ndim == 0:
        return wrap_constant(np.zeros((), np.int64))
    return wrap_constant(ops.sort_order(data, axis, bool(descending)).astype(np.int64))


def msort(input: Tensor) -> Tensor:
    """``input`` sorted along its first dim: ``sort(input, dim=0).values``.

    Example::

        hookgrad.msort(hookgrad.tensor([[2.0, 1.0], [0.0, 3.0]]))  # tensor([[0., 1.], [2., 3.]])
    """
    return sort(input, 0).values


# ---------------------------------------------------------------- topk / kthvalue


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:
    """``(values, indices)`` of the ``k`` largest elements along ``dim`` (the smallest
    with ``largest=False``), largest first (with ``sorted=False``, in the order torch's
    selection leaves them). NaN counts as the largest value; tied values come in the
    order torch's kernel gives them.

    Example::

        hookgrad.tensor([1.0, 5.0, 3.0]).topk(2)
        # values=tensor([5., 3.]), indices=tensor([1, 2])
    """
    _check_orderable("topk", input)
    if input._data.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    dim, axis = _dim(dim, input)
    k = operator.index(k)
    size = input._data.shape[axis] if input._data.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    return RETURN_TYPES["topk"](apply(ops.Topk(k, dim, bool(largest), bool(sorted)), input))


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)`` of the ``k``-th smallest element along ``dim`` (``k`` from
    1). Among tied values the index is the one torch's quickselect finds.

    Example::

        hookgrad.tensor([3.0, 1.0, 2.0]).kthvalue(2)    # values=tensor(2.), indices=tensor(2)
    """
    dim, axis = _dim(dim, input)
    data = input._data
    check_nonempty("kthvalue", input, axis, axis)
    if data.dtype.kind in "bc":
        name = dtypes.legacy_name(input.dtype)
        raise NotImplementedError(f"\"kthvalue_cpu\" not implemented for '{name}'")
    k = operator.index(k)
    if not 1 <= k <= (data.shape[axis] if data.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    return RETURN_TYPES["kthvalue"](apply(ops.Kthvalue(k, dim, bool(keepdim)), input))


# ---------------------------------------------------------------- searchsorted / bucketize


def _search_arrays(sorted_sequence: Tensor, input: Any) -> tuple[np.ndarray, np.ndarray]:
    """The boundaries and the values as arrays of one dtype (torch compares them in the
    promoted dtype)."""
    values = input._data if isinstance(input, Tensor) else np.asarray(input)
    boundaries = sorted_sequence._data
    common = np.result_type(boundaries, values)
    return boundaries.astype(common, copy=False), values.astype(common, copy=False)


def searchsorted(
    sorted_sequence: Tensor,
    input: Any,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """For each value of ``input`` (a tensor or a number), the index in the last dim of
    ``sorted_sequence`` where it would be inserted to keep it sorted: before equal
    elements, or after them with ``right=True`` / ``side="right"``. ``sorted_sequence`` is
    1-D, or has ``input``'s leading dims (one sorted row per row of ``input``); ``sorter``
    gives the order that sorts it, if it is not sorted itself.

    Example::

        hookgrad.searchsorted(hookgrad.tensor([1, 3, 5]), hookgrad.tensor([3, 6]))
        # tensor([1, 3])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(
                f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}"
            )
        if right and side == "left":
            raise RuntimeError(
                "torch.searchsorted(): side and right can't be set to opposites, got side "
                "of left while right was True"
            )
        right = side == "right"
    boundaries, values = _search_arrays(sorted_sequence, input)
    if sorter is not None:
        if sorter._data.shape != boundaries.shape:
            raise RuntimeError(
                "torch.searchsorted(): boundary and sorter must have the same size, but got "
                f"boundary tensor {list(boundaries.shape)}and got sorter tensor "
                f"{list(sorter._data.shape)}"
            )
        boundaries = np.take_along_axis(boundaries, sorter._data.astype(np.int64), axis=-1)
    side_name = "right" if right else "left"
    index_dtype = np.int32 if out_int32 else np.int64
    if boundaries.ndim == 1:
        found = np.searchsorted(boundaries, values, side=side_name)
        return wrap_constant(np.asarray(found, index_dtype))
    if boundaries.shape[:-1] != values.shape[:-1] or values.ndim == 0:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
            "dimensions of boundaries tensor and input value tensor must match, but we got "
            f"boundaries tensor {list(boundaries.shape)} and input value tensor "
            f"{list(values.shape)}"
        )
    rows = boundaries.reshape(-1, boundaries.shape[-1])
    queries = values.reshape(-1, values.shape[-1])
    found = np.stack(
        [np.searchsorted(row, query, side=side_name) for row, query in zip(rows, queries)]
    )
    return wrap_constant(found.reshape(values.shape).astype(index_dtype))


def bucketize(
    input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
) -> Tensor:
    """For each value of ``input``, the index of the bucket of the 1-D sorted
    ``boundaries`` it falls in: ``boundaries[i-1] < x <= boundaries[i]``
    (``boundaries[i-1] <= x < boundaries[i]`` with ``right=True``).

    Example::

        hookgrad.bucketize(hookgrad.tensor([2, 5]), hookgrad.tensor([1, 3, 5]))  # tensor([1, 2])
    """
    if boundaries._data.ndim != 1:
        raise RuntimeError(
            f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})"
        )
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ---------------------------------------------------------------- unique


class _NotDifferentiable(Op):
    """The node torch records for an op whose derivative it does not implement: its
    backward raises torch's error."""

    input_names = ("self",)
    differentiable_outputs = 1

    def __init__(self, node_name: str, op_name: str) -> None:
        self.node_name = node_name
        self.op_name = op_name

    def forward(self, a: Any) -> Any:
        return self.result

    def backward(self, *grads: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{self.op_name}' is not implemented.")


def _record_unique(
    input: Tensor, arrays: tuple[np.ndarray, ...], node: str, op_name: str
) -> tuple[Any, ...]:
    """Wrap ``unique``'s arrays; the first one records torch's node when ``input``
    requires grad."""
    op = _NotDifferentiable(node, op_name)
    op.result = arrays
    return apply(op, input)


def _unique_flat(data: np.ndarray, consecutive: bool) -> tuple[np.ndarray, ...]:
    """Sorted unique elements (or the runs of equal neighbours), the index of each
    element's value among them, and how often each occurs. NaNs are all distinct."""
    flat = data.reshape(-1)
    if consecutive:
        if flat.size == 0:
            starts = np.zeros(0, bool)
        else:
            starts = np.concatenate([[True], flat[1:] != flat[:-1]])
        inverse = np.cumsum(starts) - 1
        values = flat[starts]
        counts = np.diff(np.append(np.flatnonzero(starts), flat.size))
        return values, inverse, counts
    values, inverse, counts = np.unique(
        flat, return_inverse=True, return_counts=True, equal_nan=False
    )
    return values, inverse.reshape(-1), counts


def _unique_dim(data: np.ndarray, dim: int, consecutive: bool) -> tuple[np.ndarray, ...]:
    """Unique slices along ``dim``, sorted lexicographically (or runs of equal
    neighbouring slices), each slice's index among them and the counts."""
    moved = np.moveaxis(data, dim, 0)
    slices = moved.reshape(moved.shape[0], -1)
    count = slices.shape[0]
    if consecutive:
        same = np.all(slices[1:] == slices[:-1], axis=1) if count else np.zeros(0, bool)
        starts = np.concatenate([[True], ~same]) if count else np.zeros(0, bool)
        kept = np.flatnonzero(starts)
        inverse = np.cumsum(starts) - 1
    else:
        order = np.lexsort(slices.T[::-1]) if count else np.zeros(0, np.int64)
        ordered = slices[order]
        same = np.all(ordered[1:] == ordered[:-1], axis=1) if count else np.zeros(0, bool)
        starts = np.concatenate([[True], ~same]) if count else np.zeros(0, bool)
        kept = order[starts]
        inverse = np.empty(count, np.int64)
        inverse[order] = np.cumsum(starts) - 1
    counts = np.bincount(inverse, minlength=kept.size) if count else np.zeros(0, np.int64)
    values = np.moveaxis(np.take(moved, kept, axis=0), 0, dim)
    return np.ascontiguousarray(values), inverse, counts


def _unique(
    input: Tensor,
    return_inverse: bool,
    return_counts: bool,
    dim: int | None,
    consecutive: bool,
) -> Any:
    data = input._data
    if dim is None:
        values, inverse, counts = _unique_flat(data, consecutive)
        inverse = inverse.reshape(data.shape)
        node, op_name = (
            ("UniqueConsecutiveBackward0", "unique_consecutive")
            if consecutive
            else ("Unique2Backward0", "_unique2")
        )
    else:
        if data.ndim == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        axis = wrap_dim(operator.index(dim), data.ndim)
        values, inverse, counts = _unique_dim(data, axis, consecutive)
        node, op_name = (
            ("UniqueDimConsecutiveBackward0", "unique_dim_consecutive")
            if consecutive
            else ("UniqueDimBackward0", "unique_dim")
        )
    arrays = (values, inverse.astype(np.int64), counts.astype(np.int64))
    result, inverse_tensor, counts_tensor = _record_unique(input, arrays, node, op_name)
    outputs = [result]
    if return_inverse:
        outputs.append(inverse_tensor)
    if return_counts:
        outputs.append(counts_tensor)
    return outputs[0] if len(outputs) == 1 else tuple(outputs)


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The distinct elements of ``input`` in ascending order (with ``dim``: its distinct
    slices along ``dim``, in lexicographic order), as a 1-D tensor; with
    ``return_inverse`` also each element's index into them, with ``return_counts`` how
    often each occurs. NaNs are all distinct. ``sorted=False`` is accepted: torch's CPU
    kernel sorts all the same.

    Example::

        hookgrad.unique(hookgrad.tensor([3, 1, 3]), return_counts=True)
        # (tensor([1, 3]), tensor([1, 2]))
    """
    return _unique(input, return_inverse, return_counts, dim, consecutive=False)


def unique_consecutive(
    input: Tensor,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """``input`` with each run of equal neighbouring elements (or slices along ``dim``)
    kept once; ``return_inverse`` and ``return_counts`` as in :func:`unique`.

    Example::

        hookgrad.unique_consecutive(hookgrad.tensor([1, 1, 2, 1]))    # tensor([1, 2, 1])
    """
    return _unique(input, return_inverse, return_counts, dim, consecutive=True)


# ---------------------------------------------------------------- isin


def isin(
    elements: Any, test_elements: Any, *, assume_unique: bool = False, invert: bool = False
) -> Tensor:
    """Whether each element of ``elements`` occurs in ``test_elements`` (either may be a
    number), as a bool tensor of ``elements``' shape; ``invert=True`` asks the opposite.

    Example::

        hookgrad.isin(hookgrad.tensor([1, 2, 3]), hookgrad.tensor([2, 5]))
        # tensor([False,  True, False])
    """
    arrays = []
    for value in (elements, test_elements):
        if isinstance(value, Tensor):
            arrays.append(value._data)
        elif is_scalar(value):
            arrays.append(np.asarray(value))
        else:
            raise TypeError(
                "isin() received an invalid combination of arguments - got "
                f"({type(elements).__name__}, {type(test_elements).__name__})"
            )
    for array in arrays:
        if array.dtype.kind in "cb":
            name = dtypes.legacy_name(dtypes.from_numpy_dtype(array.dtype))
            raise RuntimeError(f"Unsupported input type encountered for isin(): {name}")
    found = np.isin(arrays[0], arrays[1], assume_unique=assume_unique, invert=invert)
    return wrap_constant(np.asarray(found, np.bool_))


class SortingMethods:
    """Sorting and searching methods of ``Tensor``."""

    sort = sort
    argsort = argsort
    msort = msort
    topk = topk
    kthvalue = kthvalue
    unique = unique
    unique_consecutive = unique_consecutive
