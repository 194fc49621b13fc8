"""Sorting and selection along a dim: sort, topk, kthvalue, mode, nanmedian, the running
maximum and minimum (cummax, cummin) and logcumsumexp.

The ``(values, indices)`` ops are hand-written nodes (two outputs, the indices not
differentiable) with torch's backward, ``value_selecting_reduction_backward``: the gradient
scattered into zeros at the returned indices (``ScatterBackward0`` under
``create_graph=True``); cummax and cummin add it up there (``cummaxmin_backward``,
``ScatterAddBackward0``). ``nanmedian`` of all elements and ``logcumsumexp`` are entries of
the derivative table with torch's formulas.

Which index comes back where values tie is torch's: ``sort(stable=True)`` keeps ties in
input order; ``kthvalue`` runs torch's own quickselect; ``topk``, ``mode`` and
``nanmedian`` of a slice of NaNs run the ``std::`` algorithms torch's kernels call
(``partial_sort``, ``nth_element``, ``sort``), step for step as GCC's libstdc++ does them;
``median`` and ``nanmedian`` otherwise take the tie that comes first, ``cummax`` and
``cummin`` the latest one. NaN counts as larger than every number, as in torch.
NOTE: ``sort`` without ``stable=True`` is torch's x86-simd-sort quicksort, which gives ties
no order that can be followed here: there the values are torch's, tied indices come in
input order.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hookgrad.ops.base import Op
from hookgrad.ops.dims import wrapped
from hookgrad.ops.reduction import SelectAlongDim, lower_median
from hookgrad.ops.table import entry, function, helper

# ---------------------------------------------------------------- orders


def sort_order(a: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """The indices that sort ``a`` along ``axis`` as torch orders it (NaN above every
    number), ties in input order (a stable sort)."""
    if not descending:
        return np.argsort(a, axis=axis, kind="stable")
    if a.dtype.kind == "f":
        nan = np.isnan(a)
        return np.lexsort((-a, ~nan), axis=axis)
    if a.dtype.kind == "c":
        raise TypeError("complex numbers have no order")
    # NOTE: ``~a`` reverses the order of integers and bools without overflowing.
    return np.argsort(~a, axis=axis, kind="stable")


def _is_nan(a: np.ndarray) -> np.ndarray:
    return np.isnan(a) if a.dtype.kind in "fc" else np.zeros(a.shape, bool)


def _ties(a: np.ndarray, chosen: np.ndarray, axis: int) -> np.ndarray:
    """Per slice along ``axis`` (keepdims): how many elements equal the chosen one (NaN
    equal to NaN)."""
    value = np.take_along_axis(a, chosen, axis=axis)
    same = (a == value) | (_is_nan(a) & _is_nan(value))
    return np.sum(same, axis=axis, keepdims=True)


def _greater(x: Any, y: Any) -> bool:
    """torch's ``gt_or_nan``: NaN above every number."""
    return (x != x and y == y) or x > y


# ---------------------------------------------------------------- libstdc++'s algorithms
# torch's CPU kernels call ``std::sort``, ``std::nth_element`` and ``std::partial_sort``,
# which leave tied elements in an order of their own. Where ties matter, these run the
# same steps as GCC's libstdc++ (bits/stl_algo.h, bits/stl_heap.h) on a Python list, with
# the kernel's comparator ``less(a, b)``, so that the same element lands in each place.

_THRESHOLD = 16


def _insertion_sort(a: list, first: int, last: int, less: Callable) -> None:
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            value = a[i]
            a[first + 1 : i + 1] = a[first:i]
            a[first] = value
        else:
            _unguarded_linear_insert(a, i, less)


def _unguarded_linear_insert(a: list, last: int, less: Callable) -> None:
    value = a[last]
    while less(value, a[last - 1]):
        a[last] = a[last - 1]
        last -= 1
    a[last] = value


def _final_insertion_sort(a: list, first: int, last: int, less: Callable) -> None:
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def _move_median_to_first(a: list, result: int, x: int, y: int, z: int, less: Callable) -> None:
    if less(a[x], a[y]):
        pick = y if less(a[y], a[z]) else z if less(a[x], a[z]) else x
    else:
        pick = x if less(a[x], a[z]) else z if less(a[y], a[z]) else y
    a[result], a[pick] = a[pick], a[result]


def _partition_pivot(a: list, first: int, last: int, less: Callable) -> int:
    _move_median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1, less)
    pivot, low, high = a[first], first + 1, last
    while True:
        while less(a[low], pivot):
            low += 1
        high -= 1
        while less(pivot, a[high]):
            high -= 1
        if not low < high:
            return low
        a[low], a[high] = a[high], a[low]
        low += 1


def _adjust_heap(a: list, first: int, hole: int, length: int, value: Any, less: Callable) -> None:
    top, child = hole, hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _heap_select(a: list, first: int, middle: int, last: int, less: Callable) -> None:
    length = middle - first
    if length >= 2:
        for parent in range((length - 2) // 2, -1, -1):
            _adjust_heap(a, first, parent, length, a[first + parent], less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            value, a[i] = a[i], a[first]
            _adjust_heap(a, first, 0, length, value, less)


def _sort_heap(a: list, first: int, last: int, less: Callable) -> None:
    while last - first > 1:
        last -= 1
        value, a[last] = a[last], a[first]
        _adjust_heap(a, first, 0, last - first, value, less)


def stl_sort(a: list, first: int, last: int, less: Callable) -> None:
    """``std::sort(a + first, a + last, less)`` (introsort, then insertion sort)."""
    if last - first < 2:
        return
    stack = [(first, last, 2 * ((last - first).bit_length() - 1))]
    while stack:
        low, high, depth = stack.pop()
        while high - low > _THRESHOLD:
            if depth == 0:
                _heap_select(a, low, high, high, less)
                _sort_heap(a, low, high, less)
                break
            depth -= 1
            cut = _partition_pivot(a, low, high, less)
            stack.append((cut, high, depth))
            high = cut
    _final_insertion_sort(a, first, last, less)


def stl_nth_element(a: list, nth: int, less: Callable) -> None:
    """``std::nth_element(a, a + nth, a + len(a), less)`` (introselect)."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = 2 * ((last - first).bit_length() - 1)
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def stl_partial_sort(a: list, middle: int, less: Callable) -> None:
    """``std::partial_sort(a, a + middle, a + len(a), less)`` (heap select, heap sort)."""
    _heap_select(a, 0, middle, len(a), less)
    _sort_heap(a, 0, middle, less)


def quick_select(values: list[Any], k: int) -> int:
    """The original position of the element torch's ``kthvalue`` returns: its quickselect
    (Sedgewick's partition with a median of three) of ``values`` for rank ``k`` (from 0),
    moving positions with the values."""
    arr = list(values)
    positions = list(range(len(arr)))

    def swap(i: int, j: int) -> None:
        arr[i], arr[j] = arr[j], arr[i]
        positions[i], positions[j] = positions[j], positions[i]

    low, high = 0, len(arr) - 1
    while True:
        if high <= low:
            return positions[k]
        if high == low + 1:
            if _greater(arr[low], arr[high]):
                swap(low, high)
            return positions[k]
        swap((low + high) >> 1, low + 1)
        if _greater(arr[low + 1], arr[high]):
            swap(low + 1, high)
        if _greater(arr[low], arr[high]):
            swap(low, high)
        if _greater(arr[low + 1], arr[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, arr[low]
        while True:
            i += 1
            while _greater(pivot, arr[i]):
                i += 1
            j -= 1
            while _greater(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1


def _rows(a: np.ndarray, axis: int) -> np.ndarray:
    """``a`` with ``axis`` moved last, as rows."""
    return np.moveaxis(a, axis, -1).reshape(-1, a.shape[axis])


def _from_rows(rows: np.ndarray, shape: tuple[int, ...], axis: int) -> np.ndarray:
    """The inverse of ``_rows`` for one value per row: keepdims layout."""
    moved = list(np.moveaxis(np.empty(shape, np.bool_), axis, -1).shape)
    moved[-1] = 1
    return np.moveaxis(rows.reshape(moved), -1, axis)


def kth_indices(a: np.ndarray, k: int, axis: int) -> np.ndarray:
    """Per slice along ``axis`` (keepdims): the index of the ``k``-th smallest element
    (from 1), as torch's ``kthvalue`` picks it among ties."""
    order = np.argsort(a, axis=axis, kind="stable")
    chosen = np.take(order, [k - 1], axis=axis)
    tied = _ties(a, chosen, axis) > 1
    if tied.any():
        rows, picks = _rows(a, axis), _rows(chosen, axis)[:, 0].copy()
        for row in np.flatnonzero(_rows(tied, axis)[:, 0]):
            picks[row] = quick_select(rows[row].tolist(), k - 1)
        chosen = _from_rows(picks, a.shape, axis)
    return chosen


def nanmedian_indices(a: np.ndarray, axis: int) -> np.ndarray:
    """Indices of the lower medians of the numbers along ``axis`` (keepdims), NaNs left
    out, ties in input order (torch's ``nth_element`` compares positions after values);
    for a slice of NaNs only, the one torch's ``nth_element`` leaves first."""
    order = np.argsort(a, axis=axis, kind="stable")
    nan = _is_nan(a)
    count = np.sum(~nan, axis=axis, keepdims=True)
    middle = np.maximum(count - 1, 0) // 2
    chosen = np.take_along_axis(order, middle, axis=axis)
    all_nan = (count == 0) & (np.sum(nan, axis=axis, keepdims=True) > 0)
    if all_nan.any():
        picks = _rows(chosen, axis)[:, 0].copy()
        for row in np.flatnonzero(_rows(all_nan, axis)[:, 0]):
            positions = list(range(a.shape[axis]))
            stl_nth_element(positions, 0, lambda i, j: False)
            picks[row] = positions[0]
        chosen = _from_rows(picks, a.shape, axis)
    return chosen


def _distinct_rows(rows: np.ndarray) -> np.ndarray:
    """Per row: whether no two elements tie (NaNs count as equal)."""
    if rows.shape[1] < 2:
        return np.ones(rows.shape[0], bool)
    ordered = np.sort(rows, axis=1)
    same = ordered[:, 1:] == ordered[:, :-1]
    if rows.dtype.kind in "fc":
        same |= np.isnan(ordered[:, 1:]) & np.isnan(ordered[:, :-1])
    return ~same.any(axis=1)


def _above(x: Any, y: Any) -> bool:
    """torch's topk comparator for ``largest``: NaN first, then larger values."""
    return (x[0] != x[0] and y[0] == y[0]) or x[0] > y[0]


def _below(x: Any, y: Any) -> bool:
    """torch's topk comparator for the smallest: NaN last, then smaller values."""
    return (x[0] == x[0] and y[0] != y[0]) or x[0] < y[0]


def topk_row(values: list[Any], k: int, largest: bool, ordered: bool = True) -> list[int]:
    """The positions torch's ``topk`` kernel returns for one row: ``std::partial_sort``
    when ``64 k <= n``, else ``std::nth_element`` and (``ordered``: torch's ``sorted``) a
    ``std::sort`` of the first ``k - 1``."""
    queue = [(value, index) for index, value in enumerate(values)]
    less = _above if largest else _below
    if k * 64 <= len(queue):
        stl_partial_sort(queue, k, less)
    else:
        stl_nth_element(queue, k - 1, less)
        if ordered:
            stl_sort(queue, 0, k - 1, less)
    return [index for _, index in queue[:k]]


def topk_indices(
    a: np.ndarray, k: int, axis: int, largest: bool, ordered: bool = True
) -> np.ndarray:
    """The indices of the ``k`` largest (or smallest) elements along ``axis``, in the
    order torch's kernel leaves them (sorted unless ``ordered`` is False; ties as its
    ``std::`` algorithms leave them)."""
    order = sort_order(a, axis, largest)
    chosen = np.take(order, np.arange(k), axis=axis)
    rows = _rows(a, axis)
    tied = ~_distinct_rows(rows)
    if not ordered and k * 64 > a.shape[axis]:
        tied[:] = True
    if k and tied.any():
        picks = _rows(chosen, axis).copy()
        for row in np.flatnonzero(tied):
            picks[row] = topk_row(rows[row].tolist(), k, largest, ordered)
        shape = list(np.moveaxis(chosen, axis, -1).shape)
        chosen = np.moveaxis(picks.reshape(shape), -1, axis)
    return chosen


def mode_indices(a: np.ndarray, axis: int) -> np.ndarray:
    """Per slice along ``axis`` (keepdims): the index of the most frequent value (the
    smallest of equally frequent ones) as torch's kernel finds it: the last element of
    its run after ``std::sort`` of the slice by value."""
    rows = _rows(a, axis)
    picks = np.empty(rows.shape[0], np.int64)
    distinct = _distinct_rows(rows)
    for index, row in enumerate(rows):
        if distinct[index]:
            picks[index] = int(np.argmin(row)) if not np.isnan(row).any() else _mode_row(row)
        else:
            picks[index] = _mode_row(row)
    return _from_rows(picks, a.shape, axis)


def _mode_row(row: np.ndarray) -> int:
    """torch's ``mode`` of one slice: sort (value, index) pairs by value, then the first
    longest run of equal values; its last element's index."""
    pairs = [(value, index) for index, value in enumerate(row.tolist())]
    stl_sort(pairs, 0, len(pairs), lambda x, y: x[0] < y[0])
    best, best_count, count = 0, 0, 0
    for position, (value, index) in enumerate(pairs):
        count += 1
        if position == len(pairs) - 1 or value != pairs[position + 1][0]:
            if count > best_count:
                best, best_count = index, count
            count = 0
    return best


# ---------------------------------------------------------------- sort / topk / kthvalue


class Sort(SelectAlongDim):
    """``(values, indices)`` of ``self`` sorted along ``dim``; ``stable`` given picks
    torch's ``sort.stable`` overload (``SortBackward1``)."""

    node_name = "SortBackward0"
    saved_attributes = ("dim", "self_sym_sizes")

    def __init__(self, dim: int, descending: bool, stable: bool = False) -> None:
        super().__init__(dim, True)
        self.descending = descending
        if stable:
            self.node_name = "SortBackward1"

    def indices_of(self, a: Any, axis: int) -> Any:
        return sort_order(a, axis, self.descending)


class Topk(SelectAlongDim):
    """The ``k`` largest (``largest=False``: smallest) elements along ``dim`` and their
    indices, ties as torch's kernel leaves them; ``ordered=False`` (torch's
    ``sorted=False``) leaves them in the order its selection does."""

    saved_attributes = ("dim", "self_sym_sizes")

    def __init__(self, k: int, dim: int, largest: bool, ordered: bool = True) -> None:
        super().__init__(dim, True)
        self.k = k
        self.largest = largest
        self.ordered = ordered

    def indices_of(self, a: Any, axis: int) -> Any:
        return topk_indices(a, self.k, axis, self.largest, self.ordered)


class Kthvalue(SelectAlongDim):
    """The ``k``-th smallest element along ``dim`` (from 1) and its index."""

    saved_attributes = ("dim", "keepdim", "self_sym_sizes")

    def __init__(self, k: int, dim: int, keepdim: bool) -> None:
        super().__init__(dim, keepdim)
        self.k = k

    def indices_of(self, a: Any, axis: int) -> Any:
        return kth_indices(a, self.k, axis)


class Mode(SelectAlongDim):
    """The most frequent value along ``dim`` and the index of its last occurrence."""

    saved_attributes = ("dim", "keepdim", "self_sym_sizes")
    indices_of = staticmethod(mode_indices)


class NanmedianDim(SelectAlongDim):
    """The lower median along ``dim`` of the elements that are not NaN, and its index."""

    node_name = "NanmedianBackward1"
    saved_attributes = ("dim", "keepdim", "self_sym_sizes")
    indices_of = staticmethod(nanmedian_indices)


def _nanmedian(a: Any) -> Any:
    """The lower median of the elements that are not NaN (NaN if all are)."""
    flat = a.reshape(-1)
    return lower_median(flat[~_is_nan(flat)]) if flat.size else lower_median(flat)


Nanmedian = entry(
    "nanmedian(Tensor self) -> Tensor",
    _nanmedian,
    self="evenly_distribute_backward(grad, self, result)",
)


# ---------------------------------------------------------------- cummax / cummin


def _running(a: np.ndarray, axis: int, largest: bool) -> tuple[np.ndarray, np.ndarray]:
    """The running maximum (or minimum) along ``axis`` and the index of the element it
    came from: the latest one of equal elements, and a NaN from where it appears on."""
    accumulate = np.maximum if largest else np.minimum
    values = accumulate.accumulate(a, axis=axis)
    # An element is taken where it is NaN or equals the running value; the index of each
    # position is the latest such element up to it.
    taken = _is_nan(a) | (a == values)
    shape = [1] * a.ndim
    shape[axis] = a.shape[axis]
    positions = np.arange(a.shape[axis]).reshape(shape)
    indices = np.maximum.accumulate(np.where(taken, positions, 0), axis=axis)
    return values, indices.astype(np.int64)


class Cummax(Op):
    """The running maximum along ``dim`` and the index it came from; torch's
    ``cummaxmin_backward``: the gradient added into zeros at those indices."""

    input_names = ("self",)
    output_names = ("values", "indices")
    saves = ("self", "indices")
    saved_attributes = ("dim",)
    largest = True

    def __init__(self, dim: int) -> None:
        self.dim = dim

    def forward(self, a: Any) -> Any:
        if a.ndim == 0:
            return a.copy(), np.zeros((), np.int64)
        if a.size == 0:
            return a.copy(), np.zeros(a.shape, np.int64)
        return _running(a, wrapped(self.dim, a.ndim), self.largest)

    def backward(self, grad: Any, grad_indices: Any = None) -> Any:
        x, indices = self.unpack()
        if x.numel() == 0:
            return x
        return grad.new_zeros(x.shape).scatter_add(self.dim, indices, grad)


class Cummin(Cummax):
    """The running minimum along ``dim`` and the index it came from."""

    largest = False


# ---------------------------------------------------------------- logcumsumexp


def _logcumsumexp(a: Any, dim: int) -> Any:
    """``log(cumsum(exp(a)))`` along ``dim``, one ``logaddexp`` at a time (as torch's
    scan), so it cannot overflow."""
    if a.ndim == 0 or a.size == 0:
        return a.copy()
    return np.ascontiguousarray(np.logaddexp.accumulate(a, axis=wrapped(dim, a.ndim)))


def _log_abs(grad: Any) -> Any:
    with np.errstate(divide="ignore"):
        return np.log(np.abs(grad))


# ``grad.abs().log()``, and ``std::numeric_limits<T>::lowest()`` of the gradient's dtype.
function("_log_abs", _log_abs, lambda grad: grad.abs().log())
function(
    "_lowest",
    lambda grad: float(np.finfo(grad.dtype).min),
    lambda grad: float(np.finfo(grad._data.dtype).min),
)
# torch's ``logcumsumexp_backward``: the positive and the negative part of the gradient,
# each through a reversed logcumsumexp in log space.
helper(
    "logcumsumexp_backward(grad, self, result, dim)",
    "grad if grad.ndim == 0 or grad.numel() == 0 "
    "else _logcumsumexp_parts(grad, self, result, dim, _log_abs(grad), _lowest(grad))",
)
helper(
    "_logcumsumexp_parts(grad, self, result, dim, log_abs_grad, lowest)",
    "_logcumsumexp_combine(self, result, dim, where(grad > 0, log_abs_grad, lowest),"
    " where(grad < 0, log_abs_grad, lowest))",
)
helper(
    "_logcumsumexp_combine(self, result, dim, positive, negative)",
    "(_reverse_logcumsumexp(positive - result, dim) + self).exp()"
    " - (_reverse_logcumsumexp(negative - result, dim) + self).exp()",
)
helper(
    "_reverse_logcumsumexp(x, dim)",
    "x.flip((dim,)).logcumsumexp(dim).flip((dim,))",
)

Logcumsumexp = entry(
    "logcumsumexp(Tensor self, int dim) -> Tensor",
    _logcumsumexp,
    quiet=True,
    self="logcumsumexp_backward(grad, self, result, dim)",
)
