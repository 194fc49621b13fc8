"""torch's strides for NumPy arrays: NumPy's strides are bytes and torch's elements, and
the two libraries choose different strides for size-1 dims (NumPy gives an empty array
all-zero strides). View ops build their outputs with the strides torch's op gives, so
that ``stride()`` and ``view``'s rules see torch's values.

New results are laid out as torch lays them out too, where NumPy would choose otherwise:
an elementwise op's by torch's ``TensorIterator`` rule (``iterator_strides``), a copy's
(``clone``, ``to``) by ``preserve_format``'s (``preserve_layout``)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """The strides (in elements) of a C-contiguous tensor of ``shape``, as torch
    computes them (a size-0 dim counts as 1). Example: ``(2, 0, 3)`` -> ``(3, 3, 1)``."""
    strides = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def torch_layout(a: np.ndarray) -> np.ndarray:
    """``a``, restrided to torch's contiguous strides when NumPy left an empty array with
    all-zero strides (as ``np.zeros((2, 0))`` does); otherwise ``a`` itself."""
    if a.size or not a.ndim or any(a.strides):
        return a
    return as_view(a, a.shape, contiguous_strides(a.shape))


def torch_strides(a: np.ndarray) -> tuple[int, ...]:
    """torch's ``stride()`` of ``a``: its strides in elements.

    Example: a float32 array of shape (2, 3) has NumPy strides (12, 4): torch's (3, 1).
    """
    item = a.itemsize
    return tuple(s // item for s in torch_layout(a).strides)


def as_view(
    a: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...], writeable: bool = True
) -> np.ndarray:
    """A view of ``a``'s memory (from its first element) with ``shape`` and ``strides``
    in elements; ``a`` itself when it has them already."""
    item = a.itemsize
    wanted = tuple(s * item for s in strides)
    if a.shape == shape and a.strides == wanted and (writeable or not a.flags.writeable):
        return a
    return np.lib.stride_tricks.as_strided(a, shape, wanted, writeable=writeable)


def compute_stride(
    old_shape: tuple[int, ...], old_strides: tuple[int, ...], new_shape: tuple[int, ...]
) -> tuple[int, ...] | None:
    """torch's ``computeStride``: the strides of a view of shape ``new_shape`` on memory of
    ``old_shape``/``old_strides``, or None when no view can have that shape.

    The old dims are cut into chunks that are contiguous among themselves; each chunk must
    be made of whole new dims. Example: a transposed (3, 4) tensor (strides (1, 3)) can be
    viewed as (3, 2, 2) (strides (1, 6, 3)) but not as (12,).
    """
    if not old_shape:
        return (1,) * len(new_shape)
    if math.prod(old_shape) == 0:
        if old_shape == new_shape:
            return old_strides
        return contiguous_strides(new_shape)
    new_strides = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_strides[-1]
    tensor_numel = 1
    view_numel = 1
    for tensor_d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[tensor_d]
        # The chunk ends here unless the dim before continues it in memory.
        if tensor_d == 0 or (
            old_shape[tensor_d - 1] != 1
            and old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride
        ):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_strides[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base_stride = old_strides[tensor_d - 1]
                tensor_numel = 1
                view_numel = 1
    if view_d != -1:
        return None
    return tuple(new_strides)


def reshaped(a: np.ndarray, shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray:
    """A view of ``a`` with ``shape`` and torch's ``strides``: NumPy's own reshape when it
    gives those strides (the fast, common case), else ``as_strided``."""
    try:
        out = a.reshape(shape, copy=False)
    except ValueError:
        out = a
    return as_view(out, shape, strides)


def _dense_in_order(
    shape: tuple[int, ...], strides: tuple[int, ...], order: tuple[int, ...]
) -> bool:
    """Whether the dims in ``order`` (innermost first) are dense; size-1 dims may have any
    stride (torch's ``is_contiguous`` for that memory format)."""
    expected = 1
    for dim in order:
        if shape[dim] != 1:
            if strides[dim] != expected:
                return False
            expected *= shape[dim]
    return True


def non_overlapping_and_dense(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """torch's ``is_non_overlapping_and_dense``: some order of the dims is dense (dims of
    size 0 or 1 never count against it)."""
    expected = 1
    for dim in sorted(range(len(shape)), key=lambda d: (shape[d] < 2, strides[d])):
        if shape[dim] < 2:
            return True
        if strides[dim] != expected:
            return False
        expected *= shape[dim]
    return True


# The dims of a channels-last layout, innermost first, by rank.
_CHANNELS_LAST = {4: (1, 3, 2, 0), 5: (1, 4, 3, 2, 0)}


def iterator_strides(shape: tuple[int, ...], operands: list[np.ndarray]) -> tuple[int, ...] | None:
    """The strides torch's ``TensorIterator`` gives the output of an elementwise op on
    ``operands`` (arrays, 0-dim for a number, in the op's argument order, broadcast to
    ``shape``), or None when the output is C-contiguous.

    Operands of ``shape`` that are all contiguous, all channels-last, or all dense with
    the same strides give their layout. Otherwise the dims are ordered by the operands'
    strides: the first operand whose strides for two dims differ (and are not 0, a
    broadcast) decides which is inner; on equal strides the smaller dim is inner. NumPy
    lets C order win such conflicts: ``x.t() + y`` is laid out as ``x.t()`` in torch.
    """
    ndim = len(shape)
    if ndim < 2 or 0 in shape:
        return None  # an empty tensor is contiguous, whatever its strides
    # A Python number is an operand too (torch wraps it as a 0-dim tensor).
    layouts = [(a.shape, torch_strides(a)) if a.ndim else ((), ()) for a in operands]
    if all(s == shape for s, _ in layouts):
        if all(_dense_in_order(s, st, tuple(range(ndim - 1, -1, -1))) for s, st in layouts):
            return None
        order = _CHANNELS_LAST.get(ndim)
        if order is not None and all(_dense_in_order(s, st, order) for s, st in layouts):
            return dense_strides_in_order(shape, order)
        first = layouts[0][1]
        if all(non_overlapping_and_dense(s, st) and st == first for s, st in layouts):
            return first
    strides = [_broadcast_strides(s, st, shape) for s, st in layouts]

    perm = iteration_order(shape, strides, reduction=False)
    if perm == list(range(ndim - 1, -1, -1)):
        return None
    return dense_strides_in_order(shape, tuple(perm))


def iteration_order(
    shape: Sequence[int], operands: Sequence[Sequence[int]], reduction: bool = False
) -> list[int]:
    """``TensorIterator::reorder_dimensions``: the dimensions, fastest first. For a
    reduction, ``operands[0]`` is the output and its zero-stride dimensions go first."""

    def should_swap(dim0: int, dim1: int) -> int:
        for index, strides in enumerate(operands):
            stride0, stride1 = strides[dim0], strides[dim1]
            if reduction and index == 0 and (stride0 == 0) != (stride1 == 0):
                return 1 if stride1 == 0 else -1
            if stride0 == 0 or stride1 == 0:
                continue
            if stride0 != stride1:
                return 1 if stride0 > stride1 else -1
            if shape[dim0] > shape[dim1]:
                return 1
        return 0

    # NOTE: an insertion sort that walks past ambiguous pairs (0) and may then swap
    # non-neighbours; a stable sort would order broadcast dimensions differently.
    perm = list(range(len(shape)))[::-1]
    for i in range(1, len(perm)):
        moving = i
        for earlier in range(i - 1, -1, -1):
            order = should_swap(perm[earlier], perm[moving])
            if order > 0:
                perm[earlier], perm[moving] = perm[moving], perm[earlier]
                moving = earlier
            elif order < 0:
                break
    return perm


def dense_strides_in_order(shape: tuple[int, ...], order: tuple[int, ...]) -> tuple[int, ...]:
    """Dense strides with the dims of ``order`` (innermost first) increasing."""
    strides = [0] * len(shape)
    step = 1
    for dim in order:
        strides[dim] = step
        step *= shape[dim]
    return tuple(strides)


def _broadcast_strides(
    old_shape: tuple[int, ...], old_strides: tuple[int, ...], shape: tuple[int, ...]
) -> tuple[int, ...]:
    """The strides of an operand broadcast to ``shape``: 0 along the dims it is broadcast."""
    lead = len(shape) - len(old_shape)
    strides = [0] * lead
    for size, stride, new in zip(old_shape, old_strides, shape[lead:]):
        strides.append(0 if size == 1 and new != 1 else stride)
    return tuple(strides)


def preserve_layout(out: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``out``, a copy of ``a`` (maybe cast), laid out as torch's ``preserve_format``
    (``clone()``, ``to()``) lays it out: with ``a``'s strides when ``a`` is dense, else
    dense in the order of ``a``'s strides (``iterator_strides``)."""
    strides = torch_strides(a)
    if not non_overlapping_and_dense(a.shape, strides):
        strides = iterator_strides(a.shape, [a]) or contiguous_strides(a.shape)
    return _restrided(out, strides)


def elementwise_layout(out: np.ndarray, operands: tuple[Any, ...]) -> np.ndarray:
    """``out``, the result of an elementwise op on ``operands`` (arrays and Python
    numbers, in argument order), laid out as torch lays it out (see ``iterator_strides``):
    ``out`` itself when it is, else a copy."""
    if out.ndim < 2:
        return out
    arrays = [a if type(a) is np.ndarray else np.asarray(a) for a in operands]
    # NOTE: C-contiguous operands give a C-contiguous result in both libraries; NumPy's
    # flag ignores the strides of size-1 dims, which torch's order may read.
    if out.flags.c_contiguous and all(a.flags.c_contiguous and 1 not in a.shape for a in arrays):
        return out
    strides = iterator_strides(out.shape, arrays)
    return _restrided(out, contiguous_strides(out.shape) if strides is None else strides)


def _restrided(out: np.ndarray, strides: tuple[int, ...]) -> np.ndarray:
    """``out`` itself when it has ``strides``, else a copy with them."""
    if torch_strides(out) == strides:
        return out
    size = 1 + sum((n - 1) * s for n, s in zip(out.shape, strides)) if out.size else 0
    copy = as_view(np.empty(size, out.dtype), out.shape, strides)
    np.copyto(copy, out)
    return copy


def cast(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """``a`` cast to ``dtype`` with its broadcast dims (stride 0) still broadcast: torch
    casts an operand as it reads it, so the result's layout still sees them as such
    (NumPy's copy gives them memory, in an order of its own)."""
    if not any(s == 0 and n > 1 for s, n in zip(a.strides, a.shape)):
        return a.astype(dtype)
    compact = a[tuple(slice(0, 1) if s == 0 else slice(None) for s in a.strides)]
    return np.broadcast_to(compact.astype(dtype), a.shape)
