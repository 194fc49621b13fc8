"""The tangents of the current dual level: a side table, never a field of ``Tensor``.

A tensor's tangent (its forward gradient) is found, in this order:

1. its own entry, set by ``make_dual``, by an op's tangent rule or by an in-place write;
2. the entry of the value it stands for in the graph: a tensor that is output ``nr`` of a
   node (a saved output unpacked, the stand-in an in-place op computes from) has the
   tangent set for that node's output ``nr``;
3. for a view (``_base`` set) made before its base had a tangent: the same view of the
   base's tangent (same element strides and offset), made then and kept as its entry.

Entries hold a weak reference to their tensor (or node) and disappear with it; leaving the
level drops the whole table. While a tangent is being computed (``busy``), ops record
no tangents: forward AD is first order, as torch's.

An in-place write (``write``) changes a tangent in place, so a view's tangent and its
base's stay one memory, as the tensors do.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

import numpy as np

from hookgrad.tensor.tensor import Tensor


class Level:
    """One dual level: its number and its tangents (by tensor, and by node output)."""

    def __init__(self, index: int) -> None:
        self.index = index
        # id -> (weak reference, tangent, the tensor's array when the tangent was set)
        self.tensors: dict[int, tuple[weakref.ref, Tensor, np.ndarray]] = {}
        self.nodes: dict[tuple[int, int], tuple[weakref.ref, Tensor]] = {}


class _Busy(threading.local):
    # True while this thread computes tangents (or runs a custom Function's forward).
    value = False


busy = _Busy()
# The current level (at most one: nesting is refused, as in torch); None outside.
current: Level | None = None


def _forget(table: dict, key: Any) -> Any:
    """A weak-reference callback that drops ``table[key]`` when its object dies."""

    def callback(ref: weakref.ref) -> None:
        entry = table.get(key)
        if entry is not None and entry[0] is ref:
            del table[key]

    return callback


def get(tensor: Tensor) -> Tensor | None:
    """The tangent of ``tensor`` at the current level, or None."""
    level = current
    if level is None:
        return None
    entry = level.tensors.get(id(tensor))
    if entry is not None:
        if entry[2] is tensor._data:
            return entry[1]
        return _restrided(tensor, entry)
    node = tensor._grad_fn
    if node is not None:
        entry = level.nodes.get((id(node), tensor._output_nr))
        if entry is not None:
            return entry[1]
    base = tensor._base
    # NOTE: only a view of the base's item size maps onto its tangent (not view_as_real).
    if base is not None and base._data.itemsize == tensor._data.itemsize:
        base_tangent = own(base)
        if base_tangent is not None:
            tangent = Tensor._make(_view_of(base, base_tangent, tensor))
            set_own(tensor, tangent)
            return tangent
    return None


def own(tensor: Tensor) -> Tensor | None:
    """The tangent set for ``tensor`` itself (rules 2 and 3 aside), or None."""
    level = current
    entry = None if level is None else level.tensors.get(id(tensor))
    if entry is None:
        return None
    return entry[1] if entry[2] is tensor._data else _restrided(tensor, entry)


def _restrided(tensor: Tensor, entry: tuple[Any, Tensor, np.ndarray]) -> Tensor | None:
    """The tangent of a tensor whose layout changed in place (``t_()``, ``squeeze_()``,
    ``as_strided_()``): the same layout taken on its tangent's memory. A tensor moved to
    other memory (``set_``, ``.data =``) loses its tangent."""
    _, tangent, old = entry
    new = tensor._data
    if not _within(new, old):
        del current.tensors[id(tensor)]  # type: ignore[union-attr]
        return None
    if _element_strides(tangent._data) != _element_strides(old):
        relaid = zeros_laid_out(old, tangent._data.dtype)
        relaid[...] = tangent._data
        tangent = Tensor._make(relaid)
    moved = Tensor._make(_strided_like(tangent._data, old, new))
    set_own(tensor, moved)
    return moved


def _extent(array: np.ndarray) -> tuple[int, int]:
    """The first and one-past-last byte addresses ``array``'s elements use."""
    start = _address(array)
    if array.size == 0:
        return start, start
    low = sum(min(0, (n - 1) * s) for n, s in zip(array.shape, array.strides))
    high = sum(max(0, (n - 1) * s) for n, s in zip(array.shape, array.strides))
    return start + low, start + high + array.itemsize


def _within(new: np.ndarray, old: np.ndarray) -> bool:
    """Whether the elements of ``new`` lie inside the memory ``old``'s elements use (of
    the same item size)."""
    if new.itemsize != old.itemsize:
        return False
    new_low, new_high = _extent(new)
    old_low, old_high = _extent(old)
    return old_low <= new_low and new_high <= old_high


def set_own(tensor: Tensor, tangent: Tensor) -> None:
    """Make ``tangent`` the tangent of ``tensor`` (and of the node output it is)."""
    level = current
    assert level is not None
    key = id(tensor)
    old = level.tensors.get(key)
    ref = old[0] if old is not None else weakref.ref(tensor, _forget(level.tensors, key))
    level.tensors[key] = (ref, tangent, tensor._data)
    node = tensor._grad_fn
    if node is not None:
        node_key = (id(node), tensor._output_nr)
        old = level.nodes.get(node_key)
        ref = old[0] if old is not None else weakref.ref(node, _forget(level.nodes, node_key))
        level.nodes[node_key] = (ref, tangent)


def write(target: Tensor, value: Any) -> None:
    """An in-place write changed ``target``: its tangent becomes ``value`` (an array or
    a tensor broadcastable to it; None: zero), written into the existing tangent so that
    views and base stay one memory. A target without a tangent gets one only when
    ``value`` is not None (a zero tangent of its base first, if it is a view)."""
    tangent = get(target)
    if tangent is None:
        if value is None:
            return
        tangent = _new_tangent(target)
    if isinstance(value, Tensor):
        if value.requires_grad:
            # A differentiable tangent: the write is recorded on the tangent, as torch's.
            previous = busy.value
            busy.value = True
            try:
                tangent.copy_(value)
            finally:
                busy.value = previous
            return
        value = value._data
    destination = tangent._data
    if value is None:
        destination[...] = 0
    else:
        np.copyto(destination, value, casting="unsafe")


def _new_tangent(target: Tensor) -> Tensor:
    """A zero tangent for ``target``; for a view, the view of its base's (made first)."""
    base = target._base
    if base is None:
        tangent = Tensor._make(zeros_laid_out(target._data, target._data.dtype))
        set_own(target, tangent)
        return tangent
    base_tangent = own(base)
    if base._data.itemsize != target._data.itemsize:
        tangent = Tensor._make(zeros_laid_out(target._data, target._data.dtype))
        set_own(target, tangent)
        return tangent
    if base_tangent is None:
        base_tangent = Tensor._make(zeros_laid_out(base._data, base._data.dtype))
        set_own(base, base_tangent)
    tangent = Tensor._make(_view_of(base, base_tangent, target))
    set_own(target, tangent)
    return tangent


def zeros_laid_out(data: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Zeros of ``dtype`` with the element strides of ``data`` (a view of ``data``
    then maps to the same view of them)."""
    if data.flags.c_contiguous or data.size == 0:
        return np.zeros(data.shape, dtype)
    itemsize = data.itemsize
    strides = [stride // itemsize for stride in data.strides]
    low = sum(min(0, (size - 1) * stride) for size, stride in zip(data.shape, strides))
    high = sum(max(0, (size - 1) * stride) for size, stride in zip(data.shape, strides))
    buffer = np.zeros(high - low + 1, dtype)
    new_itemsize = buffer.itemsize
    return np.lib.stride_tricks.as_strided(
        buffer[-low:],
        shape=data.shape,
        strides=tuple(stride * new_itemsize for stride in strides),
    )


def _element_strides(array: np.ndarray) -> tuple[int, ...]:
    return tuple(stride // array.itemsize for stride in array.strides)


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def _view_of(base: Tensor, base_tangent: Tensor, view: Tensor) -> np.ndarray:
    """The view of ``base_tangent`` that ``view`` is of ``base`` (same offset and element
    strides). A base tangent laid out otherwise than its base is first relaid (a copy,
    made the base's tangent)."""
    data = base._data
    tangent = base_tangent._data
    if data.size and _element_strides(tangent) != _element_strides(data):
        relaid = zeros_laid_out(data, tangent.dtype)
        relaid[...] = tangent
        base_tangent = Tensor._make(relaid)
        set_own(base, base_tangent)
        tangent = relaid
    return _strided_like(tangent, data, view._data)


def _strided_like(tangent: np.ndarray, data: np.ndarray, view: np.ndarray) -> np.ndarray:
    """The view of ``tangent`` (laid out as ``data``) that ``view`` is of ``data``."""
    itemsize = tangent.itemsize
    offset = (_address(view) - _address(data)) // data.itemsize
    start = np.lib.stride_tricks.as_strided(
        tangent, shape=(abs(offset) + 1,), strides=(itemsize if offset >= 0 else -itemsize,)
    )[abs(offset) :]
    return np.lib.stride_tricks.as_strided(
        start,
        shape=view.shape,
        strides=tuple(stride * itemsize for stride in _element_strides(view)),
    )
